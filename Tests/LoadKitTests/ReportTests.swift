import LoadKit
import Testing

@Suite struct ReportTests {
    // MARK: fixed

    /// Fixed decimals, padded with zeros, three by default. The inputs are exact binary fractions so that the
    /// expected rounding (half away from zero) does not depend on representation error.
    @Test(
        arguments: [
            (12.5, 3, "12.500"),
            (0, 3, "0.000"),
            (1, 2, "1.00"),
            (2.0625, 3, "2.063"),
            (2.0625, 4, "2.0625"),
            (0.0625, 3, "0.063"),
            (0.03125, 5, "0.03125"),
            (0.03125, 2, "0.03"),
            (0.125, 2, "0.13"),
            (1_048_576.25, 1, "1048576.3"),
            (0.0009765625, 9, "0.000976563"),
        ] as [(Double, Int, String)])
    func fixedRoundsToTheGivenPlaces(value: Double, places: Int, expected: String) {
        #expect(Report.fixed(value, places) == expected)
    }

    @Test func fixedUsesThreePlacesByDefault() {
        #expect(Report.fixed(12.5) == "12.500")
        #expect(Report.fixed(0.0625) == "0.063")
    }

    @Test func fixedWithZeroPlacesHasNoDecimalPoint() {
        #expect(Report.fixed(7, 0) == "7")
        #expect(Report.fixed(2.5, 0) == "3")
        #expect(Report.fixed(0.25, 0) == "0")
        #expect(Report.fixed(-2.5, 0) == "-3")
        #expect(Report.fixed(1_000_000, 0) == "1000000")
    }

    /// Negative numbers get a sign, unless they round to zero (no `-0.000`).
    @Test func fixedHandlesNegatives() {
        #expect(Report.fixed(-1.5, 1) == "-1.5")
        #expect(Report.fixed(-2.0625, 3) == "-2.063")
        #expect(Report.fixed(-0.0625, 3) == "-0.063")
        #expect(Report.fixed(-0.0001, 3) == "0.000")
        #expect(Report.fixed(-0.0, 2) == "0.00")
    }

    /// Not-a-number and infinities are not JSON numbers: they become `null`.
    @Test(arguments: [Double.nan, .infinity, -.infinity, .signalingNaN])
    func fixedWritesNullForNonFiniteValues(value: Double) {
        #expect(Report.fixed(value) == "null")
        #expect(Report.fixed(value, 0) == "null")
    }

    /// Values too large to scale into an integer fall back to Swift's own description rather than trapping.
    @Test func fixedFallsBackForHugeValues() {
        #expect(Report.fixed(1e20) == "1e+20")
        #expect(Report.fixed(-1e20, 0) == "-1e+20")
    }

    @Test func millisecondsHaveThreeDecimals() {
        #expect(Report.milliseconds(0) == "0.000")
        #expect(Report.milliseconds(1_250_000) == "1.250")
        #expect(Report.milliseconds(2_000) == "0.002")
        #expect(Report.milliseconds(12_345_678_000) == "12345.678")
    }

    // MARK: string

    @Test func stringQuotesPlainText() {
        #expect(Report.string("") == "\"\"")
        #expect(Report.string("hello world") == "\"hello world\"")
    }

    /// Quotes and backslashes are escaped; control characters (below U+0020) become spaces; everything else,
    /// including non-ASCII text, passes through.
    @Test func stringEscapesQuotesBackslashesAndControlCharacters() {
        #expect(Report.string("say \"hi\"") == #""say \"hi\"""#)
        #expect(Report.string(#"C:\dir\"#) == #""C:\\dir\\""#)
        #expect(Report.string("a\nb\tc\r\u{0}d\u{1F}e") == "\"a b c  d e\"")
        #expect(Report.string("\u{7F} ~") == "\"\u{7F} ~\"")
        #expect(Report.string("é ✓ 🏋️") == "\"é ✓ 🏋️\"")
    }

    // MARK: counts

    /// Largest count first; equal counts by name, so the output does not depend on dictionary order.
    @Test func countsAreOrderedByCountThenName() {
        let counts = ["timeout": 1, "rateLimited": 3, "closed": 3, "refused": 2]
        #expect(Report.counts(counts) == #"{"closed":3,"rateLimited":3,"refused":2,"timeout":1}"#)
    }

    @Test func countsKeepAtMostTheLimit() {
        let counts = Dictionary(uniqueKeysWithValues: (1...12).map { ("e\($0)", $0) })
        // The default limit is eight: the eight largest.
        #expect(
            Report.counts(counts)
                == #"{"e12":12,"e11":11,"e10":10,"e9":9,"e8":8,"e7":7,"e6":6,"e5":5}"#)
        #expect(Report.counts(counts, limit: 2) == #"{"e12":12,"e11":11}"#)
        #expect(Report.counts(counts, limit: 0) == "{}")
        #expect(Report.counts(["only": 1], limit: 5) == #"{"only":1}"#)
    }

    @Test func countsEscapeNamesAndHandleEmpty() {
        #expect(Report.counts([:]) == "{}")
        #expect(Report.counts(["say \"no\"": 4]) == #"{"say \"no\"":4}"#)
    }

    // MARK: json

    /// Fields appear in the given order, with their values inserted as they are (already JSON).
    @Test func jsonJoinsFieldsInOrder() {
        #expect(Report.json([]) == "{}")
        #expect(Report.json([("a", "1")]) == #"{"a":1}"#)
        #expect(
            Report.json([
                ("zeta", Report.string("z")), ("alpha", Report.fixed(0.5, 1)), ("none", Report.fixed(.nan)),
                ("nested", Report.json([("n", "true")])),
            ]) == #"{"zeta":"z","alpha":0.5,"none":null,"nested":{"n":true}}"#)
    }
}
