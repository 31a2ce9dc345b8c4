/// Bearer tokens and the tenant each belongs to (docs/protocol.md §6).
///
/// The file has one `token tenant [operator]` line per token (lines end with LF or CRLF); blank lines and lines
/// starting with `#` are ignored.
/// A token marked `operator` may also read the operations endpoints that show every tenant's figures (`/metrics`).
public struct TokenTable: Sendable, Equatable {
    private var grants: [String: Grant]

    /// What a token lets its holder do.
    public struct Grant: Sendable, Equatable {
        /// The tenant whose sessions the holder sees (never empty).
        public var tenant: String
        /// Whether the holder may read the server-wide operations endpoints.
        public var isOperator: Bool

        /// Creates a grant.
        /// - Parameters:
        ///   - tenant: The tenant.
        ///   - isOperator: Whether the holder may read server-wide figures.
        public init(tenant: String, isOperator: Bool = false) {
            self.tenant = tenant
            self.isOperator = isOperator
        }
    }

    /// Why a token file was refused.
    public struct InvalidFile: Error, Equatable, Sendable, CustomStringConvertible {
        /// The 1-based line number.
        public var line: Int
        /// What was wrong.
        public var reason: String
        /// `tokens line 3: expected "token tenant"`.
        public var description: String { "tokens line \(line): \(reason)" }
    }

    /// Parses a token file's text.
    /// - Parameter text: The file's contents.
    /// - Throws: ``InvalidFile`` for a malformed line, a duplicate token, a token shorter than 16 characters, or a
    ///   third field other than `operator`.
    public init(parsing text: String) throws(InvalidFile) {
        grants = [:]
        // By Character, "\r\n" is one newline, not "\n": splitting on "\n" alone would run CRLF lines together.
        for (number, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: \.isNewline).enumerated() {
            let line = raw.trimmingCharacters()
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count == 2 || (fields.count == 3 && fields[2] == "operator") else {
                throw InvalidFile(line: number + 1, reason: #"expected "token tenant" or "token tenant operator""#)
            }
            let token = String(fields[0])
            guard token.utf8.count >= 16, token.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                throw InvalidFile(line: number + 1, reason: "tokens must be at least 16 printable ASCII characters")
            }
            guard grants[token] == nil else { throw InvalidFile(line: number + 1, reason: "duplicate token") }
            grants[token] = Grant(tenant: String(fields[1]), isOperator: fields.count == 3)
        }
    }

    /// The tenant of `token`, or nil when it is unknown.
    /// - Parameter token: The presented token.
    public func tenant(for token: String) -> String? { grants[token]?.tenant }

    /// What `token` grants, or nil when it is unknown.
    /// - Parameter token: The presented token.
    public func grant(for token: String) -> Grant? { grants[token] }

    /// The number of tokens.
    public var count: Int { grants.count }
}

extension Substring {
    fileprivate func trimmingCharacters() -> String {
        var slice = self
        while let first = slice.first, first.isWhitespace { slice = slice.dropFirst() }
        while let last = slice.last, last.isWhitespace { slice = slice.dropLast() }
        return String(slice)
    }
}
