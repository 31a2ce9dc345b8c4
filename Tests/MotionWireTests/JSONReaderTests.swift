import Foundation
import Testing

@testable import MotionWire

@Suite struct JSONReaderTests {
    private func parse(_ text: String, limits: WireLimits = WireLimits()) throws(JSONError) -> JSONValue {
        try JSONValue.parse(bytes(text), limits: limits)
    }

    private func error(_ text: String, limits: WireLimits = WireLimits()) -> JSONError? {
        do {
            _ = try parse(text, limits: limits)
            return nil
        } catch {
            return error
        }
    }

    @Test func readsEveryKindOfValue() throws {
        let value = try parse(#" {"a":[1,-2.5,true,false,null,"x"],"b":{},"c":[]} "#)
        #expect(
            value
                == .object([
                    "a": .array([.number(1), .number(-2.5), .bool(true), .bool(false), .null, .string("x")]),
                    "b": .object([:]), "c": .array([]),
                ]))
    }

    @Test func acceptsAnyValueAtTopLevel() throws {
        #expect(try parse("1") == .number(1))
        #expect(try parse("\"s\"") == .string("s"))
        #expect(try parse(" null\r\n\t") == .null)
    }

    @Test func keepsTheLastOfDuplicateMembers() throws {
        #expect(try parse(#"{"a":1,"a":2}"#) == .object(["a": .number(2)]))
    }

    @Test(arguments: [
        "0", "-0", "1", "-1", "0.5", "1e10", "1E-10", "1e+10", "123.456e-7", "0.1", "0.2", "0.30000000000000004",
        "9007199254740991", "9007199254740992", "9007199254740993", "1e22", "1e23", "123456789012345678901234567890",
        "4.9406564584124654e-324", "5e-324", "2.2250738585072011e-308", "2.2250738585072014e-308",
        "1.7976931348623157e308", "179769313486231580793728971405301e275", "0.000000000000000000001", "1e-400",
        "612.5", "0.98", "12.345", "1280", "-0.0000", "100000000000000000000000000000000000000000001e-45",
    ])
    func readsNumbersCorrectlyRounded(_ number: String) throws {
        let expected = try #require(Double(number))
        let value = try parse(number)
        guard case .number(let actual) = value else {
            Issue.record("not a number: \(value)")
            return
        }
        #expect(actual.bitPattern == expected.bitPattern, "\(number): \(actual) ≠ \(expected)")
    }

    @Test func readsRandomDecimalsExactlyAsDoubleParsing() throws {
        var random = SeededGenerator(seed: 42)
        for _ in 0..<20_000 {
            let digits = Int.random(in: 1...20, using: &random)
            var text = Bool.random(using: &random) ? "-" : ""
            text += String(Int.random(in: 1...9, using: &random))
            for _ in 1..<digits { text += String(Int.random(in: 0...9, using: &random)) }
            if Bool.random(using: &random) {
                text += "."
                for _ in 0..<Int.random(in: 1...8, using: &random) {
                    text += String(Int.random(in: 0...9, using: &random))
                }
            }
            if Int.random(in: 0..<3, using: &random) == 0 { text += "e\(Int.random(in: -30...30, using: &random))" }
            let expected = try #require(Double(text))
            guard case .number(let actual) = try parse(text), actual.bitPattern == expected.bitPattern else {
                Issue.record("\(text) read differently from Double(String)")
                return
            }
        }
    }

    @Test func readsLongShortestRoundTripNumbersExactly() throws {
        var random = SeededGenerator(seed: 4242)
        for round in 0..<50_000 {
            let value: Double
            switch round % 4 {
            case 0: value = Double.random(in: 0..<1, using: &random)
            case 1: value = Double.random(in: -2000..<2000, using: &random)
            case 2: value = Double(bitPattern: random.next())
            default:
                // Ties and near-ties: 17–19 digits ending in 5 around powers of ten.
                let digits = UInt64.random(in: 10_000_000_000_000_000...9_999_999_999_999_999_999, using: &random)
                let text = "\(digits / 10 * 10 + 5)e\(Int.random(in: -38...0, using: &random))"
                let expected = try #require(Double(text))
                guard case .number(let actual) = try parse(text), actual.bitPattern == expected.bitPattern else {
                    Issue.record("\(text) read differently from Double(String)")
                    return
                }
                continue
            }
            guard value.isFinite else { continue }
            let text = value.description
            guard case .number(let actual) = try parse(text), actual.bitPattern == value.bitPattern else {
                Issue.record("\(text) did not read back as the same Double")
                return
            }
        }
    }

    @Test func keepsTheSignOfNegativeZero() throws {
        guard case .number(let value) = try parse("-0") else {
            Issue.record("not a number")
            return
        }
        #expect(value == 0 && value.sign == .minus)
    }

    @Test func readsOverflowingNumbersAsInfinity() throws {
        #expect(try parse("1e400") == .number(.infinity))
        #expect(try parse("-1e400") == .number(-.infinity))
        #expect(try parse("1e-400") == .number(0))
    }

    @Test func decodesEscapesAndSurrogatePairs() throws {
        #expect(try parse(#""\"\\\/\b\f\n\r\t""#) == .string("\"\\/\u{8}\u{C}\n\r\t"))
        #expect(try parse(#""\u0041\u00e9\u20AC\uD83D\uDE00""#) == .string("Aé€😀"))
        #expect(try parse(#""\u0000""#) == .string("\u{0}"))
        #expect(try parse("\"日本😀\"") == .string("日本😀"))
    }

    @Test func comparesEscapedMemberNamesByTheirText() throws {
        #expect(try parse(#"{"\u0074":1}"#) == .object(["t": .number(1)]))
        let pose = try PoseDecoder().decodePose(bytes(#"{"\u0074":1.5,"points":{"right\u0045lbow":[1,2]}}"#))
        #expect(pose.timestamp == 1.5)
        #expect(pose[.rightElbow] != nil)
    }

    @Test(arguments: [
        ("", JSONError(offset: 0, reason: .unexpectedEnd)),
        ("   ", JSONError(offset: 3, reason: .unexpectedEnd)),
        ("[1,2", JSONError(offset: 4, reason: .unexpectedEnd)),
        ("{\"a\":1", JSONError(offset: 6, reason: .unexpectedEnd)),
        ("\"abc", JSONError(offset: 4, reason: .unexpectedEnd)),
        ("[1 2]", JSONError(offset: 3, reason: .unexpectedByte)),
        ("[1,]", JSONError(offset: 3, reason: .unexpectedByte)),
        ("{\"a\":1,}", JSONError(offset: 7, reason: .expectedKey)),
        ("{a:1}", JSONError(offset: 1, reason: .expectedKey)),
        ("{\"a\" 1}", JSONError(offset: 5, reason: .expectedColon)),
        ("NaN", JSONError(offset: 0, reason: .invalidLiteral)),
        ("Infinity", JSONError(offset: 0, reason: .invalidLiteral)),
        ("-Infinity", JSONError(offset: 1, reason: .invalidNumber)),
        ("tru", JSONError(offset: 3, reason: .unexpectedEnd)),
        ("trux", JSONError(offset: 3, reason: .invalidLiteral)),
        ("nul", JSONError(offset: 3, reason: .unexpectedEnd)),
        ("01", JSONError(offset: 1, reason: .invalidNumber)),
        ("1.", JSONError(offset: 2, reason: .unexpectedEnd)),
        ("1.e5", JSONError(offset: 2, reason: .invalidNumber)),
        (".5", JSONError(offset: 0, reason: .unexpectedByte)),
        ("+1", JSONError(offset: 0, reason: .unexpectedByte)),
        ("1e", JSONError(offset: 2, reason: .unexpectedEnd)),
        ("1e+x", JSONError(offset: 3, reason: .invalidNumber)),
        ("-", JSONError(offset: 1, reason: .unexpectedEnd)),
        ("0x10", JSONError(offset: 1, reason: .trailingBytes)),
        ("1 2", JSONError(offset: 2, reason: .trailingBytes)),
        ("{} x", JSONError(offset: 3, reason: .trailingBytes)),
        ("\"\\x\"", JSONError(offset: 1, reason: .invalidEscape)),
        ("\"\\u12G4\"", JSONError(offset: 5, reason: .invalidEscape)),
        ("\"\\ud800\"", JSONError(offset: 1, reason: .loneSurrogate)),
        ("\"\\udc00\"", JSONError(offset: 1, reason: .loneSurrogate)),
        ("\"\\ud800\\u0041\"", JSONError(offset: 1, reason: .loneSurrogate)),
        ("\"\\ud800\\ud800\"", JSONError(offset: 1, reason: .loneSurrogate)),
        ("\"a\u{1}b\"", JSONError(offset: 2, reason: .unescapedControlCharacter)),
        ("\"a\nb\"", JSONError(offset: 2, reason: .unescapedControlCharacter)),
        ("\u{FEFF}[]", JSONError(offset: 0, reason: .unexpectedByte)),
        ("\u{0B}1", JSONError(offset: 0, reason: .unexpectedByte)),
    ])
    func reportsSyntaxErrorsWithOffset(_ input: String, _ expected: JSONError) {
        #expect(error(input) == expected)
    }

    @Test(
        arguments: [
            [0x22, 0xFF, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xE2, 0x82, 0x22],
            [0x22, 0xF4, 0x90, 0x80, 0x80, 0x22], [0x22, 0x80, 0x22], [0x5B, 0xC3, 0xA9, 0x5D],
        ] as [[UInt8]])
    func rejectsInvalidUTF8(_ input: [UInt8]) {
        #expect(throws: JSONError.self) { try JSONValue.parse(input) }
    }

    @Test func acceptsEveryWellFormedUTF8Length() throws {
        let input: [UInt8] = [0x22, 0x41, 0xC3, 0xA9, 0xE2, 0x82, 0xAC, 0xF0, 0x9F, 0x98, 0x80, 0xEF, 0xBF, 0xBF, 0x22]
        #expect(try JSONValue.parse(input) == .string("Aé€😀\u{FFFF}"))
    }

    @Test func rejectsEveryProperPrefixOfADocument() throws {
        let document = #"{"type":"pose","t":1.5e0,"points":{"nose":[1,-2]},"s":"a\u00e9\"","n":[true,false,null]}"#
        let input = bytes(document)
        _ = try JSONValue.parse(input)
        for length in 0..<input.count {
            #expect(throws: JSONError.self, "prefix of \(length) bytes") {
                try JSONValue.parse(Array(input[..<length]))
            }
        }
    }

    @Test func enforcesTheDepthLimit() throws {
        let limits = WireLimits(maxDepth: 64)
        let ok = String(repeating: "[", count: 64) + String(repeating: "]", count: 64)
        _ = try parse(ok, limits: limits)
        let deep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(error(deep, limits: limits) == JSONError(offset: 64, reason: .tooDeep))
        let mixed = String(repeating: "{\"a\":[", count: 40) + "1" + String(repeating: "]}", count: 40)
        #expect(error(mixed, limits: limits)?.reason == .tooDeep)
        let hostile = String(repeating: "[", count: 100_000)
        #expect(error(hostile, limits: limits)?.reason == .tooDeep)
    }

    @Test func enforcesTheSizeLimit() throws {
        let limits = WireLimits(maxMessageBytes: 16)
        _ = try parse("[1,2,3,4,5,6,7]", limits: limits)
        #expect(error("[1,2,3,4,5,6,7,8]", limits: limits) == JSONError(offset: 0, reason: .tooLarge))
        let huge = "[" + String(repeating: "1,", count: 600_000) + "1]"
        #expect(error(huge) == JSONError(offset: 0, reason: .tooLarge))
    }

    @Test func skipsUnknownMembersWithoutReadingThem() throws {
        let json = #"{"t":1,"extra":{"deep":[1,{"x":"\ud83d\ude00"}],"n":-1e-3},"more":[null]}"#
        #expect(try PoseDecoder().decodePose(bytes(json)).timestamp == 1)
    }
}
