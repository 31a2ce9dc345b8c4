/// Bearer tokens and the tenant each belongs to (PROTOCOL.md §6).
///
/// The file has one `token tenant` pair per line; blank lines and lines starting with `#` are ignored.
public struct TokenTable: Sendable, Equatable {
    private var tenants: [String: String]

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
    /// - Throws: ``InvalidFile`` for a malformed line, a duplicate token, or a token shorter than 16 characters.
    public init(parsing text: String) throws(InvalidFile) {
        tenants = [:]
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters()
            if line.isEmpty || line.hasPrefix("#") { continue }
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" })
            guard fields.count == 2 else { throw InvalidFile(line: number + 1, reason: #"expected "token tenant""#) }
            let token = String(fields[0])
            guard token.count >= 16, token.allSatisfy({ $0.isASCII && !$0.isWhitespace }) else {
                throw InvalidFile(line: number + 1, reason: "tokens must be at least 16 printable ASCII characters")
            }
            guard tenants[token] == nil else { throw InvalidFile(line: number + 1, reason: "duplicate token") }
            tenants[token] = String(fields[1])
        }
    }

    /// The tenant of `token`, or nil when it is unknown.
    /// - Parameter token: The presented token.
    public func tenant(for token: String) -> String? { tenants[token] }

    /// The number of tokens.
    public var count: Int { tenants.count }
}

extension Substring {
    fileprivate func trimmingCharacters() -> String {
        var slice = self
        while let first = slice.first, first.isWhitespace { slice = slice.dropFirst() }
        while let last = slice.last, last.isWhitespace { slice = slice.dropLast() }
        return String(slice)
    }
}
