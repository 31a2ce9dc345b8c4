/// Why a byte sequence is not a JSON text this module accepts (RFC 8259), and where the problem starts.
///
/// Errors are values: a test can expect one exact error, e.g.
/// `JSONError(offset: 5, reason: .invalidEscape)`.
public struct JSONError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What went wrong.
    public enum Reason: String, Equatable, Sendable {
        /// The input ended inside a value.
        case unexpectedEnd
        /// A byte that cannot start or continue a value here (RFC 8259 §2).
        case unexpectedByte
        /// A literal other than `true`, `false` or `null`, e.g. `NaN` or `Infinity` (RFC 8259 §3).
        case invalidLiteral
        /// A number not matching RFC 8259 §6, e.g. `01`, `1.`, `.5`, `+1`, `1e`.
        case invalidNumber
        /// A backslash escape other than those of RFC 8259 §7.
        case invalidEscape
        /// A `\u` escape naming half of a surrogate pair without its other half (RFC 8259 §7, §8.2).
        case loneSurrogate
        /// A control character (U+0000…U+001F) inside a string without escaping (RFC 8259 §7).
        case unescapedControlCharacter
        /// Bytes that are not well-formed UTF-8 (RFC 8259 §8.1, RFC 3629 §4).
        case invalidUTF8
        /// An object member without `:`, or a member name that is not a string (RFC 8259 §4).
        case expectedColon
        /// A member name was expected (RFC 8259 §4); also rejects a trailing comma in an object.
        case expectedKey
        /// Objects and arrays nest deeper than ``WireLimits/maxDepth``.
        case tooDeep
        /// Bytes after the top-level value (RFC 8259 §2: one value, surrounded by whitespace only).
        case trailingBytes
        /// The input is larger than ``WireLimits/maxMessageBytes``.
        case tooLarge
    }

    /// The byte offset in the input where the problem was found.
    public var offset: Int
    /// What went wrong.
    public var reason: Reason

    /// Creates an error.
    /// - Parameters:
    ///   - offset: The byte offset in the input.
    ///   - reason: What went wrong.
    public init(offset: Int, reason: Reason) {
        self.offset = offset
        self.reason = reason
    }

    /// A short reason with its offset, e.g. `invalid escape at byte 12`.
    public var description: String { "\(reason.text) at byte \(offset)" }
}

extension JSONError.Reason {
    /// The short English text used in error messages.
    var text: String {
        switch self {
        case .unexpectedEnd: "unexpected end of input"
        case .unexpectedByte: "unexpected byte"
        case .invalidLiteral: "invalid literal"
        case .invalidNumber: "invalid number"
        case .invalidEscape: "invalid escape"
        case .loneSurrogate: "lone surrogate in \\u escape"
        case .unescapedControlCharacter: "unescaped control character in string"
        case .invalidUTF8: "invalid UTF-8"
        case .expectedColon: "expected ':'"
        case .expectedKey: "expected a member name"
        case .tooDeep: "nesting too deep"
        case .trailingBytes: "unexpected bytes after the value"
        case .tooLarge: "input too large"
        }
    }
}
