import Foundation
import MotionCore
import Testing

@testable import MotionWire

/// The reader's fast paths against its general ones and against `Double(String)`: plain numbers (Clinger's fast
/// path), strings scanned eight bytes at a time, member names compared by words, and `[x, y]` pairs.
@Suite struct FastPathTests {
    /// The value `text` reads as, or nil when it is not a number.
    private func number(_ text: String) throws -> Double? {
        guard case .number(let value) = try JSONValue.parse(bytes(text)) else { return nil }
        return value
    }

    @Test(arguments: [
        // Around 2^53, where a mantissa stops being exact in a Double.
        "9007199254740991", "9007199254740992", "9007199254740993", "9007199254740994", "9007199254740995",
        "900719925474099.3e1", "9007199254740993e-1", "18014398509481985", "4503599627370497.5",
        // Around 10^22, the largest exact power of ten.
        "1e22", "1e-22", "1e23", "1e-23", "9e22", "9e-22", "123456789012345e22", "123456789012345e-22",
        "1E+022", "1e0000000022", "8.9884656743115795e307",
        // Classic cases and range ends.
        "0.1", "0.2", "0.3", "5e-324", "4.9406564584124654e-324", "2.4703282292062327e-324",
        "2.2250738585072011e-308", "2.2250738585072014e-308", "1.7976931348623157e308",
        // 19 and 20 digits: the fast scan takes 19 (128-bit path above 2^53) and leaves 20 to the general one.
        "1234567890123456789", "9999999999999999999", "0.9999999999999999999", "12345678901234567890",
        "0.12345678901234567890", "1.00000000000000011102230246251565404236316680908203125",
        // Trailing, leading and only zeros; negative zero.
        "100.000", "1.50000000000000000000", "0.000001", "0.0000000000000000000000000001", "1000000000000000000000",
        "0", "-0", "-0.0", "0e0", "-0e5", "0e400", "-0e-400", "0.000e-5", "-0.000000000000000000000",
        // Short decimals as detectors send them.
        "640.12", "-200.55", "0.987", "1e-7", "7e-1", "612.5e0", "1e400", "-1e400", "1e-400",
    ])
    func readsBoundaryNumbersCorrectlyRounded(_ text: String) throws {
        let expected = try #require(Double(text))
        let actual = try #require(try number(text))
        #expect(actual.bitPattern == expected.bitPattern, "\(text): \(actual) ≠ \(expected)")
    }

    @Test func readsRandomShortDecimalsExactlyAsDoubleParsing() throws {
        var random = SeededGenerator(seed: 0xC11_4E12)
        func digits(_ count: Int) -> String {
            String((0..<count).map { _ in Character(String(Int.random(in: 0...9, using: &random))) })
        }
        for _ in 0..<60_000 {
            var text = Bool.random(using: &random) ? "-" : ""
            if Int.random(in: 0..<5, using: &random) == 0 {
                text += "0"
            } else {
                text += String(Int.random(in: 1...9, using: &random)) + digits(Int.random(in: 0...11, using: &random))
            }
            if Bool.random(using: &random) {
                // Fractions with leading and trailing zeros: 0.000123, 1.2300.
                let zeros = Int.random(in: 0..<4, using: &random) == 0 ? Int.random(in: 1...6, using: &random) : 0
                text += "." + String(repeating: "0", count: zeros) + digits(Int.random(in: 1...9, using: &random))
                if Int.random(in: 0..<4, using: &random) == 0 { text += String(repeating: "0", count: 3) }
            }
            if Int.random(in: 0..<3, using: &random) == 0 {
                let exponent = Int.random(in: -40...40, using: &random)
                let sign = exponent < 0 ? "-" : Bool.random(using: &random) ? "+" : ""
                text += (Bool.random(using: &random) ? "e" : "E") + sign + String(abs(exponent))
            }
            let expected = try #require(Double(text))
            guard let actual = try number(text), actual.bitPattern == expected.bitPattern else {
                Issue.record("\(text) read differently from Double(String)")
                return
            }
        }
    }

    @Test func plainScanAgreesWithTheGeneralScan() throws {
        var random = SeededGenerator(seed: 0x5CA_7711)
        let alphabet = Array("0123456789012345678901234567890123456789-+.eE x]")
        var plain = 0
        for _ in 0..<60_000 {
            let length = Int.random(in: 1...24, using: &random)
            let input = bytes(String((0..<length).map { _ in alphabet.randomElement(using: &random) ?? "0" }))
            input.withUnsafeBytes { raw in
                guard var fast = try? JSONReader(raw, limits: WireLimits()),
                    var general = try? JSONReader(raw, limits: WireLimits())
                else { return }
                guard let token = fast.scanPlainNumber() else {
                    #expect(fast.offset == 0, "a failed fast scan moved on \(text(input).debugDescription)")
                    return
                }
                plain += 1
                guard let expected = try? general.scanNumber() else {
                    Issue.record("fast scan accepted what the general one rejects: \(text(input).debugDescription)")
                    return
                }
                #expect(fast.offset == general.offset, "\(text(input).debugDescription)")
                #expect(
                    fast.value(of: token).bitPattern == general.value(of: expected).bitPattern,
                    "\(text(input).debugDescription)")
            }
        }
        #expect(plain > 10_000, "the alphabet should give many plain numbers")
    }

    @Test func scansStringsWithASpecialByteAtEveryOffset() throws {
        for length in 1...20 {
            for position in 0..<length {
                func input(_ special: [UInt8]) -> [UInt8] {
                    var body = [UInt8](repeating: UInt8(ascii: "a"), count: length)
                    body.replaceSubrange(position...position, with: special)
                    return [UInt8(ascii: "\"")] + body + [UInt8(ascii: "\"")]
                }
                func expected(_ replacement: String) -> JSONValue {
                    .string(
                        String(repeating: "a", count: position) + replacement
                            + String(repeating: "a", count: length - position - 1))
                }
                #expect(try JSONValue.parse(input(Array(#"\n"#.utf8))) == expected("\n"))
                #expect(try JSONValue.parse(input(Array(#"\""#.utf8))) == expected("\""))
                #expect(try JSONValue.parse(input(Array("é".utf8))) == expected("é"))
                // Bytes next to the special ones are plain.
                for plain in [0x20, 0x21, 0x23, 0x5B, 0x5D, 0x7F] as [UInt8] {
                    #expect(try JSONValue.parse(input([plain])) == expected(String(UnicodeScalar(plain))))
                }
                for (byte, reason) in [
                    (0x1F, .unescapedControlCharacter), (0x00, .unescapedControlCharacter),
                    (0xFF, .invalidUTF8), (0x80, .invalidUTF8),
                ] as [(UInt8, JSONError.Reason)] {
                    #expect(throws: JSONError(offset: position + 1, reason: reason)) {
                        try JSONValue.parse(input([byte]))
                    }
                }
                // The closing quote itself, early: the rest is trailing bytes.
                #expect(throws: JSONError(offset: position + 2, reason: .trailingBytes)) {
                    try JSONValue.parse(input([UInt8(ascii: "\"")]))
                }
            }
        }
    }

    @Test func comparesMemberNamesOfEveryLength() throws {
        let names: [StaticString] = [
            "a", "ab", "abc", "abcd", "abcde", "abcdef", "abcdefg", "abcdefgh", "abcdefghi", "abcdefghij",
            "abcdefghijk", "abcdefghijkl", "abcdefghijklm", "abcdefghijklmn", "abcdefghijklmno", "abcdefghijklmnop",
            "abcdefghijklmnopq", "abcdefghijklmnopqrstuvwxy",
        ]
        for name in names {
            let text = name.description
            var candidates = [text, text + "z", String(text.dropLast())]
            for position in text.indices {
                var changed = text
                changed.replaceSubrange(position...position, with: "A")
                candidates.append(changed)
            }
            for candidate in candidates {
                let input = bytes("{\"\(candidate)\":1}")
                let matches = try input.withUnsafeBytes { raw throws(JSONError) -> Bool in
                    var reader = try JSONReader(raw, limits: WireLimits())
                    try reader.beginObject()
                    var first = true
                    guard let key = try reader.nextKey(&first) else { return false }
                    return reader.key(key, is: name)
                }
                #expect(matches == (candidate == text), "\(candidate) against \(text)")
            }
        }
    }

    @Test func readsJointNamesExactly() throws {
        for joint in Joint.allCases {
            let name = joint.rawValue
            let pose = try PoseDecoder().decodePose(bytes(#"{"t":1,"points":{"\#(name)":[1,2]}}"#))
            #expect(pose[joint] == Point(x: 1, y: 2), "\(name)")
            var nearMisses = [name + "s", String(name.dropLast()), name.uppercased()]
            for position in name.indices {
                var changed = name
                changed.replaceSubrange(position...position, with: "_")
                nearMisses.append(changed)
            }
            for miss in nearMisses {
                let other = try PoseDecoder().decodePose(bytes(#"{"t":1,"points":{"\#(miss)":[1,2]}}"#))
                #expect(other.isEmpty, "\(miss) read as a joint")
            }
        }
    }

    @Test(arguments: [
        (#"[1,2]"#, Point(x: 1, y: 2)), (#"[ 1.5 , -0.25 ]"#, Point(x: 1.5, y: -0.25)),
        ("[\n\t640.12,\r200.55\n]", Point(x: 640.12, y: 200.55)), (#"[1e2,2E-1]"#, Point(x: 100, y: 0.2)),
        (#"[0.12345678901234567890,2]"#, Point(x: 0.12345678901234567890, y: 2)),
        (#"[-0.0,0]"#, Point(x: -0.0, y: 0)),
    ])
    func readsPointPairsInAnyLayout(_ pair: String, _ expected: Point) throws {
        let pose = try PoseDecoder().decodePose(bytes(#"{"t":1,"points":{"nose":\#(pair)}}"#))
        let point = try #require(pose[.nose])
        #expect(point.x.bitPattern == expected.x.bitPattern && point.y.bitPattern == expected.y.bitPattern)
    }

    @Test(arguments: [
        (#"[1,2,3]"#, ErrorCode.invalidPose), (#"[1]"#, .invalidPose), (#"[]"#, .invalidPose),
        (#"[1,"2"]"#, .invalidPose), (#"{"x":1}"#, .invalidPose), (#"[1e400,2]"#, .invalidPose),
        (#"[12345678901234567890,1]"#, .invalidPose), (#"[01,2]"#, .invalidJSON), (#"[1.,2]"#, .invalidJSON),
        (#"[1,2,]"#, .invalidJSON), (#"[1 2]"#, .invalidJSON), (#"[-,2]"#, .invalidJSON), (#"[1,2"#, .invalidJSON),
    ])
    func rejectsMalformedPointPairsAsBefore(_ pair: String, _ code: ErrorCode) {
        let error = wireError { () throws(WireError) in
            try PoseDecoder().decodePose(bytes(#"{"t":1,"points":{"nose":\#(pair)}}"#))
        }
        #expect(error?.code == code, "\(pair): \(String(describing: error))")
        if code == .invalidPose, pair.hasPrefix("[1") || pair.hasPrefix("[]") || pair.hasPrefix("{") {
            #expect(error?.message.contains("nose") == true)
        }
    }

    @Test func keepsReadingAfterAFallback() throws {
        let json = #"{"t":1,"points":{"nose":[0.1234567890123456789012,2],"neck":[3,4]},"confidence":{"neck":1E0}}"#
        let pose = try PoseDecoder().decodePose(bytes(json))
        #expect(pose[.nose] == Point(x: 0.1234567890123456789012, y: 2))
        #expect(pose[.neck] == Point(x: 3, y: 4))
        #expect(pose.confidence(of: .neck) == 1)
    }
}
