import HTTPServer
import HTTPWire
import MotionWire

/// Every error a REST route answers with (docs/protocol.md §5): its status, its ``ErrorCode``, and the body
/// `{"error":{"code":"…","message":"…"}}`. Handlers and middleware throw it; the server sends ``response()``.
enum RESTError: HTTPResponseError, Equatable {
    /// `404 notFound`: no such session, or another tenant's.
    case notFound
    /// `404 unknownExercise`: neither the catalog nor the tenant has an exercise with this id (or this version).
    case unknownExercise(String)
    /// `409 exerciseExists`: a built-in exercise or one of the tenant's own has this id, without regard to case (the
    /// id it has).
    case exerciseExists(String)
    /// `409 builtinExercise`: a built-in exercise cannot be changed or deleted.
    case builtinExercise(String)
    /// `409 tooManyExercises`: the tenant has `limit` custom exercises.
    case tooManyExercises(limit: Int)
    /// `409 tooManyVersions`: the tenant has stored `limit` exercise versions.
    case tooManyVersions(limit: Int)
    /// `404 notFound`: the tenant has no programme with this id.
    case unknownProgramme
    /// `409 programmeEnded`: an ended programme takes no new version, nor sessions.
    case programmeEnded
    /// `409 tooManyVersions`: the tenant has stored `limit` programme versions.
    case tooManyProgrammeVersions(limit: Int)
    /// `409 tooManyAccessCodes`: the subject has `limit` working patient codes.
    case tooManyAccessCodes(limit: Int)
    /// `401 unauthorized` with `WWW-Authenticate`: a missing or unknown bearer token.
    case unauthorized
    /// `403 forbidden`: the token may not read server-wide figures.
    case forbidden
    /// `400 ambiguousCredentials`: the request offers more than one credential; the message says how.
    case ambiguousCredentials(String)
    /// `421 hostNotAllowed`: without tokens, the `Host` is not one of the server's names (docs/protocol.md §6.2).
    case hostNotAllowed
    /// `403 originNotAllowed`: a WebSocket handshake, or a request that is no read, from a page of a foreign origin
    /// (docs/protocol.md §6.2).
    case originNotAllowed
    /// `415 unsupportedMediaType`: the body is not of a type the route takes; `accepted` names those it does.
    case unsupportedMediaType(accepted: String, received: String)
    /// `400 invalidQuery`: a query parameter of the session list is unreadable; the message says which.
    case invalidQuery(String)
    /// `400 invalidCursor`: a cursor this server did not issue.
    case invalidCursor
    /// `409 notLive`: the session exists but is not an open HTTP session on this node.
    case notLive
    /// `409 sessionLive`: a session in progress cannot be deleted.
    case sessionLive
    /// `429 tooManySessions`: the tenant has `limit` open HTTP sessions.
    case tooManySessions(limit: Int)
    /// `503 serverBusy`: the node has as many open HTTP sessions as it takes.
    case serverBusy
    /// `503 storeUnavailable` with `Retry-After: 1`: the session store failed (already counted and logged).
    case storeUnavailable
    /// A body the wire decoder refused, with its code: `413` for ``ErrorCode/messageTooBig``, `422` for
    /// ``ErrorCode/invalidExercise`` and ``ErrorCode/invalidProgramme`` (well-formed JSON that is no usable exercise or
    /// programme; with its pointer), `400` otherwise.
    case invalidInput(WireError)

    /// The status it is answered with.
    var status: HTTPStatus {
        switch self {
        case .notFound, .unknownExercise, .unknownProgramme: .notFound
        case .unauthorized: .unauthorized
        case .forbidden, .originNotAllowed: .forbidden
        case .ambiguousCredentials: .badRequest
        case .hostNotAllowed: .misdirectedRequest
        case .unsupportedMediaType: .unsupportedMediaType
        case .invalidQuery, .invalidCursor: .badRequest
        case .notLive, .sessionLive, .exerciseExists, .builtinExercise, .tooManyExercises, .tooManyVersions,
            .programmeEnded, .tooManyProgrammeVersions, .tooManyAccessCodes:
            .conflict
        case .tooManySessions: .tooManyRequests
        case .serverBusy, .storeUnavailable: .serviceUnavailable
        case .invalidInput(let error):
            switch error.code {
            case .messageTooBig: .contentTooLarge
            case .invalidExercise, .invalidProgramme: .unprocessableContent
            case .programmeEnded: .conflict
            default: .badRequest
            }
        }
    }

    /// The code and message of the body.
    var wireError: WireError {
        switch self {
        case .notFound: WireError(code: .notFound, message: "no such session")
        case .unknownExercise(let id): WireError(code: .unknownExercise, message: "no exercise '\(id)'")
        case .exerciseExists(let id):
            WireError(
                code: .exerciseExists,
                message: "an exercise '\(id)' exists (ids are unique without regard to case); change it with "
                    + "PUT /v1/exercises/\(id)")
        case .builtinExercise(let id):
            WireError(code: .builtinExercise, message: "'\(id)' is built in and cannot be changed or deleted")
        case .tooManyExercises(let limit):
            WireError(
                code: .tooManyExercises, message: "at most \(limit) custom exercises per tenant; delete one first")
        case .tooManyVersions(let limit):
            WireError(
                code: .tooManyVersions,
                message: "at most \(limit) stored exercise versions per tenant, deleted ones included")
        case .unknownProgramme: WireError(code: .notFound, message: "no such programme")
        case .programmeEnded: WireError(code: .programmeEnded, message: "the programme has ended")
        case .tooManyProgrammeVersions(let limit):
            WireError(code: .tooManyVersions, message: "at most \(limit) stored programme versions per tenant")
        case .tooManyAccessCodes(let limit):
            WireError(code: .tooManyAccessCodes, message: "at most \(limit) working codes per subject; revoke one")
        case .unauthorized: WireError(code: .unauthorized, message: "missing or unknown bearer token")
        case .forbidden: WireError(code: .forbidden, message: "this credential may not do this")
        case .ambiguousCredentials(let message): WireError(code: .ambiguousCredentials, message: message)
        case .hostNotAllowed:
            WireError(
                code: .hostNotAllowed,
                message: "the Host is not a name of this server; name it with --allowed-hosts or use tokens")
        case .originNotAllowed:
            WireError(
                code: .originNotAllowed,
                message: "the Origin is neither this server's nor one of --allowed-origins")
        case .unsupportedMediaType(let accepted, let received):
            WireError(code: .unsupportedMediaType, message: "send \(accepted), not \(received)")
        case .invalidQuery(let message): WireError(code: .invalidQuery, message: message)
        case .invalidCursor: WireError(code: .invalidCursor, message: "the cursor is not one this server issued")
        case .notLive: WireError(code: .notLive, message: "the session is not an open HTTP session")
        case .sessionLive: WireError(code: .sessionLive, message: "stop the session before deleting it")
        case .tooManySessions(let limit):
            WireError(
                code: .tooManySessions, message: "at most \(limit) open HTTP sessions per tenant; stop one first")
        case .serverBusy: WireError(code: .serverBusy, message: "too many open HTTP sessions; try again later")
        case .storeUnavailable:
            WireError(code: .storeUnavailable, message: "the session store failed; try again")
        case .invalidInput(let error): error
        }
    }

    func response() -> HTTPResponse {
        var response = REST.error(status, wireError)
        switch self {
        case .unauthorized: response.headers.add(name: "WWW-Authenticate", value: #"Bearer realm="motion-server""#)
        case .storeUnavailable: response.headers.add(name: "Retry-After", value: "1")
        default: break
        }
        return response
    }
}
