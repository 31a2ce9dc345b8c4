import Testing
import ZoneInfo

/// The POSIX TZ rules of TZif footers (RFC 8536 §3.3), read and applied.
@Suite struct POSIXTimeZoneTests {
    typealias Rule = POSIXTimeZone

    static func daylight(
        _ offset: Int, _ start: Rule.Day, _ startTime: Int = 7200, end: Rule.Day, _ endTime: Int = 7200
    ) -> Rule.Daylight {
        Rule.Daylight(
            offset: offset, start: Rule.Transition(day: start, time: startTime),
            end: Rule.Transition(day: end, time: endTime))
    }

    @Test func readsTheFormsTzdataWrites() throws {
        #expect(
            try Rule(parsing: "CET-1CEST,M3.5.0,M10.5.0/3")
                == Rule(
                    standardOffset: 3600,
                    daylight: Self.daylight(
                        7200, .monthWeekDay(month: 3, week: 5, weekday: 0),
                        end: .monthWeekDay(month: 10, week: 5, weekday: 0), 10_800)))
        #expect(try Rule(parsing: "<-03>3") == Rule(standardOffset: -10_800, daylight: nil))
        #expect(try Rule(parsing: "<+0545>-5:45") == Rule(standardOffset: 20_700, daylight: nil))
        #expect(
            try Rule(parsing: "EST5EDT,M3.2.0,M11.1.0")
                == Rule(
                    standardOffset: -18_000,
                    daylight: Self.daylight(
                        -14_400, .monthWeekDay(month: 3, week: 2, weekday: 0),
                        end: .monthWeekDay(month: 11, week: 1, weekday: 0))))
        #expect(
            try Rule(parsing: "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0")
                == Rule(
                    standardOffset: 37_800,
                    daylight: Self.daylight(
                        39_600, .monthWeekDay(month: 10, week: 1, weekday: 0),
                        end: .monthWeekDay(month: 4, week: 1, weekday: 0))))
        #expect(
            try Rule(parsing: "<-02>2<-01>,M3.5.0/-1,M10.5.0/0")
                == Rule(
                    standardOffset: -7200,
                    daylight: Self.daylight(
                        -3600, .monthWeekDay(month: 3, week: 5, weekday: 0), -3600,
                        end: .monthWeekDay(month: 10, week: 5, weekday: 0), 0)))
        #expect(
            try Rule(parsing: "XXX+1:02:03YYY+0:30,J60/1:00:30,300/-167")
                == Rule(
                    standardOffset: -3723,
                    daylight: Self.daylight(-1800, .julian(60), 3630, end: .zeroBased(300), -167 * 3600)))
    }

    @Test func madridChangesOnTheLastSundaysOfMarchAndOctober() throws {
        let madrid = try Rule(parsing: "CET-1CEST,M3.5.0,M10.5.0/3")
        let changes = madrid.changes(inYears: 2026...2026)
        #expect(changes.map(\.instant) == [1_774_746_000, 1_792_890_000], "2026-03-29T01:00Z, 2026-10-25T01:00Z")
        #expect(changes.map(\.offset) == [7200, 3600])
        #expect(madrid.offset(at: 1_774_745_999) == 3600)
        #expect(madrid.offset(at: 1_774_746_000) == 7200)
        #expect(madrid.offset(at: 1_792_889_999) == 7200)
        #expect(madrid.offset(at: 1_792_890_000) == 3600)
        // 2040-03-25 is the last Sunday of March 2040.
        #expect(madrid.offset(at: 2_216_249_999) == 3600)
        #expect(madrid.offset(at: 2_216_250_000) == 7200)
    }

    @Test func southernZonesHaveSummerAcrossTheNewYear() throws {
        let santiago = try Rule(parsing: "<-04>4<-03>,M9.1.6/24,M4.1.6/24")
        #expect(santiago.offset(at: 1_767_225_600) == -10_800, "2026-01-01")
        #expect(santiago.offset(at: 1_782_864_000) == -14_400, "2026-07-01")
        // The first Saturday of September 2026 is the 5th; 24:00 that day is 2026-09-06T04:00Z.
        #expect(santiago.offset(at: 1_788_667_199) == -14_400)
        #expect(santiago.offset(at: 1_788_667_200) == -10_800)
        let lordHowe = try Rule(parsing: "<+1030>-10:30<+11>-11,M10.1.0,M4.1.0")
        #expect(lordHowe.offset(at: 1_775_314_799) == 39_600)
        #expect(lordHowe.offset(at: 1_775_314_800) == 37_800, "half an hour back on 2026-04-05 02:00")
    }

    @Test func aNegativeDaylightSavingTimeIsWinter() throws {
        let dublin = try Rule(parsing: "IST-1GMT0,M10.5.0,M3.5.0/1")
        #expect(dublin.offset(at: 1_782_864_000) == 3600, "July: IST, the standard time")
        #expect(dublin.offset(at: 1_768_478_400) == 0, "January: GMT")
    }

    @Test func transitionTimesMayBeNegativeOrBeyondADay() throws {
        let godthab = try Rule(parsing: "<-03>3<-02>,M3.5.0/-2,M10.5.0/-1")
        #expect(godthab.changes(inYears: 2026...2026).map(\.instant) == [1_774_746_000, 1_792_890_000])
        let late = try Rule(parsing: "XXX0YYY,M3.1.0/167,M10.1.0")
        // 2026-03-01 is a Sunday; 167 hours later is 2026-03-07T23:00Z.
        #expect(late.changes(inYears: 2026...2026).first?.instant == 1_772_924_400)
    }

    @Test func daylightSavingTimeAllYearStaysOn() throws {
        let always = try Rule(parsing: "EST5EDT4,0/0,J365/25")
        for instant: Int64 in [1_767_243_599, 1_767_243_600, 1_767_243_601, 1_782_864_000, 1_798_779_600] {
            #expect(always.offset(at: instant) == -14_400, "\(instant)")
        }
    }

    @Test func julianDaysSkipFebruary29AndZeroBasedDaysCountIt() throws {
        let julian = try Rule(parsing: "XXX0YYY,J60/0,J300/0")
        let zeroBased = try Rule(parsing: "XXX0YYY,59/0,300/0")
        #expect(julian.changes(inYears: 2024...2024).first?.instant == 1_709_251_200, "2024-03-01")
        #expect(zeroBased.changes(inYears: 2024...2024).first?.instant == 1_709_164_800, "2024-02-29")
        #expect(julian.changes(inYears: 2026...2026).first?.instant == 1_772_323_200, "2026-03-01")
        #expect(zeroBased.changes(inYears: 2026...2026).first?.instant == 1_772_323_200, "2026-03-01")
    }

    @Test func weekFiveIsTheLastWeekOfTheMonth() throws {
        // February 2026 has four Sundays (the 22nd is the last); May 2026 has five (the 31st).
        let rule = try Rule(parsing: "XXX0YYY,M2.5.0/0,M5.5.0/0")
        #expect(rule.changes(inYears: 2026...2026).map(\.instant) == [1_771_718_400, 1_780_182_000])
    }

    @Test func extremeInstantsDoNotOverflow() throws {
        let madrid = try Rule(parsing: "CET-1CEST,M3.5.0,M10.5.0/3")
        #expect([3600, 7200].contains(madrid.offset(at: .max)))
        #expect([3600, 7200].contains(madrid.offset(at: .min)))
    }
}
