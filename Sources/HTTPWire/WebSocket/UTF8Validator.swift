/// An incremental UTF-8 validator: a byte-wise DFA that rejects a sequence as soon as it cannot be completed.
///
/// Implements the well-formed byte sequences of Unicode §3.9, Table 3-7 (also RFC 3629 §4), as required for text
/// messages and close reasons (RFC 6455 §5.6, §8.1). Rejected: overlong forms (`C0`, `C1`, `E0 80`–`E0 9F`,
/// `F0 80`–`F0 8F`), surrogates (`ED A0`–`ED BF`), code points above U+10FFFF (`F4 90`+, `F5`–`FF`), and
/// continuation bytes where none is expected or missing where one is. A message split across fragments is fed
/// fragment by fragment; a character may span fragments.
public struct UTF8Validator: Sendable {
    /// DFA states; the names give the bytes the next (continuation) byte must be in.
    private enum State: UInt8, Sendable {
        /// Between characters.
        case accept
        /// One more `80`–`BF` byte completes the character.
        case tail1
        /// Two more `80`–`BF` bytes.
        case tail2
        /// Three more `80`–`BF` bytes.
        case tail3
        /// After `E0`: `A0`–`BF`, then one tail byte (excludes overlongs).
        case afterE0
        /// After `ED`: `80`–`9F`, then one tail byte (excludes surrogates U+D800–DFFF).
        case afterED
        /// After `F0`: `90`–`BF`, then two tail bytes (excludes overlongs).
        case afterF0
        /// After `F4`: `80`–`8F`, then two tail bytes (excludes code points above U+10FFFF).
        case afterF4
        /// An invalid sequence was seen; sticky until ``UTF8Validator/reset()``.
        case reject
    }

    private var state: State = .accept

    /// Creates a validator positioned at a character boundary.
    public init() {}

    /// Whether all bytes so far form complete characters: a text message is only valid if this holds at its end.
    public var isAtCharacterBoundary: Bool { state == .accept }

    /// Whether an invalid sequence has been seen.
    public var hasFailed: Bool { state == .reject }

    /// Feeds the next bytes.
    ///
    /// - Parameter bytes: The next bytes of the text.
    /// - Returns: `false` once the input is certainly invalid (this call or an earlier one); `true` while it is
    ///   valid or could still become valid.
    public mutating func validate(_ bytes: some Collection<UInt8>) -> Bool {
        var current = state
        for byte in bytes {
            if current == .accept && byte < 0x80 { continue }
            current = Self.transition(current, byte)
            if current == .reject { break }
        }
        state = current
        return current != .reject
    }

    /// Feeds the next bytes from memory, skipping runs of ASCII eight bytes at a time.
    ///
    /// - Parameter bytes: The next bytes of the text.
    /// - Returns: `false` once the input is certainly invalid; `true` while it is valid or could still become valid.
    public mutating func validate(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var current = state
        var index = 0
        let count = bytes.count
        while index < count {
            if current == .accept {
                while index + 8 <= count,
                    bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0
                {
                    index += 8
                }
                guard index < count else { break }
            }
            let byte = bytes[index]
            index += 1
            if current == .accept && byte < 0x80 { continue }
            current = Self.transition(current, byte)
            if current == .reject { break }
        }
        state = current
        return current != .reject
    }

    /// Returns to the initial state, e.g. for the next message.
    public mutating func reset() {
        state = .accept
    }

    /// Validates a complete byte sequence.
    ///
    /// - Parameter bytes: The bytes.
    /// - Returns: `true` when `bytes` is well-formed UTF-8 and ends on a character boundary.
    public static func isValid(_ bytes: some Collection<UInt8>) -> Bool {
        var validator = UTF8Validator()
        return validator.validate(bytes) && validator.isAtCharacterBoundary
    }

    private static func transition(_ state: State, _ byte: UInt8) -> State {
        let isTail = byte & 0xC0 == 0x80
        switch state {
        case .accept:
            switch byte {
            case 0x00...0x7F: return .accept
            case 0xC2...0xDF: return .tail1
            case 0xE0: return .afterE0
            case 0xE1...0xEC, 0xEE...0xEF: return .tail2
            case 0xED: return .afterED
            case 0xF0: return .afterF0
            case 0xF1...0xF3: return .tail3
            case 0xF4: return .afterF4
            default: return .reject  // 80–BF (stray continuation), C0–C1 (overlong), F5–FF (above U+10FFFF)
            }
        case .tail1: return isTail ? .accept : .reject
        case .tail2: return isTail ? .tail1 : .reject
        case .tail3: return isTail ? .tail2 : .reject
        case .afterE0: return (0xA0...0xBF).contains(byte) ? .tail1 : .reject
        case .afterED: return (0x80...0x9F).contains(byte) ? .tail1 : .reject
        case .afterF0: return (0x90...0xBF).contains(byte) ? .tail2 : .reject
        case .afterF4: return (0x80...0x8F).contains(byte) ? .tail2 : .reject
        case .reject: return .reject
        }
    }
}
