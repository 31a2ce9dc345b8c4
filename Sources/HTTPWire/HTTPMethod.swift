/// An HTTP request method (RFC 9110 §9).
///
/// Methods are case-sensitive tokens (RFC 9110 §9.1); any token is representable, the common ones are provided
/// as static members.
public struct HTTPMethod: Sendable, Hashable, CustomStringConvertible {
    /// The method token exactly as it appears on the wire, e.g. `"GET"`.
    public let rawValue: String

    /// Creates a method from its token.
    ///
    /// - Parameter rawValue: The case-sensitive method token. It is not validated here; the parser only produces
    ///   valid tokens.
    public init(_ rawValue: String) {
        self.rawValue = rawValue
    }

    /// The method token.
    public var description: String { rawValue }

    /// `GET` (RFC 9110 §9.3.1).
    public static let get = HTTPMethod("GET")
    /// `HEAD` (RFC 9110 §9.3.2).
    public static let head = HTTPMethod("HEAD")
    /// `POST` (RFC 9110 §9.3.3).
    public static let post = HTTPMethod("POST")
    /// `PUT` (RFC 9110 §9.3.4).
    public static let put = HTTPMethod("PUT")
    /// `DELETE` (RFC 9110 §9.3.5).
    public static let delete = HTTPMethod("DELETE")
    /// `CONNECT` (RFC 9110 §9.3.6). Rejected by this parser.
    public static let connect = HTTPMethod("CONNECT")
    /// `OPTIONS` (RFC 9110 §9.3.7).
    public static let options = HTTPMethod("OPTIONS")
    /// `TRACE` (RFC 9110 §9.3.8).
    public static let trace = HTTPMethod("TRACE")
    /// `PATCH` (RFC 5789).
    public static let patch = HTTPMethod("PATCH")
}
