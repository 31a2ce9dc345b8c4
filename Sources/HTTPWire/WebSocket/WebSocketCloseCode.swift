/// The status code carried by a close frame (RFC 6455 §7.4, registry in §11.7).
///
/// Any 16-bit value is representable; ``isValidOnWire`` tells whether a peer may send it.
public struct WebSocketCloseCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The numeric status code.
    public let rawValue: UInt16

    /// Creates a close code from its value.
    ///
    /// - Parameter rawValue: The status code.
    public init(rawValue: UInt16) {
        self.rawValue = rawValue
    }

    /// 1000: normal closure; the purpose of the connection has been fulfilled.
    public static let normal = WebSocketCloseCode(rawValue: 1000)
    /// 1001: the endpoint is going away (server shutdown, page navigation).
    public static let goingAway = WebSocketCloseCode(rawValue: 1001)
    /// 1002: the endpoint is terminating the connection due to a protocol error.
    public static let protocolError = WebSocketCloseCode(rawValue: 1002)
    /// 1003: the endpoint received a type of data it cannot accept (e.g. binary when it only understands text).
    public static let unsupportedData = WebSocketCloseCode(rawValue: 1003)
    /// 1007: a message's data is inconsistent with its type (e.g. non-UTF-8 data in a text message).
    public static let invalidPayload = WebSocketCloseCode(rawValue: 1007)
    /// 1008: a message violates the endpoint's policy (generic code when no better one fits).
    public static let policyViolation = WebSocketCloseCode(rawValue: 1008)
    /// 1009: a message is too big to process.
    public static let messageTooBig = WebSocketCloseCode(rawValue: 1009)
    /// 1010: (client only) the server did not negotiate an extension the client requires.
    public static let mandatoryExtension = WebSocketCloseCode(rawValue: 1010)
    /// 1011: the server met an unexpected condition that prevented it from fulfilling the request.
    public static let internalError = WebSocketCloseCode(rawValue: 1011)
    /// 1012: the service is restarting (registered with IANA).
    public static let serviceRestart = WebSocketCloseCode(rawValue: 1012)
    /// 1013: try again later, e.g. the server is overloaded (registered with IANA).
    public static let tryAgainLater = WebSocketCloseCode(rawValue: 1013)
    /// 1014: a gateway or proxy received an invalid response from upstream (registered with IANA).
    public static let badGateway = WebSocketCloseCode(rawValue: 1014)

    /// Whether the code may appear in a close frame on the wire (RFC 6455 §7.4.1, §7.4.2).
    ///
    /// Valid: 1000–1003, 1007–1011, the IANA-registered 1012–1014, and 3000–4999 (libraries, frameworks and
    /// applications). Invalid: below 1000 (unused), 1004 (reserved), 1005, 1006 and 1015 (reserved for reporting
    /// only, "MUST NOT be set as a status code in a Close control frame"), the unassigned 1016–2999, and 5000+.
    public var isValidOnWire: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: return true
        default: return false
        }
    }

    /// The decimal code, e.g. `"1000"`.
    public var description: String { String(rawValue) }
}
