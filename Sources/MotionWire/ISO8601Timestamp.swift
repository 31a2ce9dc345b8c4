import PortableBasics

/// Formats Unix seconds as an ISO-8601 UTC timestamp (RFC 3339 §5.6), `2026-11-29T14:00:00Z`, without Foundation.
///
/// Whole seconds, rounded down: REST bodies carry server times to the second (docs/protocol.md §5). Years outside
/// 0000…9999 and non-finite times have no such form.
enum ISO8601Timestamp {
    /// Appends the quoted timestamp, or `null` when `seconds` is nil, not finite or outside years 0000…9999.
    static func append(_ seconds: Double?, to buffer: inout [UInt8]) {
        guard let seconds, let fields = fields(ofUnixSeconds: seconds) else {
            buffer.appendLiteral("null")
            return
        }
        buffer.append(UInt8(ascii: "\""))
        buffer.appendDecimal(fields.year, width: 4)
        buffer.append(UInt8(ascii: "-"))
        buffer.appendDecimal(fields.month, width: 2)
        buffer.append(UInt8(ascii: "-"))
        buffer.appendDecimal(fields.day, width: 2)
        buffer.append(UInt8(ascii: "T"))
        buffer.appendDecimal(fields.secondOfDay / 3600, width: 2)
        buffer.append(UInt8(ascii: ":"))
        buffer.appendDecimal(fields.secondOfDay / 60 % 60, width: 2)
        buffer.append(UInt8(ascii: ":"))
        buffer.appendDecimal(fields.secondOfDay % 60, width: 2)
        buffer.appendLiteral("Z\"")
    }

    /// The timestamp as a string, without quotes, or nil when it has no ISO-8601 form here.
    static func string(fromUnixSeconds seconds: Double) -> String? {
        var buffer: [UInt8] = []
        append(seconds, to: &buffer)
        guard buffer.first == UInt8(ascii: "\"") else { return nil }
        return String(decoding: buffer.dropFirst().dropLast(), as: UTF8.self)
    }

    /// The civil date (proleptic Gregorian) and second of the day, UTC.
    static func fields(ofUnixSeconds seconds: Double) -> (year: Int, month: Int, day: Int, secondOfDay: Int)? {
        // 253402300800 is 10000-01-01T00:00:00Z; -62167219200 is 0000-01-01T00:00:00Z.
        guard seconds.isFinite, seconds >= -62_167_219_200, seconds < 253_402_300_800 else { return nil }
        let whole = Int(seconds.rounded(.down))
        let days = whole >= 0 ? whole / 86_400 : (whole - 86_399) / 86_400
        let secondOfDay = whole - days * 86_400
        let date = CivilDate(daysSinceEpoch: days)
        return (date.year, date.month, date.day, secondOfDay)
    }
}
