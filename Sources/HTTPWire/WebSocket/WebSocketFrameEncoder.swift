/// Serialises WebSocket frames (RFC 6455 §5.2).
///
/// ```
///  0                   1                   2                   3
///  0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1 2 3 4 5 6 7 8 9 0 1
/// +-+-+-+-+-------+-+-------------+-------------------------------+
/// |F|R|R|R| opcode|M| Payload len |    Extended payload length    |
/// |I|S|S|S|  (4)  |A|     (7)     |             (16/64)           |
/// |N|V|V|V|       |S|             |   (if payload len==126/127)   |
/// | |1|2|3|       |K|             |                               |
/// +-+-+-+-+-------+-+-------------+ - - - - - - - - - - - - - - - +
/// |     Extended payload length continued, if payload len == 127  |
/// + - - - - - - - - - - - - - - - +-------------------------------+
/// |                               |Masking-key, if MASK set to 1  |
/// +-------------------------------+-------------------------------+
/// | Masking-key (continued)       |          Payload Data         |
/// +-------------------------------- - - - - - - - - - - - - - - - +
/// :                     Payload Data continued ...                :
/// + - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - - +
/// |                     Payload Data continued ...                |
/// +---------------------------------------------------------------+
/// ```
///
/// Payload len is 0–125 for the length itself, 126 for a following 16-bit length, 127 for a following 64-bit
/// length (most significant bit 0); the shortest form is always used. When MASK is set, payload byte `i` is XORed
/// with masking-key byte `i % 4` (RFC 6455 §5.3).
///
/// The encoder writes what it is given: keeping control frames final and at most 125 bytes, and masking exactly
/// when acting as a client, is the caller's job.
public enum WebSocketFrameEncoder {
    /// Appends the wire form of `frame` to `buffer`.
    ///
    /// - Parameters:
    ///   - frame: The frame; its payload is given unmasked.
    ///   - mask: The masking key; a client passes a fresh, unpredictable key for every frame (RFC 6455 §5.3), a
    ///     server passes `nil`.
    ///   - buffer: The buffer to append to.
    public static func encode(
        _ frame: WebSocketFrame, mask: (UInt8, UInt8, UInt8, UInt8)? = nil, into buffer: inout [UInt8]
    ) {
        let count = frame.payload.count
        buffer.reserveCapacity(buffer.count + headerSize(payloadCount: count, masked: mask != nil) + count)
        var first = frame.opcode.rawValue & 0x0F
        if frame.fin { first |= 0x80 }
        if frame.rsv1 { first |= 0x40 }
        buffer.append(first)
        let maskBit: UInt8 = mask == nil ? 0 : 0x80
        switch count {
        case 0...125:
            buffer.append(maskBit | UInt8(count))
        case 126...0xFFFF:
            buffer.append(maskBit | 126)
            buffer.append(UInt8(truncatingIfNeeded: count >> 8))
            buffer.append(UInt8(truncatingIfNeeded: count))
        default:
            buffer.append(maskBit | 127)
            let length = UInt64(count)
            for shift in stride(from: 56, through: 0, by: -8) {
                buffer.append(UInt8(truncatingIfNeeded: length >> UInt64(shift)))
            }
        }
        guard let mask else {
            buffer.append(contentsOf: frame.payload)
            return
        }
        buffer.append(contentsOf: [mask.0, mask.1, mask.2, mask.3])
        let start = buffer.count
        buffer.append(contentsOf: frame.payload)
        buffer.withUnsafeMutableBufferPointer { bytes in
            applyMask(mask, to: UnsafeMutableBufferPointer(rebasing: bytes[start...]))
        }
    }

    /// Returns the wire form of `frame`.
    ///
    /// - Parameters:
    ///   - frame: The frame; its payload is given unmasked.
    ///   - mask: The masking key, or `nil` for an unmasked (server) frame.
    /// - Returns: The encoded bytes.
    public static func encode(_ frame: WebSocketFrame, mask: (UInt8, UInt8, UInt8, UInt8)? = nil) -> [UInt8] {
        var buffer: [UInt8] = []
        encode(frame, mask: mask, into: &buffer)
        return buffer
    }

    /// The size of the header for a payload of `payloadCount` bytes: 2, 4 or 10 bytes, plus 4 when masked.
    ///
    /// - Parameters:
    ///   - payloadCount: The payload length.
    ///   - masked: Whether a masking key follows the length.
    /// - Returns: The header size in bytes.
    public static func headerSize(payloadCount: Int, masked: Bool) -> Int {
        let lengthBytes = payloadCount <= 125 ? 0 : (payloadCount <= 0xFFFF ? 2 : 8)
        return 2 + lengthBytes + (masked ? 4 : 0)
    }

    /// XORs `bytes` with the masking key (RFC 6455 §5.3); applying it twice restores the input.
    static func applyMask(_ key: (UInt8, UInt8, UInt8, UInt8), to bytes: inout [UInt8]) {
        bytes.withUnsafeMutableBufferPointer { applyMask(key, to: $0) }
    }

    private static func applyMask(_ key: (UInt8, UInt8, UInt8, UInt8), to bytes: UnsafeMutableBufferPointer<UInt8>) {
        var index = 0
        let count = bytes.count
        while index &+ 4 <= count {
            bytes[index] ^= key.0
            bytes[index &+ 1] ^= key.1
            bytes[index &+ 2] ^= key.2
            bytes[index &+ 3] ^= key.3
            index &+= 4
        }
        while index < count {
            switch index & 3 {
            case 0: bytes[index] ^= key.0
            case 1: bytes[index] ^= key.1
            default: bytes[index] ^= key.2
            }
            index &+= 1
        }
    }
}
