/// A parsed request-target (RFC 9112 §3.2).
///
/// Accepted forms:
/// - origin-form (`/path?query`), the normal case;
/// - absolute-form (`http://host/path?query`, RFC 9112 §3.2.2): the authority becomes the request's host and the
///   path and query are taken from the URI (an empty path becomes `/`); only `http` and `https` schemes, no userinfo;
/// - asterisk-form (`*`), only for `OPTIONS` (RFC 9112 §3.2.4).
///
/// authority-form (CONNECT) is rejected before a target is parsed. Fragments (`#`) and characters outside RFC 3986
/// are rejected. The path is percent-decoded but not normalised: dot-segments are left to the router.
public struct HTTPRequestTarget: Sendable, Equatable {
    /// The syntactic form of a request-target.
    public enum Form: Sendable, Equatable {
        /// `absolute-path [ "?" query ]`.
        case origin
        /// `absolute-URI` with an `http`/`https` scheme.
        case absolute
        /// `*`.
        case asterisk
    }

    /// The form the target was written in.
    public let form: Form
    /// The target exactly as received.
    public let raw: String
    /// The authority of an absolute-form target, `nil` otherwise.
    public let authority: String?
    /// The path before percent-decoding (`/` for an absolute-form target with an empty path, `*` for asterisk-form).
    public let rawPath: String
    /// The percent-decoded path.
    public let path: String
    /// The query after `?`, before decoding; `nil` when there is no `?`.
    public let rawQuery: String?
    /// The decoded query pairs, in order; empty pairs (`a&&b`) are skipped.
    public let queryItems: [HTTPQueryItem]

    /// Parses a request-target string.
    ///
    /// - Parameters:
    ///   - raw: The request-target, e.g. `"/a%20b?x=1"`.
    ///   - method: The request method; asterisk-form is only valid for `OPTIONS`.
    /// - Throws: `HTTPParseError.invalidTarget` or `.invalidPercentEncoding`.
    public init(parsing raw: String, method: HTTPMethod = .get) throws(HTTPParseError) {
        try self.init(bytes: Array(raw.utf8)[...], method: method)
    }

    /// Parses request-target bytes from a request line.
    init(bytes: ArraySlice<UInt8>, method: HTTPMethod) throws(HTTPParseError) {
        guard let first = bytes.first else { throw .invalidTarget }
        raw = String(decoding: bytes, as: UTF8.self)
        if first == ASCII.slash {
            form = .origin
            authority = nil
            let parts = try Self.splitPathAndQuery(bytes)
            rawPath = String(decoding: parts.path, as: UTF8.self)
            path = try PercentDecoding.decode(parts.path, plusAsSpace: false)
            (rawQuery, queryItems) = try Self.parseQuery(parts.query)
        } else if bytes.count == 1 && first == ASCII.asterisk {
            // RFC 9112 §3.2.4: asterisk-form is only used with OPTIONS.
            guard method == .options else { throw .invalidTarget }
            form = .asterisk
            authority = nil
            rawPath = "*"
            path = "*"
            rawQuery = nil
            queryItems = []
        } else if let afterScheme = Self.indexAfterHTTPScheme(bytes) {
            // RFC 9112 §3.2.2: absolute-form; the server uses the URI's authority instead of Host.
            form = .absolute
            var authorityEnd = afterScheme
            while authorityEnd < bytes.endIndex, bytes[authorityEnd] != ASCII.slash,
                bytes[authorityEnd] != ASCII.question
            {
                authorityEnd += 1
            }
            let authorityBytes = bytes[afterScheme..<authorityEnd]
            // RFC 9110 §4.2.1: an http URI with an empty host is invalid; userinfo (`@`) is not accepted.
            guard !authorityBytes.isEmpty, authorityBytes.allSatisfy(ASCII.isHostChar) else { throw .invalidTarget }
            authority = String(decoding: authorityBytes, as: UTF8.self)
            let parts = try Self.splitPathAndQuery(bytes[authorityEnd...])
            if parts.path.isEmpty {
                rawPath = "/"
                path = "/"
            } else {
                rawPath = String(decoding: parts.path, as: UTF8.self)
                path = try PercentDecoding.decode(parts.path, plusAsSpace: false)
            }
            (rawQuery, queryItems) = try Self.parseQuery(parts.query)
        } else {
            throw .invalidTarget
        }
    }

    /// Splits `path [ "?" query ]` and validates the characters of both parts (RFC 3986 §3.3–3.4).
    private static func splitPathAndQuery(
        _ bytes: ArraySlice<UInt8>
    ) throws(HTTPParseError) -> (path: ArraySlice<UInt8>, query: ArraySlice<UInt8>?) {
        let questionIndex = bytes.firstIndex(of: ASCII.question)
        let path = bytes[bytes.startIndex..<(questionIndex ?? bytes.endIndex)]
        guard path.allSatisfy(ASCII.isPathChar) else { throw .invalidTarget }
        guard let questionIndex else { return (path, nil) }
        let query = bytes[(questionIndex + 1)...]
        guard query.allSatisfy(ASCII.isQueryChar) else { throw .invalidTarget }
        return (path, query)
    }

    /// Parses `name=value&...` pairs with percent-decoding and `+` as space.
    private static func parseQuery(
        _ query: ArraySlice<UInt8>?
    ) throws(HTTPParseError) -> (raw: String?, items: [HTTPQueryItem]) {
        guard let query else { return (nil, []) }
        var items: [HTTPQueryItem] = []
        for pair in query.split(separator: ASCII.ampersand) {
            if let equalsIndex = pair.firstIndex(of: ASCII.equals) {
                let name = try PercentDecoding.decode(pair[pair.startIndex..<equalsIndex], plusAsSpace: true)
                let value = try PercentDecoding.decode(pair[(equalsIndex + 1)...], plusAsSpace: true)
                items.append(HTTPQueryItem(name: name, value: value))
            } else {
                items.append(HTTPQueryItem(name: try PercentDecoding.decode(pair, plusAsSpace: true), value: ""))
            }
        }
        return (String(decoding: query, as: UTF8.self), items)
    }

    /// The index just after a case-insensitive `http://` or `https://` prefix, or `nil`.
    private static func indexAfterHTTPScheme(_ bytes: ArraySlice<UInt8>) -> Int? {
        for scheme in ["http://", "https://"] {
            let schemeBytes = scheme.utf8
            if bytes.count >= schemeBytes.count,
                ASCII.equalsIgnoringCase(bytes.prefix(schemeBytes.count), schemeBytes)
            {
                return bytes.startIndex + schemeBytes.count
            }
        }
        return nil
    }
}
