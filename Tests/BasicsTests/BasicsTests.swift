import Basics
import Testing

@Suite struct CivilDateTests {
    @Test(arguments: [
        (1970, 1, 1, 0), (1969, 12, 31, -1), (2000, 2, 29, 11_016), (2000, 3, 1, 11_017), (2024, 2, 29, 19_782),
        (1600, 3, 1, -135_080), (1, 1, 1, -719_162), (0, 3, 1, -719_468), (0, 1, 1, -719_528),
        (9999, 12, 31, 2_932_896),
    ])
    func countsDaysOfTheProlepticGregorianCalendar(year: Int, month: Int, day: Int, days: Int) throws {
        let date = try #require(CivilDate(year: year, month: month, day: day))
        #expect(date.daysSinceEpoch == days)
        #expect(CivilDate(daysSinceEpoch: days) == date)
    }

    @Test func everyDayOfFourCenturiesFollowsTheDayBefore() throws {
        // Walk day by day from 1800-01-01 to 2200-12-31 with the calendar's own rules, both ways.
        var date = try #require(CivilDate(year: 1800, month: 1, day: 1))
        var days = date.daysSinceEpoch
        while date.year <= 2200 {
            #expect(CivilDate(daysSinceEpoch: days) == date)
            #expect(date.daysSinceEpoch == days)
            let next =
                CivilDate(year: date.year, month: date.month, day: date.day + 1)
                ?? CivilDate(year: date.year, month: date.month + 1, day: 1)
                ?? CivilDate(year: date.year + 1, month: 1, day: 1)
            date = try #require(next)
            days += 1
        }
    }

    @Test func refusesDaysThatDoNotExist() {
        #expect(CivilDate(year: 2026, month: 2, day: 29) == nil)
        #expect(CivilDate(year: 1900, month: 2, day: 29) == nil, "a century is a leap year only every 400 years")
        #expect(CivilDate(year: 2000, month: 2, day: 29) != nil)
        #expect(CivilDate(year: 2026, month: 4, day: 31) == nil)
        #expect(CivilDate(year: 2026, month: 13, day: 1) == nil)
        #expect(CivilDate(year: 2026, month: 0, day: 1) == nil)
        #expect(CivilDate(year: 2026, month: 1, day: 0) == nil)
        #expect(CivilDate(year: 2026, month: 1, day: 32) == nil)
        #expect(CivilDate(year: 2026, month: 1, day: .min) == nil)
    }
}

@Suite struct DecimalWritingTests {
    @Test(arguments: [
        (0, 1, "0"), (7, 2, "07"), (42, 1, "42"), (1234, 2, "1234"), (5, 4, "0005"), (10, 2, "10"), (99, 3, "099"),
        (Int.max, 1, "9223372036854775807"),
    ])
    func writesDigitsPaddedToTheWidth(value: Int, width: Int, expected: String) {
        var buffer: [UInt8] = Array("x".utf8)
        buffer.appendDecimal(value, width: width)
        #expect(String(decoding: buffer, as: UTF8.self) == "x" + expected)
    }
}

@Suite struct SeededRandomTests {
    @Test func isSplitMix64() {
        // The reference sequence for seed 0 (Vigna's splitmix64.c).
        var generator = SeededRandom(seed: 0)
        #expect(generator.next() == 0xE220_A839_7B1D_CDAF)
        #expect(generator.next() == 0x6E78_9E6A_A1B9_65F4)
        #expect(generator.next() == 0x06C4_5D18_8009_454F)
    }

    @Test func unitValuesStayInTheHalfOpenInterval() {
        var generator = SeededRandom(seed: 42)
        for _ in 0..<10_000 {
            let value = generator.unit()
            #expect(value >= 0 && value < 1)
        }
        var (one, other) = (SeededRandom(seed: 9), SeededRandom(seed: 9))
        #expect((0..<100).map { _ in one.next() } == (0..<100).map { _ in other.next() }, "one seed, one stream")
    }
}
