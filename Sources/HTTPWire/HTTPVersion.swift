/// An HTTP protocol version (RFC 9110 §2.5).
public struct HTTPVersion: Sendable, Hashable, CustomStringConvertible {
    /// The major version digit.
    public var major: Int
    /// The minor version digit.
    public var minor: Int

    /// Creates a version.
    ///
    /// - Parameters:
    ///   - major: The major version digit.
    ///   - minor: The minor version digit.
    public init(major: Int, minor: Int) {
        self.major = major
        self.minor = minor
    }

    /// `HTTP/1.0`.
    public static let http10 = HTTPVersion(major: 1, minor: 0)
    /// `HTTP/1.1`.
    public static let http11 = HTTPVersion(major: 1, minor: 1)

    /// The wire form, e.g. `"HTTP/1.1"`.
    public var description: String { "HTTP/\(major).\(minor)" }

    /// Whether HTTP/1.1 semantics apply (any `HTTP/1.x` with `x >= 1`, RFC 9110 §6.2).
    var hasHTTP11Semantics: Bool { major == 1 && minor >= 1 }

    /// Parses `HTTP-version = HTTP-name "/" DIGIT "." DIGIT` (RFC 9112 §2.3, case-sensitive).
    ///
    /// - Parameter bytes: The version bytes from the request line.
    /// - Returns: The version.
    /// - Throws: `.invalidVersion` when malformed, `.unsupportedVersion` (505) for anything but `HTTP/1.x`.
    static func parse(_ bytes: ArraySlice<UInt8>) throws(HTTPParseError) -> HTTPVersion {
        let start = bytes.startIndex
        guard bytes.count == 8, bytes[start] == 0x48, bytes[start + 1] == 0x54, bytes[start + 2] == 0x54,
            bytes[start + 3] == 0x50, bytes[start + 4] == 0x2F  // "HTTP/"
        else { throw .invalidVersion }
        let majorByte = bytes[start + 5]
        let dot = bytes[start + 6]
        let minorByte = bytes[start + 7]
        guard (0x30...0x39).contains(majorByte), dot == 0x2E, (0x30...0x39).contains(minorByte) else {
            throw .invalidVersion
        }
        let version = HTTPVersion(major: Int(majorByte - 0x30), minor: Int(minorByte - 0x30))
        // HTTP/0.9 and HTTP/2+ cannot be spoken over this framing; HTTP/1.x (x > 1) is served as 1.1.
        guard version.major == 1 else { throw .unsupportedVersion }
        return version
    }
}
