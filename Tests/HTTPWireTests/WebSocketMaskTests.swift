import HTTPWire
import Testing

/// Masking (``WebSocketFrameEncoder/applyMask(_:to:)``): eight bytes at a time, then byte by byte, which must equal
/// the RFC 6455 §5.3 definition `masked[i] = payload[i] ^ key[i % 4]`.
@Suite struct WebSocketMaskTests {
    typealias Key = (UInt8, UInt8, UInt8, UInt8)

    /// The definition, one byte at a time.
    static func referenceMask(_ bytes: [UInt8], key: Key) -> [UInt8] {
        let keyBytes = [key.0, key.1, key.2, key.3]
        return bytes.enumerated().map { $0.element ^ keyBytes[$0.offset % 4] }
    }

    /// `bytes` masked by the implementation, the buffer starting `misalignment` bytes into a larger allocation.
    static func masked(_ bytes: [UInt8], key: Key, misalignment: Int = 0) -> [UInt8] {
        var storage = [UInt8](repeating: 0xEE, count: misalignment) + bytes + [0xEE, 0xEE]
        storage.withUnsafeMutableBytes { buffer in
            let payload = UnsafeMutableRawBufferPointer(rebasing: buffer[misalignment..<(misalignment + bytes.count)])
            WebSocketFrameEncoder.applyMask(key, to: payload)
        }
        // The bytes around the payload are untouched.
        #expect(storage.prefix(misalignment).allSatisfy { $0 == 0xEE })
        #expect(storage.suffix(2) == [0xEE, 0xEE])
        return Array(storage[misalignment..<(misalignment + bytes.count)])
    }

    static let keys: [[UInt8]] = [
        [0, 0, 0, 0], [1, 2, 3, 4], [0xDE, 0xAD, 0xBE, 0xEF], [0xFF, 0xFF, 0xFF, 0xFF], [0x80, 0, 0, 1],
    ]

    static func key(_ bytes: [UInt8]) -> Key { (bytes[0], bytes[1], bytes[2], bytes[3]) }

    /// Every length from 0 to 40 (so both the 8-byte loop and each possible tail), several keys, aligned and not.
    @Test(arguments: keys)
    func matchesTheByteByByteDefinition(keyBytes: [UInt8]) {
        let key = Self.key(keyBytes)
        for length in 0...40 {
            let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 11) }
            let expected = Self.referenceMask(payload, key: key)
            for misalignment in [0, 1, 3] {
                #expect(
                    Self.masked(payload, key: key, misalignment: misalignment) == expected,
                    "length \(length), offset \(misalignment)")
            }
        }
    }

    /// The key octets apply in wire order: 1, 2, 3, 4 mask zeros into 1, 2, 3, 4, 1, 2, …
    @Test func usesTheKeyOctetsInWireOrder() {
        let zeros = [UInt8](repeating: 0, count: 10)
        #expect(Self.masked(zeros, key: (1, 2, 3, 4)) == [1, 2, 3, 4, 1, 2, 3, 4, 1, 2])
    }

    /// Masking is its own inverse.
    @Test(arguments: keys)
    func maskingTwiceRestoresTheInput(keyBytes: [UInt8]) {
        let key = Self.key(keyBytes)
        for length in 0...40 {
            let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 91 &+ 5) }
            let once = Self.masked(payload, key: key, misalignment: length % 3)
            #expect(Self.masked(once, key: key) == payload, "length \(length)")
            if keyBytes != [0, 0, 0, 0] && length > 0 { #expect(once != payload) }
        }
    }

    /// An empty buffer without storage is accepted and left alone.
    @Test func emptyBufferWithoutStorageIsANoOp() {
        WebSocketFrameEncoder.applyMask(
            (0xDE, 0xAD, 0xBE, 0xEF), to: UnsafeMutableRawBufferPointer(start: nil, count: 0))
        #expect(Self.masked([], key: (0xDE, 0xAD, 0xBE, 0xEF)).isEmpty)
    }
}
