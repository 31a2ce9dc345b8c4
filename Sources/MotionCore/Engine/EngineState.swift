/// Why saved engine state could not be restored.
public enum EngineStateError: Error, Sendable, Equatable {
    /// The bytes end before the state does.
    case truncated
    /// Not engine state, or of a format version this build does not read.
    case unsupportedFormat
    /// The state was saved by an engine for another exercise, version, side or prescription.
    case configurationMismatch
    /// A value is out of its range (a corrupted or forged state).
    case corrupt(String)
}

/// Why ``MotionEngine/init(configuration:restoring:series:)`` failed.
public enum RestoreError: Error, Sendable, Equatable {
    /// The configuration itself is unusable.
    case session(SessionError)
    /// The state does not restore into an engine of this configuration.
    case state(EngineStateError)
}

/// FNV-1a, 64 bits: a stable hash (Swift's `Hasher` is seeded per process).
struct FNV1a {
    private(set) var value: UInt64 = 0xcbf2_9ce4_8422_2325

    mutating func add(_ bytes: some Sequence<UInt8>) {
        for byte in bytes {
            value ^= UInt64(byte)
            value &*= 0x100_0000_01b3
        }
    }

    mutating func add(_ text: String) {
        add(text.utf8)
        add(CollectionOfOne(0))
    }

    mutating func add(_ number: UInt64) {
        withUnsafeBytes(of: number.littleEndian) { add($0) }
    }
}

/// Appends engine state: integers as LEB128 varints, doubles as their 8 bytes (little-endian bit patterns, so every
/// value, NaN payloads included, comes back exactly), optionals behind a presence byte.
struct EngineStateWriter {
    var bytes: [UInt8] = []

    mutating func write(_ value: Bool) { bytes.append(value ? 1 : 0) }

    mutating func write(_ value: Double) {
        withUnsafeBytes(of: value.bitPattern.littleEndian) { bytes.append(contentsOf: $0) }
    }

    mutating func write(_ value: Double?) {
        write(value != nil)
        if let value { write(value) }
    }

    mutating func write(_ value: UInt64) {
        var rest = value
        while rest >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
            rest >>= 7
        }
        bytes.append(UInt8(rest))
    }

    /// A count or index, ≥ 0.
    mutating func write(_ value: Int) { write(UInt64(max(0, value))) }

    mutating func write(_ side: BodySide?) { bytes.append(side.map { $0 == .left ? 1 : 2 } ?? 0) }
}

/// Reads what ``EngineStateWriter`` wrote, refusing anything truncated or out of range.
struct EngineStateReader {
    let bytes: [UInt8]
    private var position = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { position == bytes.count }

    mutating func bytes(_ count: Int) throws(EngineStateError) -> [UInt8] {
        guard bytes.count - position >= count else { throw .truncated }
        defer { position += count }
        return Array(bytes[position..<position + count])
    }

    mutating func readByte() throws(EngineStateError) -> UInt8 {
        guard position < bytes.count else { throw .truncated }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func readBool() throws(EngineStateError) -> Bool {
        switch try readByte() {
        case 0: return false
        case 1: return true
        default: throw .corrupt("a flag that is neither 0 nor 1")
        }
    }

    mutating func readDouble() throws(EngineStateError) -> Double {
        guard bytes.count - position >= 8 else { throw .truncated }
        var pattern: UInt64 = 0
        for index in 0..<8 { pattern |= UInt64(bytes[position + index]) << (8 * index) }
        position += 8
        return Double(bitPattern: pattern)
    }

    mutating func readOptionalDouble() throws(EngineStateError) -> Double? {
        try readBool() ? try readDouble() : nil
    }

    mutating func readUInt64() throws(EngineStateError) -> UInt64 {
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            let byte = try readByte()
            guard shift < 64, shift < 63 || byte <= 1 else { throw .corrupt("an integer beyond 64 bits") }
            value |= UInt64(byte & 0x7F) << shift
            if byte < 0x80 { return value }
            shift += 7
        }
    }

    /// A count or index, at most `limit`.
    mutating func readCount(atMost limit: Int = 1 << 40) throws(EngineStateError) -> Int {
        let value = try readUInt64()
        guard value <= UInt64(limit) else { throw .corrupt("a count of \(value), more than \(limit)") }
        return Int(value)
    }

    mutating func readSide() throws(EngineStateError) -> BodySide? {
        switch try readByte() {
        case 0: return nil
        case 1: return .left
        case 2: return .right
        default: throw .corrupt("an unknown side")
        }
    }
}
