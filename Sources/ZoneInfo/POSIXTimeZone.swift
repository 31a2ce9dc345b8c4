import PortableBasics

/// A POSIX `TZ` rule, as the footer of a TZif file gives it for the instants after its last transition
/// (RFC 8536 §3.3): a standard offset and, optionally, a daylight-saving offset with the yearly rules that start and
/// end it.
///
/// ```swift
/// let madrid = try POSIXTimeZone(parsing: "CET-1CEST,M3.5.0,M10.5.0/3")
/// madrid.offset(at: 1_782_864_000)  // 7200: 2026-07-01 is summer time
/// ```
public struct POSIXTimeZone: Sendable, Hashable {
    /// The offset of standard time, seconds east of UTC (the opposite sign of the text's: `CET-1` is +3600).
    public var standardOffset: Int
    /// Daylight-saving time, nil for a zone without it.
    public var daylight: Daylight?

    /// A rule from its parts.
    /// - Parameters:
    ///   - standardOffset: Seconds east of UTC of standard time.
    ///   - daylight: Daylight-saving time, if any.
    public init(standardOffset: Int, daylight: Daylight?) {
        self.standardOffset = standardOffset
        self.daylight = daylight
    }

    /// Daylight-saving time and when it starts and ends each year.
    public struct Daylight: Sendable, Hashable {
        /// Its offset, seconds east of UTC.
        public var offset: Int
        /// When it starts, in standard (local) time.
        public var start: Transition
        /// When it ends, in daylight-saving (local) time.
        public var end: Transition

        /// Daylight-saving time from its parts.
        public init(offset: Int, start: Transition, end: Transition) {
            self.offset = offset
            self.start = start
            self.end = end
        }
    }

    /// A yearly moment: a day of the year and a time of that day.
    public struct Transition: Sendable, Hashable {
        /// The day.
        public var day: Day
        /// Seconds after the day's local midnight: −167 to 167 hours (RFC 8536 §3.3.1), 02:00 by default.
        public var time: Int

        /// A moment from its parts.
        public init(day: Day, time: Int) {
            self.day = day
            self.time = time
        }
    }

    /// A day of a year, in the three forms of POSIX.
    public enum Day: Sendable, Hashable {
        /// `Jn`: day 1–365, February 29 never counted (`J60` is March 1 every year).
        case julian(Int)
        /// `n`: day 0–365 counting from January 1, February 29 counted.
        case zeroBased(Int)
        /// `Mm.w.d`: weekday `d` (0 Sunday … 6 Saturday) of week `w` (1–4, 5 the last) of month `m` (1–12).
        case monthWeekDay(month: Int, week: Int, weekday: Int)
    }

    /// The seconds east of UTC in effect at an instant.
    /// - Parameter instant: Unix seconds.
    /// - Returns: The daylight-saving offset between the start and the end of a year's daylight-saving time, the
    ///   standard offset otherwise.
    /// - Complexity: O(1).
    public func offset(at instant: Int64) -> Int {
        guard daylight != nil else { return standardOffset }
        let instant = Self.clamped(instant)
        let year = CivilDate(daysSinceEpoch: Self.floorDays(instant + Int64(standardOffset))).year
        return changes(inYears: (year - 1)...(year + 1)).last { $0.instant <= instant }?.offset ?? standardOffset
    }

    /// The changes of offset in some years, in time order: each instant (Unix seconds) and the offset from then on.
    ///
    /// A daylight-saving time that ends when the next one starts (all year, RFC 8536 §3.3.1) gives both changes at
    /// the same instant, the end first, so that the start wins.
    /// - Parameter years: The years, by the local date of each change.
    /// - Returns: Two changes a year when the zone has daylight-saving time, none otherwise.
    public func changes(inYears years: ClosedRange<Int>) -> [(instant: Int64, offset: Int)] {
        guard let daylight else { return [] }
        var changes: [(instant: Int64, offset: Int, starts: Bool)] = []
        for year in years {
            changes.append((daylight.start.instant(in: year, localOffset: standardOffset), daylight.offset, true))
            changes.append((daylight.end.instant(in: year, localOffset: daylight.offset), standardOffset, false))
        }
        changes.sort { ($0.instant, $0.starts ? 1 : 0) < ($1.instant, $1.starts ? 1 : 0) }
        return changes.map { ($0.instant, $0.offset) }
    }

    /// The instants this library computes with: ±2⁵⁹ seconds (about ±18 billion years, the range RFC 8536 §3.2
    /// advises for transition times), so that adding offsets and days never overflows.
    static let instants: ClosedRange<Int64> = -(1 << 59)...(1 << 59)

    /// `instant` brought into ``instants``.
    static func clamped(_ instant: Int64) -> Int64 { min(max(instant, instants.lowerBound), instants.upperBound) }

    /// Days since 1970-01-01 of the day holding `seconds` (Unix seconds, floor).
    static func floorDays(_ seconds: Int64) -> Int {
        Int(seconds >= 0 ? seconds / 86_400 : -((-seconds + 86_399) / 86_400))
    }
}

extension POSIXTimeZone.Transition {
    /// The Unix instant of this moment in `year`, for a local time `localOffset` seconds east of UTC.
    func instant(in year: Int, localOffset: Int) -> Int64 {
        Int64(day.daysSinceEpoch(in: year)) * 86_400 + Int64(time - localOffset)
    }
}

extension POSIXTimeZone.Day {
    /// Days since 1970-01-01 of this day in `year`.
    func daysSinceEpoch(in year: Int) -> Int {
        let january1 = CivilDate(year: year, month: 1, day: 1)?.daysSinceEpoch ?? 0
        switch self {
        case .julian(let day):
            let skipsLeapDay = CivilDate.isLeapYear(year) && day >= 60
            return january1 + day - 1 + (skipsLeapDay ? 1 : 0)
        case .zeroBased(let day):
            return january1 + day
        case .monthWeekDay(let month, let week, let weekday):
            let first = CivilDate(year: year, month: month, day: 1)?.daysSinceEpoch ?? january1
            // 1970-01-01 was a Thursday (4).
            let firstWeekday = ((first + 4) % 7 + 7) % 7
            var day = (weekday - firstWeekday + 7) % 7 + 7 * (week - 1)
            let length = CivilDate.days(inMonth: month, of: year)
            while day >= length { day -= 7 }
            return first + day
        }
    }
}
