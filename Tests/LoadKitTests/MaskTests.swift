import Testing

@testable import LoadKit

/// The client masking of ``RawWebSocketConnection``: eight bytes at a time, then byte by byte, which must equal
/// the RFC 6455 definition `masked[i] = payload[i] ^ key[i % 4]`, with the key octets taken in memory order.
@Suite struct MaskTests {
    /// The definition, one byte at a time.
    static func referenceMask(_ bytes: [UInt8], key: UInt32) -> [UInt8] {
        let keyBytes = withUnsafeBytes(of: key) { Array($0) }
        return bytes.enumerated().map { $0.element ^ keyBytes[$0.offset % 4] }
    }

    /// `bytes` masked by the implementation, the buffer starting `misalignment` bytes into a larger allocation.
    static func masked(_ bytes: [UInt8], key: UInt32, misalignment: Int = 0) -> [UInt8] {
        var storage = [UInt8](repeating: 0xEE, count: misalignment) + bytes + [0xEE, 0xEE]
        storage.withUnsafeMutableBytes { buffer in
            let payload = UnsafeMutableRawBufferPointer(rebasing: buffer[misalignment..<(misalignment + bytes.count)])
            RawWebSocketConnection.mask(payload, key: key)
        }
        // The bytes around the payload are untouched.
        #expect(storage.prefix(misalignment).allSatisfy { $0 == 0xEE })
        #expect(storage.suffix(2) == [0xEE, 0xEE])
        return Array(storage[misalignment..<(misalignment + bytes.count)])
    }

    static let keys: [UInt32] = [0, 0x0403_0201, 0xDEAD_BEEF, 0xFFFF_FFFF, 0x8000_0001]

    /// Every length from 0 to 40 (so both the 8-byte loop and each possible tail), several keys, aligned and not.
    @Test(arguments: keys)
    func matchesTheByteByByteDefinition(key: UInt32) {
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

    /// The key's bytes are used in memory order: on this (little-endian) machine 0x04030201 masks with 1, 2, 3, 4.
    @Test func usesTheKeyBytesInMemoryOrder() {
        let key: UInt32 = 0x0403_0201
        let keyBytes = withUnsafeBytes(of: key) { Array($0) }
        let zeros = [UInt8](repeating: 0, count: 10)
        #expect(Self.masked(zeros, key: key) == (0..<10).map { keyBytes[$0 % 4] })
        #if _endian(little)
        #expect(Self.masked(zeros, key: key) == [1, 2, 3, 4, 1, 2, 3, 4, 1, 2])
        #endif
    }

    /// Masking is its own inverse.
    @Test(arguments: keys)
    func maskingTwiceRestoresTheInput(key: UInt32) {
        for length in 0...40 {
            let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 91 &+ 5) }
            let once = Self.masked(payload, key: key, misalignment: length % 3)
            #expect(Self.masked(once, key: key) == payload, "length \(length)")
            if key != 0 && length > 0 { #expect(once != payload) }
        }
    }

    /// An empty buffer without storage is accepted and left alone.
    @Test func emptyBufferWithoutStorageIsANoOp() {
        RawWebSocketConnection.mask(UnsafeMutableRawBufferPointer(start: nil, count: 0), key: 0xDEAD_BEEF)
        #expect(Self.masked([], key: 0xDEAD_BEEF).isEmpty)
    }
}
