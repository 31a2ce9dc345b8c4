/// The `code` of an `error` message (docs/protocol.md §3) and of a REST error body (§5): the single source of truth.
///
/// A struct with static members rather than an enum, so codes can be added without breaking exhaustive
/// switches in clients of this module. Raw values are stable wire names.
public struct ErrorCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The wire name, e.g. `invalidPose`.
    public let rawValue: String

    /// Creates a code from its wire name.
    /// - Parameter rawValue: The wire name.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// The wire name.
    public var description: String { rawValue }

    /// The message is not well-formed JSON (RFC 8259), is not a JSON object, or is not UTF-8. Decided by the
    /// decoder.
    public static let invalidJSON = ErrorCode(rawValue: "invalidJSON")
    /// `type` is missing, not a string, or not a known message type. Decided by the decoder.
    public static let unknownType = ErrorCode(rawValue: "unknownType")
    /// A message other than `start` arrived before `start`. Decided by the server.
    public static let notStarted = ErrorCode(rawValue: "notStarted")
    /// A second `start` arrived. Decided by the server.
    public static let alreadyStarted = ErrorCode(rawValue: "alreadyStarted")
    /// `start` named an exercise the catalog does not have. Decided by the server.
    public static let unknownExercise = ErrorCode(rawValue: "unknownExercise")
    /// `start` named a one-sided exercise without `side`. Decided by the server.
    public static let missingSide = ErrorCode(rawValue: "missingSide")
    /// `resume` named no session, or another tenant's (docs/protocol.md §3.1; the connection then closes with 1008).
    /// Decided by the server.
    public static let unknownSession = ErrorCode(rawValue: "unknownSession")
    /// `resume` gave the wrong token for its session (then close 1008). Decided by the server.
    public static let invalidResume = ErrorCode(rawValue: "invalidResume")
    /// `resume` named a session that was stopped, abandoned or is past its resume window (then close 1008).
    /// Decided by the server.
    public static let resumeExpired = ErrorCode(rawValue: "resumeExpired")
    /// A pose (or a frame of a batch) lacks `t`, has a field of the wrong type, a value out of range, a member
    /// or joint given twice, or lacks what its input format needs. Decided by the decoder.
    public static let invalidPose = ErrorCode(rawValue: "invalidPose")
    /// A pose's `t` is not greater than the previous one's (docs/protocol.md §2). Decided by the server.
    public static let nonIncreasingTime = ErrorCode(rawValue: "nonIncreasingTime")
    /// The client sends faster than the server allows. Decided by the server. docs/protocol.md v1 only: the server now
    /// slows a fast client down instead (flow control) and never sends it.
    public static let rateLimited = ErrorCode(rawValue: "rateLimited")
    /// The session store failed: the session's summary could not be stored (a live session then closes with
    /// 1011), or a REST call could not be answered (503). Decided by the server.
    public static let storeUnavailable = ErrorCode(rawValue: "storeUnavailable")
    /// The message (or a batch's frame count) exceeds ``WireLimits``. Decided by the decoder.
    /// An extension of docs/protocol.md §3; over WebSocket the connection may instead be closed with 1009.
    public static let messageTooBig = ErrorCode(rawValue: "messageTooBig")
    /// A pose named a joint that is not one of docs/protocol.md §1 in `points` or `confidence`, e.g. Apple Vision's raw
    /// `left_shoulder_1_joint`, `LeftElbow` or `leftHeel`. Not a refusal: the name is ignored (the joint reads as
    /// not seen) and the pose is accepted; the server answers the first such name of a session, once, with this
    /// code, and goes on (docs/protocol.md §3). Noticed by the decoder (``DecodingReport/unknownJoint``), sent by the
    /// server; ``WireError/unknownJoint(_:)`` builds the error.
    public static let unknownJoint = ErrorCode(rawValue: "unknownJoint")
    /// A known message other than a pose has a field of the wrong type or an invalid value, e.g. `start` without
    /// `exercise`, `"format":"openpose"`, a `subject` over 128 characters or 256 bytes or holding a control
    /// character, or a member given twice; also any message whose `type` is given twice. Decided by the decoder.
    /// An extension of docs/protocol.md §3.
    public static let invalidMessage = ErrorCode(rawValue: "invalidMessage")

    /// `start` names a programme item the tenant does not have (no such programme, another tenant's, or no such item
    /// in its latest version; docs/protocol.md §5.3). Decided by the server: `404` over REST.
    public static let unknownProgramme = ErrorCode(rawValue: "unknownProgramme")
    /// An exercise definition (docs/protocol.md §5.1) is well-formed JSON but not a usable exercise: a missing or
    /// unknown member, a wrong type, an unknown joint, segment, fault or enum value, or a value the measurement
    /// cannot read; the error's `pointer` names the first bad field. Decided by the decoder: `422` over REST.
    public static let invalidExercise = ErrorCode(rawValue: "invalidExercise")
    /// A programme (docs/protocol.md §5.3) is well-formed JSON but not a usable programme: a missing or wrong
    /// member, a date that is no date, `endsOn` before `startsOn`, an item given twice, an unknown exercise, a
    /// one-sided exercise without its side, a prescription the exercise refuses; the error's `pointer` names the
    /// first bad field: `422` over REST.
    public static let invalidProgramme = ErrorCode(rawValue: "invalidProgramme")

    // MARK: REST (docs/protocol.md §5) and the HTTP layer

    /// No such session (or another tenant's, which reads the same), route or file: `404`.
    public static let notFound = ErrorCode(rawValue: "notFound")
    /// The path exists but not for the request's method: `405` with `Allow`. Decided by the HTTP layer.
    public static let methodNotAllowed = ErrorCode(rawValue: "methodNotAllowed")
    /// The request is not valid HTTP/1.1 (a malformed head, a limit exceeded): `400`, `413`, `414` or `431`, and
    /// the connection closes. Decided by the HTTP layer.
    public static let badRequest = ErrorCode(rawValue: "badRequest")
    /// A missing or unknown bearer token (docs/protocol.md §6): `401` with `WWW-Authenticate`.
    public static let unauthorized = ErrorCode(rawValue: "unauthorized")
    /// A request that offers more than one credential: two `Authorization` fields, or a bearer token and a
    /// `bearer.` WebSocket subprotocol naming another, or two such subprotocols naming different tokens: `400`.
    public static let ambiguousCredentials = ErrorCode(rawValue: "ambiguousCredentials")
    /// Without tokens, a `Host` that is not one of the server's names (docs/protocol.md §6.2; a DNS-rebinding page):
    /// `421`.
    public static let hostNotAllowed = ErrorCode(rawValue: "hostNotAllowed")
    /// A valid token without the right, e.g. a tenant token on `/metrics`: `403`.
    public static let forbidden = ErrorCode(rawValue: "forbidden")
    /// A request body that is neither JSON nor, where allowed, NDJSON: `415`.
    public static let unsupportedMediaType = ErrorCode(rawValue: "unsupportedMediaType")
    /// A query parameter of `GET /v1/sessions` is out of range or unreadable (`status`, `from`, `to`, `limit`):
    /// `400`.
    public static let invalidQuery = ErrorCode(rawValue: "invalidQuery")
    /// A `cursor` this server did not issue: `400`.
    public static let invalidCursor = ErrorCode(rawValue: "invalidCursor")
    /// `…/poses` or `…/stop` on a session that exists but is not an open HTTP session on this node (finished, or
    /// driven over WebSocket): `409`.
    public static let notLive = ErrorCode(rawValue: "notLive")
    /// `DELETE` of a session still in progress: `409`; stop it first.
    public static let sessionLive = ErrorCode(rawValue: "sessionLive")
    /// The tenant has as many open HTTP sessions as it may: `429`.
    public static let tooManySessions = ErrorCode(rawValue: "tooManySessions")
    /// The node has as many open HTTP sessions as it may: `503`.
    public static let serverBusy = ErrorCode(rawValue: "serverBusy")
    /// `POST /v1/exercises` with an id that a built-in exercise or one of the tenant's own already has, without regard
    /// to case: `409`.
    public static let exerciseExists = ErrorCode(rawValue: "exerciseExists")
    /// `PUT` or `DELETE` of a built-in exercise, which cannot be changed: `409`.
    public static let builtinExercise = ErrorCode(rawValue: "builtinExercise")
    /// The tenant has as many custom exercises as it may (deleted ones do not count): `409`; delete one first.
    public static let tooManyExercises = ErrorCode(rawValue: "tooManyExercises")
    /// The tenant has stored as many exercise versions as it may (every version of every custom exercise, deleted
    /// ones included, which stored sessions may still name): `409`.
    public static let tooManyVersions = ErrorCode(rawValue: "tooManyVersions")
    /// A subject has as many working patient codes as it may (docs/protocol.md §6.1): `409`; revoke one first.
    public static let tooManyAccessCodes = ErrorCode(rawValue: "tooManyAccessCodes")
    /// A `PUT` of an ended programme, or a `start` of one of its items (docs/protocol.md §5.3): `409`.
    public static let programmeEnded = ErrorCode(rawValue: "programmeEnded")
    /// An unexpected server error; details are logged, not sent: `500`. Decided by the HTTP layer.
    public static let internalError = ErrorCode(rawValue: "internalError")
    /// A WebSocket handshake, or a request with a method other than `GET`, `HEAD` or `OPTIONS`, whose `Origin` is
    /// neither the server's own nor an allowed one (docs/protocol.md §6.2; a foreign page hijacking the socket or
    /// acting on the user's behalf): `403`.
    public static let originNotAllowed = ErrorCode(rawValue: "originNotAllowed")
    /// An invalid WebSocket opening handshake (RFC 6455 §4.2.1): `400`, or `426` naming the supported version.
    /// Decided by the HTTP layer.
    public static let badHandshake = ErrorCode(rawValue: "badHandshake")
    /// A static file over the file server's size limit: `413`. Decided by the HTTP layer.
    public static let fileTooLarge = ErrorCode(rawValue: "fileTooLarge")
}
