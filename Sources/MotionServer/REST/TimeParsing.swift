import Basics

/// Reading `from`/`to` query values: ISO-8601 UTC (`2026-11-29`, `2026-11-29T14:00:00Z`, with optional fraction
/// and `±hh:mm` offset) or Unix seconds.
enum TimeParsing {
    /// Unix milliseconds, or nil when the text is neither form.
    static func unixMilliseconds(_ text: String) -> Int64? {
        if let seconds = Double(text), seconds.isFinite, abs(seconds) < 1e11 { return Int64(seconds * 1000) }
        let bytes = Array(text.utf8)
        func number(_ range: Range<Int>) -> Int? {
            guard range.upperBound <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[range] {
                guard byte >= 0x30 && byte <= 0x39 else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            return value
        }
        guard bytes.count >= 10, bytes[4] == 0x2D, bytes[7] == 0x2D, let year = number(0..<4),
            let month = number(5..<7), let day = number(8..<10),
            let date = CivilDate(year: year, month: month, day: day)
        else { return nil }
        var milliseconds = Int64(date.daysSinceEpoch) * 86_400_000
        guard bytes.count > 10 else { return milliseconds }
        guard bytes.count >= 20, bytes[10] == 0x54 || bytes[10] == 0x74, bytes[13] == 0x3A, bytes[16] == 0x3A,
            let hour = number(11..<13), let minute = number(14..<16), let second = number(17..<19), hour < 24,
            minute < 60, second < 61
        else { return nil }
        milliseconds += Int64(hour * 3_600_000 + minute * 60_000 + second * 1000)
        var index = 19
        if bytes[index] == 0x2E {
            var scale = 100
            index += 1
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                milliseconds += Int64(Int(bytes[index] - 0x30) * scale)
                scale /= 10
                index += 1
            }
        }
        guard index < bytes.count else { return nil }
        if bytes[index] == 0x5A || bytes[index] == 0x7A { return index + 1 == bytes.count ? milliseconds : nil }
        guard bytes[index] == 0x2B || bytes[index] == 0x2D, bytes.count == index + 6, bytes[index + 3] == 0x3A,
            let offsetHours = number(index + 1..<index + 3), let offsetMinutes = number(index + 4..<index + 6)
        else { return nil }
        let offset = Int64(offsetHours * 3_600_000 + offsetMinutes * 60_000)
        return bytes[index] == 0x2B ? milliseconds - offset : milliseconds + offset
    }
}
