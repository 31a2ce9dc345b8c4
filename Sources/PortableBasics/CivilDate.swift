/// A date of the proleptic Gregorian calendar, and its day count from the Unix epoch (1970-01-01), with no time
/// zone: the one conversion behind HTTP dates (RFC 9110 §5.6.7), ISO-8601 timestamps and query times.
///
/// The conversions are Howard Hinnant's `days_from_civil` and `civil_from_days` ("chrono-Compatible Low-Level Date
/// Algorithms"), exact for every year an `Int` holds, in eras of 400 years.
///
/// ```swift
/// CivilDate(daysSinceEpoch: 20_421)                  // 2025-11-29
/// CivilDate(year: 2026, month: 2, day: 29)           // nil: 2026 is not a leap year
/// CivilDate(year: 2000, month: 2, day: 29)!.daysSinceEpoch  // 11_016
/// ```
public struct CivilDate: Hashable, Sendable {
    /// The year (0 is 1 BC).
    public let year: Int
    /// The month, 1–12.
    public let month: Int
    /// The day of the month, from 1.
    public let day: Int

    /// A date, or nil when the month or the day does not exist (February 30, April 31, February 29 of a common
    /// year).
    public init?(year: Int, month: Int, day: Int) {
        guard (1...12).contains(month), day >= 1, day <= Self.days(inMonth: month, of: year) else { return nil }
        self.year = year
        self.month = month
        self.day = day
    }

    /// The date `days` days after 1970-01-01 (before it when negative).
    public init(daysSinceEpoch days: Int) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153  // March is 0
        day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
    }

    /// Days from 1970-01-01 to this date (negative before it).
    public var daysSinceEpoch: Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// Whether `year` has a February 29.
    public static func isLeapYear(_ year: Int) -> Bool { year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) }

    /// The number of days of `month` (1–12) in `year`.
    public static func days(inMonth month: Int, of year: Int) -> Int {
        switch month {
        case 2: isLeapYear(year) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }
}
