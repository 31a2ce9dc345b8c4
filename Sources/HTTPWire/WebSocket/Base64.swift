/// Base64 with the standard alphabet and padding (RFC 4648 §4), as used by `Sec-WebSocket-Key` and
/// `Sec-WebSocket-Accept` (RFC 6455 §4.1, §4.2.2).
///
/// Decoding is strict: the length must be a multiple of four, `=` may only pad the final quantum (one or two of
/// them), no whitespace or other characters are allowed, and the unused bits before padding must be zero
/// (RFC 4648 §3.5), so every byte sequence has exactly one accepted encoding.
public enum Base64 {
    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)
    private static let padding: UInt8 = 0x3D

    /// Encodes bytes.
    ///
    /// - Parameter bytes: The data.
    /// - Returns: The padded Base64 text.
    public static func encode(_ bytes: some Collection<UInt8>) -> String {
        var output: [UInt8] = []
        output.reserveCapacity((bytes.count + 2) / 3 * 4)
        var iterator = bytes.makeIterator()
        while let first = iterator.next() {
            let second = iterator.next()
            let third = second == nil ? nil : iterator.next()
            let group = UInt32(first) << 16 | UInt32(second ?? 0) << 8 | UInt32(third ?? 0)
            output.append(alphabet[Int(group >> 18 & 0x3F)])
            output.append(alphabet[Int(group >> 12 & 0x3F)])
            output.append(second == nil ? padding : alphabet[Int(group >> 6 & 0x3F)])
            output.append(third == nil ? padding : alphabet[Int(group & 0x3F)])
            if third == nil { break }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Decodes padded Base64 strictly.
    ///
    /// - Parameter text: The encoded text.
    /// - Returns: The data, or `nil` when `text` is not canonical padded Base64.
    public static func decode(_ text: String) -> [UInt8]? {
        let input = Array(text.utf8)
        guard input.count % 4 == 0 else { return nil }
        var output: [UInt8] = []
        output.reserveCapacity(input.count / 4 * 3)
        for quantumStart in stride(from: 0, to: input.count, by: 4) {
            let isLast = quantumStart + 4 == input.count
            let quantum = input[quantumStart..<(quantumStart + 4)]
            let padCount = quantum.reversed().prefix { $0 == padding }.count
            guard padCount <= 2, padCount == 0 || isLast else { return nil }
            var group: UInt32 = 0
            for byte in quantum.dropLast(padCount) {
                guard let value = sextet(byte) else { return nil }
                group = group << 6 | UInt32(value)
            }
            group <<= UInt32(6 * padCount)
            output.append(UInt8(truncatingIfNeeded: group >> 16))
            if padCount < 2 { output.append(UInt8(truncatingIfNeeded: group >> 8)) }
            if padCount < 1 { output.append(UInt8(truncatingIfNeeded: group)) }
            // RFC 4648 §3.5: the bits dropped by padding must be zero.
            let droppedMask: UInt32 = padCount == 2 ? 0xFFFF : (padCount == 1 ? 0xFF : 0)
            guard group & droppedMask == 0 else { return nil }
        }
        return output
    }

    private static func sextet(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x41...0x5A: return byte - 0x41
        case 0x61...0x7A: return byte - 0x61 + 26
        case 0x30...0x39: return byte - 0x30 + 52
        case 0x2B: return 62
        case 0x2F: return 63
        default: return nil
        }
    }
}
