/// The `resume` message (docs/protocol.md §3.1): the first message of a connection that continues a session whose
/// connection dropped.
///
/// ```json
/// {"type":"resume","session":"<id>","token":"<token>"}
/// ```
///
/// The decoder checks shapes and lengths; whether the session exists, is the tenant's, takes this token and is
/// still resumable are the server's checks (`unknownSession`, `invalidResume`, `resumeExpired`).
public struct ResumeRequest: Sendable, Hashable {
    /// The longest `session` and `token`, in bytes.
    public static let maxFieldBytes = 128

    /// The session's id, as `started` gave it.
    public var session: String
    /// The secret `started` gave with it.
    public var token: String

    /// Creates a request.
    /// - Parameters:
    ///   - session: The session's id.
    ///   - token: Its resume token.
    public init(session: String, token: String) {
        self.session = session
        self.token = token
    }

    /// The members of a `resume` object; each may appear once.
    private enum Member: Int, CaseIterable {
        case type, session, token

        init?(_ key: JSONReader.StringToken, in reader: JSONReader) {
            guard let member = Self.allCases.first(where: { reader.key(key, is: $0.name) }) else { return nil }
            self = member
        }

        var name: StaticString {
            switch self {
            case .type: "type"
            case .session: "session"
            case .token: "token"
            }
        }
    }

    /// Reads the object at the reader's position: `session` and `token` required, non-empty printable ASCII of
    /// at most ``maxFieldBytes``; other members are skipped; a known one given twice is refused.
    static func read(_ reader: inout JSONReader) throws -> ResumeRequest {
        var session: String?
        var token: String?
        var seen = KnownMembers()
        try reader.beginObject()
        var first = true
        while let key = try reader.nextKey(&first) {
            guard let member = Member(key, in: reader) else {
                try reader.skipValue()
                continue
            }
            guard seen.insert(member.rawValue) else {
                throw WireError.duplicateMember("\(member.name)", code: .invalidMessage)
            }
            switch member {
            case .type: try reader.skipValue()
            case .session: session = try readField(&reader, "session")
            case .token: token = try readField(&reader, "token")
            }
        }
        guard let session else { throw WireError.invalidMessage("resume needs session") }
        guard let token else { throw WireError.invalidMessage("resume needs token") }
        return ResumeRequest(session: session, token: token)
    }

    private static func readField(_ reader: inout JSONReader, _ name: String) throws -> String {
        guard try reader.peekKind() == .string else { throw WireError.invalidMessage("\(name) must be a string") }
        let token = try reader.readStringToken()
        let invalid = WireError.invalidMessage(
            "\(name) must be 1…\(maxFieldBytes) printable ASCII characters")
        guard !token.hasEscapes, token.end > token.start, token.end - token.start <= maxFieldBytes else {
            throw invalid
        }
        let text = reader.string(token)
        guard text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else { throw invalid }
        return text
    }
}
