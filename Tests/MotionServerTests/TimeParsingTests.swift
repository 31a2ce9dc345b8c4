import Testing

@testable import MotionServer

/// `from`/`to` query values (docs/protocol.md §5): ISO-8601 UTC dates and times, or Unix seconds.
@Suite("TimeParsing")
struct TimeParsingTests {
    @Test(
        arguments: [
            ("1970-01-01", 0),
            ("2026-11-29", 1_795_910_400_000),
            ("2026-11-29T14:00:00Z", 1_795_960_800_000),
            ("2026-11-29t14:00:00z", 1_795_960_800_000),
            ("2026-11-29T14:00:00.5Z", 1_795_960_800_500),
            ("2026-11-29T14:00:00.123456789Z", 1_795_960_800_123),
            ("2026-11-29T14:00:00+05:30", 1_795_941_000_000),
            ("2026-11-29T14:00:00-08:00", 1_795_989_600_000),
            ("2026-11-29T14:00:00.250+00:00", 1_795_960_800_250),
            ("2026-11-29T23:59:60Z", 1_795_996_800_000),
            ("1969-12-31T23:59:59Z", -1_000),
        ] as [(String, Int64)])
    func readsISO8601(text: String, milliseconds: Int64) {
        #expect(TimeParsing.unixMilliseconds(text) == milliseconds)
    }

    @Test(
        arguments: [
            ("0", 0), ("1795960800", 1_795_960_800_000), ("1795960800.25", 1_795_960_800_250), ("-1", -1_000),
            ("99999999999", 99_999_999_999_000), ("2026", 2_026_000),
        ] as [(String, Int64)])
    func readsUnixSeconds(text: String, milliseconds: Int64) {
        // A bare number, even one that looks like a year, is seconds since 1970.
        #expect(TimeParsing.unixMilliseconds(text) == milliseconds)
    }

    @Test(arguments: [
        "", " ", "2026-11", "2026-11-2", "2026/11/29", "2026-00-29", "2026-13-01", "2026-11-00",
        "2026-11-32", "2026-11-29T", "2026-11-29T14:00", "2026-11-29T14:00:00", "2026-11-29 14:00:00Z",
        "2026-11-29T24:00:00Z", "2026-11-29T14:60:00Z", "2026-11-29T14:00:61Z", "2026-11-29T14:00:00ZZ",
        "2026-11-29T14:00:00Z ", "2026-11-29T14:00:00+05", "2026-11-29T14:00:00+0530", "2026-11-29T14:00:00+05:3x",
        "2026-11-29T14:00:00.", "2026-11-29T14:00:00.5", "+2026-11-29", "２０２６-11-29", "2026-11-29T1４:00:00Z",
        "nan", "inf", "-inf", "1e11", "-1e11", "100000000000", "99999999999999999999999999999",
        "1e400", "now", "yesterday",
    ])
    func refusesMalformedOrOutOfRange(text: String) {
        #expect(TimeParsing.unixMilliseconds(text) == nil, "\(text)")
    }

    @Test func longFractionsAreCutToMilliseconds() {
        let text = "2026-11-29T14:00:00." + String(repeating: "9", count: 10_000) + "Z"
        #expect(TimeParsing.unixMilliseconds(text) == 1_795_960_800_999)
    }

    @Test(arguments: ["2026-02-29", "2026-02-31", "2026-04-31T00:00:00Z", "2026-13-01", "2026-00-10", "2026-01-00"])
    func refusesDatesThatDoNotExist(text: String) {
        #expect(TimeParsing.unixMilliseconds(text) == nil)
    }
}
