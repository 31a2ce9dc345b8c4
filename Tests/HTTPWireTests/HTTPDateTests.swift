import HTTPWire
import Testing

@Suite("IMF-fixdate")
struct HTTPDateTests {
    @Test(
        "known Unix times format as IMF-fixdate",
        arguments: [
            (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),
            (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
            (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
            (1_709_208_000, "Thu, 29 Feb 2024 12:00:00 GMT"),
            (-1, "Wed, 31 Dec 1969 23:59:59 GMT"),
            (253_402_300_799, "Fri, 31 Dec 9999 23:59:59 GMT"),
            (1_700_000_000, "Tue, 14 Nov 2023 22:13:20 GMT"),
        ]
    )
    func formatsKnownTimes(unixTime: Int, expected: String) {
        #expect(HTTPDate.imfFixdate(unixTime: unixTime) == expected)
    }

    @Test("times outside four-digit years are clamped")
    func clampsExtremes() {
        #expect(HTTPDate.imfFixdate(unixTime: Int.max) == "Fri, 31 Dec 9999 23:59:59 GMT")
        #expect(HTTPDate.imfFixdate(unixTime: Int.min) == "Mon, 01 Jan 0001 00:00:00 GMT")
    }

    @Test("writing into a buffer appends exactly 29 bytes")
    func writesIntoBuffer() {
        var buffer = bytes("Date: ")
        HTTPDate.writeIMFFixdate(unixTime: 784_111_777, into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == "Date: Sun, 06 Nov 1994 08:49:37 GMT")
    }

    @Test("consecutive days advance the weekday across a whole leap-year cycle")
    func weekdaysCycle() {
        let names = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
        for day in 0..<(366 * 4) {
            let text = HTTPDate.imfFixdate(unixTime: day * 86_400 + 3_599)
            #expect(text.hasPrefix(names[day % 7]))
            #expect(text.utf8.count == 29)
        }
    }
}

@Suite("HTTP-date parsing")
struct HTTPDateParsingTests {
    @Test(arguments: [
        "Sun, 06 Nov 1994 08:49:37 GMT", "Sunday, 06-Nov-94 08:49:37 GMT", "Sun Nov  6 08:49:37 1994",
    ])
    func acceptsAllThreeFormsOfTheSameInstant(text: String) {
        #expect(HTTPDate.parse(text) == 784_111_777)
    }

    @Test func roundTripsFormattedDates() {
        for time in [0, 951_782_400, 1_709_164_800, 1_795_000_000] {
            #expect(HTTPDate.parse(HTTPDate.imfFixdate(unixTime: time)) == time)
        }
    }

    @Test(arguments: [
        "", "yesterday", "Sun, 06 Nov 1994", "Sun, 32 Nov 1994 08:49:37 GMT", "Sun, 06 Foo 1994 08:49:37 GMT",
        "Sun, 06 Nov 1994 25:49:37 GMT", "Sun, 06 Nov 1994 08:49 GMT", "Sun, 06 Nov 1994 08:49:37 PST",
        "Sun, 06 Nov 19945 08:49:37 GMT",
    ])
    func refusesMalformedDates(text: String) {
        #expect(HTTPDate.parse(text) == nil)
    }
}
