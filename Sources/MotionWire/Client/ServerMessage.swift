public import MotionCore

/// A message of the server on `/v1/stream` (docs/protocol.md §3), as a client reads it back: the inverse of
/// ``WireEncoder``'s live messages.
///
/// ```swift
/// switch try ServerMessage(decoding: bytes) {
/// case .event(let t, let event): print(t, event)
/// case .snapshot(let snapshot): draw(snapshot)
/// default: break
/// }
/// ```
public enum ServerMessage: Sendable, Equatable {
    /// `started`: the session's id and its resume token (docs/protocol.md §3.1; nil from a server without resuming).
    case started(session: String, resume: String?)
    /// `resumed`: the t of the last pose the server holds (nil: none), after which kept frames are re-sent, and of
    /// the last motion sample it holds (nil: none), after which kept samples are.
    case resumed(session: String, t: Double?, motionT: Double? = nil)
    /// `checkpoint`: every pose up to `t` is durable on the server.
    case checkpoint(t: Double)
    /// `event`: one engine event, with the t of the pose that caused it.
    case event(t: Double, MotionEvent)
    /// `snapshot`: the session's state after a pose.
    case snapshot(MotionSnapshot)
    /// `summary`: what was stored, after `stop`. The wire carries no value series: ``SessionSummary/series`` is
    /// empty, and ``SessionSummary/firstTimestamp`` is 0 with ``SessionSummary/lastTimestamp`` the duration. A
    /// server without holds (before docs/protocol.md §5.4) sends none: ``SessionSummary/holds`` is empty.
    case summary(id: String, SessionSummary)
    /// `error`: a refused message (the session goes on unless the server closes).
    case error(code: ErrorCode, message: String)
    /// A message of a type this client does not know (a newer server): to be ignored.
    case other(type: String)
}

/// Why a server message could not be read.
public enum ServerMessageError: Error, Equatable, Sendable {
    /// Not a JSON object (garbage, a truncated text).
    case notJSON
    /// A JSON object without a string `type`.
    case missingType
    /// A known message with a member missing or of the wrong kind, or a value out of its range (a negative time
    /// held).
    case invalid(type: String, member: String)
    /// A known message with more elements in an array member than the decoder's ``WireLimits`` allow (a summary's
    /// `holds` past ``WireLimits/maxHoldsPerSummary``).
    case tooMany(type: String, member: String, limit: Int)
}

extension ServerMessage {
    /// Reads one text message of the server.
    /// - Parameters:
    ///   - bytes: The message's UTF-8 bytes.
    ///   - limits: Size, depth and count limits (``WireLimits/maxMessageBytes``, ``WireLimits/maxDepth``,
    ///     ``WireLimits/maxHoldsPerSummary``).
    /// - Throws: ``ServerMessageError`` when it is not a message a server sends.
    public init(decoding bytes: [UInt8], limits: WireLimits = WireLimits()) throws(ServerMessageError) {
        guard case .object(let object)? = try? JSONValue.parse(bytes, limits: limits) else { throw .notJSON }
        guard case .string(let type)? = object["type"] else { throw .missingType }
        let reader = MemberReader(type: type, object: object, limits: limits)
        switch type {
        case "started":
            self = .started(session: try reader.string("session"), resume: try reader.optionalString("resume"))
        case "resumed":
            self = .resumed(
                session: try reader.string("session"), t: try reader.optionalNumber("t"),
                motionT: try reader.optionalNumber("motionT"))
        case "checkpoint":
            self = .checkpoint(t: try reader.number("t"))
        case "event":
            self = .event(t: try reader.number("t"), try reader.event())
        case "snapshot":
            self = .snapshot(try reader.snapshot())
        case "summary":
            self = .summary(id: try reader.string("id"), try reader.summary())
        case "error":
            self = .error(
                code: ErrorCode(rawValue: try reader.string("code")),
                message: try reader.optionalString("message") ?? "")
        default:
            self = .other(type: type)
        }
    }
}
