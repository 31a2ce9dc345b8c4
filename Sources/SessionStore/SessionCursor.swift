/// The position after which a listing resumes: the sort key of the last session of a page.
///
/// Opaque to clients: base64url (RFC 4648 §5, no padding) of 29 bytes,
///
///      0        1                9                       25        29
///     +--------+----------------+-----------------------+---------+
///     | ver=1  | startedAt (BE) | session id (BE)       | FNV-1a  |
///     +--------+----------------+-----------------------+---------+
///
/// The checksum (FNV-1a 32 of bytes 0..<25) catches truncated or edited cursors. It is not a secret: a forged
/// cursor can only move the start of a listing within the caller's own tenant.
struct SessionCursor: Hashable, Sendable {
    /// The last listed session's start time.
    var startedAt: Int64
    /// The last listed session's id.
    var id: SessionID

    private static let version: UInt8 = 1
    private static let byteCount = 29

    /// The cursor's text.
    var encoded: String {
        var bytes: [UInt8] = [Self.version]
        bytes.reserveCapacity(Self.byteCount)
        let time = UInt64(bitPattern: startedAt)
        for shift in stride(from: 56, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: time >> shift)) }
        for shift in stride(from: 120, through: 0, by: -8) {
            bytes.append(UInt8(truncatingIfNeeded: id.rawValue >> UInt128(shift)))
        }
        let sum = Self.checksum(bytes)
        for shift in stride(from: 24, through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: sum >> shift)) }
        return Base64URL.encode(bytes)
    }

    /// Creates a cursor from its key.
    init(startedAt: Int64, id: SessionID) {
        self.startedAt = startedAt
        self.id = id
    }

    /// Parses a cursor's text.
    /// - Throws: ``SessionStoreError/invalidCursor`` for anything this type did not write.
    init(parsing text: String) throws(SessionStoreError) {
        guard text.utf8.count <= 64, let bytes = Base64URL.decode(text), bytes.count == Self.byteCount,
            bytes[0] == Self.version
        else { throw .invalidCursor }
        var sum: UInt32 = 0
        for byte in bytes[25..<29] { sum = sum << 8 | UInt32(byte) }
        guard sum == Self.checksum(bytes[0..<25]) else { throw .invalidCursor }
        var time: UInt64 = 0
        for byte in bytes[1..<9] { time = time << 8 | UInt64(byte) }
        var raw: UInt128 = 0
        for byte in bytes[9..<25] { raw = raw << 8 | UInt128(byte) }
        startedAt = Int64(bitPattern: time)
        id = SessionID(rawValue: raw)
    }

    private static func checksum(_ bytes: some Sequence<UInt8>) -> UInt32 {
        var hash: UInt32 = 0x811c_9dc5
        for byte in bytes {
            hash ^= UInt32(byte)
            hash &*= 0x0100_0193
        }
        return hash
    }
}

/// Base64url without padding (RFC 4648 §5), strict: decoding refuses padding, other alphabets and non-zero unused
/// bits, so each byte string has exactly one text.
package enum Base64URL {
    private static let alphabet: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    private static let values: [UInt8?] = {
        var table = [UInt8?](repeating: nil, count: 256)
        for (value, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(value) }
        return table
    }()

    package static func encode(_ bytes: [UInt8]) -> String {
        var out: [UInt8] = []
        out.reserveCapacity((bytes.count * 4 + 2) / 3)
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in bytes {
            accumulator = accumulator << 8 | UInt32(byte)
            bits += 8
            while bits >= 6 {
                bits -= 6
                out.append(alphabet[Int((accumulator >> UInt32(bits)) & 63)])
            }
        }
        if bits > 0 { out.append(alphabet[Int((accumulator << UInt32(6 - bits)) & 63)]) }
        return String(decoding: out, as: UTF8.self)
    }

    package static func decode(_ text: String) -> [UInt8]? {
        var out: [UInt8] = []
        var accumulator: UInt32 = 0
        var bits = 0
        for byte in text.utf8 {
            guard let value = values[Int(byte)] else { return nil }
            accumulator = accumulator << 6 | UInt32(value)
            bits += 6
            if bits >= 8 {
                bits -= 8
                out.append(UInt8(truncatingIfNeeded: accumulator >> UInt32(bits)))
            }
        }
        // A lone trailing character (6 bits) is never written; unused low bits must be zero.
        guard bits < 6, accumulator & ((1 << UInt32(bits)) - 1) == 0 else { return nil }
        return out
    }
}

extension SessionCursor {
    /// Cuts rows read newest first — one more than a page holds, to tell whether another follows — to `limit`.
    /// - Parameters:
    ///   - rows: The rows, newest first.
    ///   - limit: The page size.
    ///   - key: A row's start time and id.
    /// - Returns: The cursor of the rows after the last one kept, nil when none was cut.
    static func cut<Row>(
        _ rows: inout [Row], to limit: Int, key: (Row) -> (startedAt: Int64, id: SessionID)
    ) -> String? {
        guard rows.count > limit else { return nil }
        rows.removeLast(rows.count - limit)
        return rows.last.map { row in
            let (startedAt, id) = key(row)
            return SessionCursor(startedAt: startedAt, id: id).encoded
        }
    }
}
