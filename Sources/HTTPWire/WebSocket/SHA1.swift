/// SHA-1 (FIPS 180-4 §6.1, RFC 3174), used only for the WebSocket opening handshake (RFC 6455 §4.2.2).
///
/// SHA-1 is broken for collision resistance; the handshake uses it merely to prove that the server understood the
/// WebSocket request, not for security. Do not use it for anything else.
public enum SHA1 {
    /// The digest size in bytes.
    public static let digestSize = 20

    private static let initialState: (UInt32, UInt32, UInt32, UInt32, UInt32) = (
        0x6745_2301, 0xEFCD_AB89, 0x98BA_DCFE, 0x1032_5476, 0xC3D2_E1F0
    )

    /// Computes the SHA-1 digest of `bytes`.
    ///
    /// - Parameter bytes: The message.
    /// - Returns: The 20-byte digest.
    public static func hash(_ bytes: [UInt8]) -> [UInt8] {
        var state = initialState
        // FIPS 180-4 §5.1.1: append 0x80, zeros up to 56 mod 64, then the bit length as a 64-bit big-endian value.
        var message = bytes
        message.append(0x80)
        while message.count % 64 != 56 {
            message.append(0)
        }
        let bitLength = UInt64(bytes.count) &* 8
        for shift in stride(from: 56, through: 0, by: -8) {
            message.append(UInt8(truncatingIfNeeded: bitLength >> UInt64(shift)))
        }
        var schedule = [UInt32](repeating: 0, count: 80)
        for blockStart in stride(from: 0, to: message.count, by: 64) {
            process(message[blockStart..<(blockStart + 64)], schedule: &schedule, state: &state)
        }
        var digest: [UInt8] = []
        digest.reserveCapacity(digestSize)
        for word in [state.0, state.1, state.2, state.3, state.4] {
            digest.append(UInt8(truncatingIfNeeded: word >> 24))
            digest.append(UInt8(truncatingIfNeeded: word >> 16))
            digest.append(UInt8(truncatingIfNeeded: word >> 8))
            digest.append(UInt8(truncatingIfNeeded: word))
        }
        return digest
    }

    /// Processes one 64-byte block (FIPS 180-4 §6.1.2).
    private static func process(
        _ block: ArraySlice<UInt8>, schedule w: inout [UInt32], state: inout (UInt32, UInt32, UInt32, UInt32, UInt32)
    ) {
        let base = block.startIndex
        for t in 0..<16 {
            let offset = base + t * 4
            w[t] =
                UInt32(block[offset]) << 24 | UInt32(block[offset + 1]) << 16 | UInt32(block[offset + 2]) << 8
                | UInt32(block[offset + 3])
        }
        for t in 16..<80 {
            w[t] = rotateLeft(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], by: 1)
        }
        var (a, b, c, d, e) = state
        for t in 0..<80 {
            let f: UInt32
            let k: UInt32
            switch t {
            case 0..<20:
                f = (b & c) | (~b & d)
                k = 0x5A82_7999
            case 20..<40:
                f = b ^ c ^ d
                k = 0x6ED9_EBA1
            case 40..<60:
                f = (b & c) | (b & d) | (c & d)
                k = 0x8F1B_BCDC
            default:
                f = b ^ c ^ d
                k = 0xCA62_C1D6
            }
            let temp = rotateLeft(a, by: 5) &+ f &+ e &+ k &+ w[t]
            e = d
            d = c
            c = rotateLeft(b, by: 30)
            b = a
            a = temp
        }
        state = (state.0 &+ a, state.1 &+ b, state.2 &+ c, state.3 &+ d, state.4 &+ e)
    }

    private static func rotateLeft(_ value: UInt32, by count: UInt32) -> UInt32 {
        (value << count) | (value >> (32 - count))
    }
}
