import Basics

/// Formats HTTP dates (RFC 9110 §5.6.7) from a Unix time supplied by the caller; no clock is read here.
public enum HTTPDate {
    private static let dayNames: [String] = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
    static let monthNames: [String] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ]
    /// 0001-01-01T00:00:00Z, the earliest time with a four-digit year.
    private static let earliest = -62_135_596_800
    /// 9999-12-31T23:59:59Z, the latest time with a four-digit year.
    private static let latest = 253_402_300_799

    /// Formats a Unix time as IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    ///
    /// - Parameter unixTime: Seconds since 1970-01-01T00:00:00Z; clamped to years 0001...9999.
    /// - Returns: The 29-character date string.
    public static func imfFixdate(unixTime: Int) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(29)
        writeIMFFixdate(unixTime: unixTime, into: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Appends the IMF-fixdate form of a Unix time to a buffer.
    ///
    /// - Parameters:
    ///   - unixTime: Seconds since 1970-01-01T00:00:00Z; clamped to years 0001...9999.
    ///   - buffer: The buffer to append to.
    public static func writeIMFFixdate(unixTime: Int, into buffer: inout [UInt8]) {
        let time = min(max(unixTime, earliest), latest)
        var days = time / 86_400
        var seconds = time % 86_400
        if seconds < 0 {
            seconds += 86_400
            days -= 1
        }
        let civil = CivilDate(daysSinceEpoch: days)
        // 1970-01-01 was a Thursday (index 4 with Sunday = 0).
        let weekday = ((days % 7) + 11) % 7
        buffer.append(contentsOf: dayNames[weekday].utf8)
        buffer.append(contentsOf: ", ".utf8)
        buffer.appendDecimal(civil.day, width: 2)
        buffer.append(ASCII.space)
        buffer.append(contentsOf: monthNames[civil.month - 1].utf8)
        buffer.append(ASCII.space)
        buffer.appendDecimal(civil.year, width: 4)
        buffer.append(ASCII.space)
        buffer.appendDecimal(seconds / 3600, width: 2)
        buffer.append(ASCII.colon)
        buffer.appendDecimal(seconds / 60 % 60, width: 2)
        buffer.append(ASCII.colon)
        buffer.appendDecimal(seconds % 60, width: 2)
        buffer.append(contentsOf: " GMT".utf8)
    }
}
