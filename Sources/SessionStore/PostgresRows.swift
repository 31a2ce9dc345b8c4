import CLibPQ

/// A statement parameter: text, which the server parses as the type the statement gives the parameter, or binary
/// for `bytea`.
///
/// Numbers go as text in their shortest exact form (a `Double` parses back to the same bits), so one prepared
/// statement takes any value without declaring parameter types.
enum PostgresValue {
    case null
    case text(String)
    case binary([UInt8])

    static func string(_ value: String?) -> PostgresValue { value.map { .text($0) } ?? .null }

    static func int(_ value: Int64?) -> PostgresValue { value.map { .text(String($0)) } ?? .null }

    static func int(_ value: Int?) -> PostgresValue { value.map { .text(String($0)) } ?? .null }

    static func double(_ value: Double?) -> PostgresValue {
        guard let value else { return .null }
        if value.isNaN { return .text("NaN") }
        if value.isInfinite { return .text(value < 0 ? "-Infinity" : "Infinity") }
        return .text("\(value)")
    }

    static func bytes(_ value: [UInt8]?) -> PostgresValue { value.map { .binary($0) } ?? .null }

    /// A one-dimensional array of text or number values in PostgreSQL's text form, `{"a",NULL,"1.5"}`, which the
    /// server parses as the array type the statement gives the parameter (`$1::float8[]`): every element quoted,
    /// its `"` and `\` escaped with `\`, and a null one an unquoted `NULL`. With `unnest`, one statement writes
    /// many rows.
    /// - Precondition: No element is ``binary(_:)``: bytes go in ``byteaArray(_:)``.
    static func array(_ elements: [PostgresValue]) -> PostgresValue {
        var literal: [UInt8] = [UInt8(ascii: "{")]
        for element in elements {
            if literal.count > 1 { literal.append(UInt8(ascii: ",")) }
            switch element {
            case .null:
                literal += "NULL".utf8
            case .text(let text):
                literal.append(UInt8(ascii: "\""))
                for byte in text.utf8 {
                    if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") { literal.append(UInt8(ascii: "\\")) }
                    literal.append(byte)
                }
                literal.append(UInt8(ascii: "\""))
            case .binary:
                preconditionFailure("bytes go in a bytea array")
            }
        }
        literal.append(UInt8(ascii: "}"))
        return .text(String(decoding: literal, as: UTF8.self))
    }

    /// A one-dimensional `bytea[]` in PostgreSQL's binary form: dimensions, lower bound 1, the element type, then
    /// each element's length (-1 for null) and bytes, integers big-endian.
    static func byteaArray(_ elements: [[UInt8]?]) -> PostgresValue {
        var array: [UInt8] = []
        array.reserveCapacity(20 + elements.reduce(0) { $0 + 4 + ($1?.count ?? 0) })
        func append(_ value: Int32) { withUnsafeBytes(of: value.bigEndian) { array += $0 } }
        append(1)  // dimensions
        append(elements.contains(nil) ? 1 : 0)
        append(Int32(bitPattern: byteaOID))
        append(Int32(elements.count))
        append(1)  // lower bound
        for element in elements {
            guard let element else {
                append(-1)
                continue
            }
            append(Int32(element.count))
            array += element
        }
        return .binary(array)
    }

    /// `bytea`'s type OID (`pg_type.oid`).
    private static let byteaOID: UInt32 = 17
}

/// The text PostgreSQL stores for a Swift string: its UTF-8, except that U+0000, which a PostgreSQL `text` cannot
/// hold, is written U+FFFE `0`, and U+FFFE itself U+FFFE U+FFFE. The mapping is one-to-one, so equality in SQL is
/// equality of the strings; strings without either character (every one the store writes itself) are unchanged.
enum PostgresText {
    private static let escape: Character = "\u{FFFE}"

    static func encode(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0 == "\u{0}" || $0 == "\u{FFFE}" }) else { return text }
        var encoded = String.UnicodeScalarView()
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\u{0}": encoded += ["\u{FFFE}", "0"]
            case "\u{FFFE}": encoded += ["\u{FFFE}", "\u{FFFE}"]
            default: encoded.append(scalar)
            }
        }
        return String(encoded)
    }

    static func decode(_ text: String) -> String {
        guard text.unicodeScalars.contains("\u{FFFE}") else { return text }
        var decoded = String.UnicodeScalarView()
        var escaped = false
        for scalar in text.unicodeScalars {
            if escaped {
                decoded.append(scalar == "0" ? "\u{0}" : scalar)
                escaped = false
            } else if scalar == "\u{FFFE}" {
                escaped = true
            } else {
                decoded.append(scalar)
            }
        }
        return String(decoded)
    }
}

/// A statement's result: its rows in binary, read by 0-based row and column, and the count of rows a write changed.
///
/// Owns the libpq result and clears it when released. Not `Sendable`: it stays on the store's thread.
final class PostgresRows {
    private let handle: OpaquePointer

    init(_ handle: OpaquePointer) { self.handle = handle }

    deinit { PQclear(handle) }

    /// The number of rows.
    var count: Int { Int(PQntuples(handle)) }

    /// The rows an INSERT, UPDATE or DELETE changed.
    var changed: Int {
        guard let text = PQcmdTuples(handle) else { return 0 }
        return Int(String(cString: text)) ?? 0
    }

    /// Each row, in order.
    var rows: [PostgresRow] { (0..<count).map { PostgresRow(rows: self, index: Int32($0)) } }

    /// The first row, if any.
    var first: PostgresRow? { count > 0 ? PostgresRow(rows: self, index: 0) : nil }

    fileprivate func isNull(_ row: Int32, _ column: Int32) -> Bool { PQgetisnull(handle, row, column) != 0 }

    fileprivate func type(_ column: Int32) -> UInt32 { PQftype(handle, column) }

    fileprivate func bytes(_ row: Int32, _ column: Int32) -> UnsafeRawBufferPointer {
        let length = Int(PQgetlength(handle, row, column))
        guard let value = PQgetvalue(handle, row, column) else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        return UnsafeRawBufferPointer(start: value, count: length)
    }
}

/// One row of ``PostgresRows``: columns decoded by their type (`bigint`, `integer`, `smallint`, `boolean`,
/// `double precision`, `real`, `text`, `bytea`).
struct PostgresRow: StoreRow {
    fileprivate let rows: PostgresRows
    fileprivate let index: Int32

    /// Type OIDs (`pg_type.oid`), stable across servers.
    private enum OID {
        static let bool: UInt32 = 16
        static let int8: UInt32 = 20
        static let int2: UInt32 = 21
        static let int4: UInt32 = 23
        static let float4: UInt32 = 700
        static let float8: UInt32 = 701
    }

    func isNull(_ column: Int32) -> Bool { rows.isNull(index, column) }

    func int64(_ column: Int32) -> Int64 {
        let bytes = rows.bytes(index, column)
        switch rows.type(column) {
        case OID.int8, OID.int4, OID.int2, OID.bool: return Self.signed(bytes)
        case OID.float8, OID.float4: return Int64(exactly: double(column)) ?? 0
        default: return Int64(string(column)) ?? 0
        }
    }

    func double(_ column: Int32) -> Double {
        let bytes = rows.bytes(index, column)
        switch rows.type(column) {
        case OID.float8: return Double(bitPattern: Self.unsigned(bytes))
        case OID.float4: return Double(Float(bitPattern: UInt32(truncatingIfNeeded: Self.unsigned(bytes))))
        case OID.int8, OID.int4, OID.int2: return Double(Self.signed(bytes))
        default: return Double(string(column)) ?? .nan
        }
    }

    /// A text column's value (a binary `text` is its UTF-8).
    func string(_ column: Int32) -> String {
        let bytes = rows.bytes(index, column)
        let text = String(decoding: bytes, as: UTF8.self)
        // U+FFFE, which escapes, is EF BF BE in UTF-8: text without an EF byte is as stored.
        return bytes.contains(0xEF) ? PostgresText.decode(text) : text
    }

    func sessionID(_ column: Int32) -> SessionID? { SessionID(utf8: rows.bytes(index, column)) }

    /// Any column as text: numbers in decimal, `NULL` for null; for checks that do not know a column's type.
    func text(_ column: Int32) -> String {
        guard !isNull(column) else { return "NULL" }
        switch rows.type(column) {
        case OID.int8, OID.int4, OID.int2, OID.bool: return String(int64(column))
        case OID.float8, OID.float4: return "\(double(column))"
        default: return string(column)
        }
    }

    func blob(_ column: Int32) -> [UInt8] { Array(rows.bytes(index, column)) }

    /// A big-endian two's-complement integer of 1, 2, 4 or 8 bytes.
    private static func signed(_ bytes: UnsafeRawBufferPointer) -> Int64 {
        let value = unsigned(bytes)
        let shift = UInt64(64 - 8 * min(8, max(1, bytes.count)))
        return Int64(bitPattern: value << shift) >> shift
    }

    private static func unsigned(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        switch bytes.count {
        case 8: return UInt64(bigEndian: bytes.loadUnaligned(as: UInt64.self))
        case 4: return UInt64(UInt32(bigEndian: bytes.loadUnaligned(as: UInt32.self)))
        default: break
        }
        var value: UInt64 = 0
        for byte in bytes.prefix(8) { value = value << 8 | UInt64(byte) }
        return value
    }
}
