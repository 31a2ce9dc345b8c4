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
        let header = WebSocketFrameHeader(
            fin: frame.fin, rsv1: frame.rsv1, opcode: frame.opcode, payloadCount: count, mask: mask)
        header.withUnsafeBytes { buffer.append(contentsOf: $0) }
        guard let mask else {
            buffer.append(contentsOf: frame.payload)
            return
        }
        let start = buffer.count
        buffer.append(contentsOf: frame.payload)
        buffer.withUnsafeMutableBytes { bytes in
            applyMask(mask, to: UnsafeMutableRawBufferPointer(rebasing: bytes[start...]))
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
        bytes.withUnsafeMutableBytes { applyMask(key, to: $0) }
    }

    /// XORs `bytes`, in place, with the masking key (RFC 6455 §5.3), eight bytes at a time; applying it twice
    /// restores the input.
    /// - Parameters:
    ///   - key: The four key octets, in wire order; the first applies to `bytes[0]`.
    ///   - bytes: The payload (or the part of it that starts at payload offset 0).
    public static func applyMask(_ key: (UInt8, UInt8, UInt8, UInt8), to bytes: UnsafeMutableRawBufferPointer) {
        guard let base = bytes.baseAddress else { return }
        // The key repeated over a word in memory order, so one XOR masks eight bytes whatever the byte order.
        let keyWord = withUnsafeBytes(of: key) { $0.loadUnaligned(as: UInt32.self) }
        let pattern = UInt64(keyWord) | UInt64(keyWord) << 32
        var offset = 0
        let count = bytes.count
        while offset &+ 8 <= count {
            let word = base.loadUnaligned(fromByteOffset: offset, as: UInt64.self) ^ pattern
            base.storeBytes(of: word, toByteOffset: offset, as: UInt64.self)
            offset &+= 8
        }
        withUnsafeBytes(of: key) { keyBytes in
            while offset < count {
                bytes[offset] ^= keyBytes[offset & 3]
                offset &+= 1
            }
        }
    }
}

/// A frame header in wire form (2 to 14 bytes: RFC 6455 §5.2), built without allocating, so a frame can leave as
/// this header followed by a payload that stays where it is.
public struct WebSocketFrameHeader: Sendable {
    /// The header's length in bytes.
    public let count: Int
    private var storage: (UInt64, UInt64) = (0, 0)

    /// Builds the header of a frame.
    ///
    /// - Parameters:
    ///   - fin: Whether this is the final fragment.
    ///   - rsv1: The RSV1 bit.
    ///   - opcode: The opcode.
    ///   - payloadCount: The payload length; not negative.
    ///   - mask: The masking key, or `nil` for an unmasked (server) frame.
    public init(
        fin: Bool = true, rsv1: Bool = false, opcode: WebSocketOpcode, payloadCount: Int,
        mask: (UInt8, UInt8, UInt8, UInt8)? = nil
    ) {
        precondition(payloadCount >= 0, "a payload length is not negative")
        count = WebSocketFrameEncoder.headerSize(payloadCount: payloadCount, masked: mask != nil)
        withUnsafeMutableBytes(of: &storage) { bytes in
            var first = opcode.rawValue & 0x0F
            if fin { first |= 0x80 }
            if rsv1 { first |= 0x40 }
            bytes[0] = first
            let maskBit: UInt8 = mask == nil ? 0 : 0x80
            var next = 2
            switch payloadCount {
            case 0...125:
                bytes[1] = maskBit | UInt8(payloadCount)
            case 126...0xFFFF:
                bytes[1] = maskBit | 126
                bytes[2] = UInt8(truncatingIfNeeded: payloadCount >> 8)
                bytes[3] = UInt8(truncatingIfNeeded: payloadCount)
                next = 4
            default:
                bytes[1] = maskBit | 127
                let length = UInt64(payloadCount)
                for index in 0..<8 { bytes[2 + index] = UInt8(truncatingIfNeeded: length >> UInt64(56 - 8 * index)) }
                next = 10
            }
            if let mask {
                bytes[next] = mask.0
                bytes[next + 1] = mask.1
                bytes[next + 2] = mask.2
                bytes[next + 3] = mask.3
            }
        }
    }

    /// Calls `body` with the header's bytes.
    /// - Parameter body: Reads the bytes; it must not keep them.
    /// - Returns: What `body` returns.
    public func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try Swift.withUnsafeBytes(of: storage) { try body(UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }
}
