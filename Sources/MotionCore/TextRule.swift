/// What a short text a client names something with may hold: a session's `subject`, an exercise's `name`.
///
/// Such a text is stored, listed, logged, sent back in URLs and shown to people. So its length is bounded in UTF-8
/// bytes and in Unicode scalars, never in `Character`s (one grapheme cluster, `"a"` and half a million combining
/// accents, can be a megabyte), and it may not hold what would break a line or disguise the text: C0 controls
/// U+0000–U+001F, DEL U+007F, C1 controls U+0080–U+009F, the bidirectional controls (Unicode's `Bidi_Control`: the
/// Arabic letter mark U+061C, LRM and RLM U+200E–U+200F, the embeddings and overrides U+202A–U+202E, the isolates
/// U+2066–U+2069) and the line and paragraph separators U+2028–U+2029. Everything else is allowed, combining marks
/// and emoji included.
///
/// ```swift
/// let rule = TextRule(maxBytes: 256, maxScalars: 128)
/// rule.violation(in: "patient-17")              // nil
/// rule.violation(in: "patient\u{202E}71-tneitap")  // .forbidden(U+202E)
/// ```
public struct TextRule: Sendable, Hashable {
    /// Why a text breaks the rule.
    public enum Violation: Sendable, Hashable {
        /// The text is empty and the rule wants one.
        case empty
        /// The text has more bytes or scalars than the rule allows.
        case tooLong
        /// The text holds this refused scalar (the first one).
        case forbidden(Unicode.Scalar)
    }

    /// The most UTF-8 bytes.
    public var maxBytes: Int
    /// The most Unicode scalars.
    public var maxScalars: Int
    /// Whether the empty text is allowed.
    public var allowsEmpty: Bool

    /// Creates a rule.
    /// - Parameters:
    ///   - maxBytes: The most UTF-8 bytes.
    ///   - maxScalars: The most Unicode scalars.
    ///   - allowsEmpty: Whether the empty text is allowed.
    public init(maxBytes: Int, maxScalars: Int, allowsEmpty: Bool = true) {
        self.maxBytes = maxBytes
        self.maxScalars = maxScalars
        self.allowsEmpty = allowsEmpty
    }

    /// Whether `scalar` may appear in such a text: every scalar but the controls, bidirectional controls and
    /// separators the type's summary lists.
    /// - Parameter scalar: One Unicode scalar of the text.
    /// - Returns: False for a refused scalar.
    public static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E...0x200F, 0x2028...0x202E, 0x2066...0x2069: false
        default: true
        }
    }

    /// Why `text` breaks the rule, or nil when it keeps it.
    /// - Parameter text: The text.
    /// - Returns: The first violation: length before content, so a huge text is refused without being scanned.
    /// - Complexity: O(*n*) in the text's UTF-8 length, at most ``maxBytes`` scalars examined.
    public func violation(in text: String) -> Violation? {
        let bytes = text.utf8.count
        if bytes == 0 { return allowsEmpty ? nil : .empty }
        guard bytes <= maxBytes, text.unicodeScalars.count <= maxScalars else { return .tooLong }
        return text.unicodeScalars.first { !Self.isAllowed($0) }.map(Violation.forbidden)
    }

    /// What a client is told when `field` breaks the rule with `violation`, e.g. `subject must be at most 128
    /// characters and 256 bytes of UTF-8`.
    /// - Parameters:
    ///   - violation: The violation.
    ///   - field: The field's name as the client sent it.
    /// - Returns: One sentence in English.
    public func message(for violation: Violation, field: String) -> String {
        switch violation {
        case .empty:
            return "\(field) must not be empty"
        case .tooLong:
            // A byte bound no text within the scalar bound can reach goes unsaid.
            let bytes = maxBytes < 4 * maxScalars ? " and \(maxBytes) bytes of UTF-8" : ""
            return "\(field) must be at most \(maxScalars) characters\(bytes)"
        case .forbidden:
            return "\(field) must not contain control, bidirectional formatting or line separator characters"
        }
    }
}
