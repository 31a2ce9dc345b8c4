import Basics
import Foundation
import Testing

@Suite struct JSONStringTests {
    static func quoted(_ text: String) -> String {
        var bytes = Array("[".utf8)
        bytes.appendJSONString(text)
        #expect(bytes.first == UInt8(ascii: "["), "appends to what is there")
        return String(decoding: bytes.dropFirst(), as: UTF8.self)
    }

    static func escaped(_ text: String) -> String {
        var bytes: [UInt8] = []
        bytes.appendJSONEscaped(text)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// What RFC 8259 §7 allows, with its short escapes: the reference the writer is checked against.
    static func reference(_ scalar: Unicode.Scalar) -> String {
        switch scalar.value {
        case 0x22: return #"\""#
        case 0x5C: return #"\\"#
        case 0x0A: return #"\n"#
        case 0x0D: return #"\r"#
        case 0x09: return #"\t"#
        case 0x08: return #"\b"#
        case 0x0C: return #"\f"#
        case ..<0x20:
            let hex = String(scalar.value, radix: 16)
            return #"\u"# + String(repeating: "0", count: 4 - hex.count) + hex
        default: return String(scalar)
        }
    }

    @Test func writesEveryControlCharacterEscaped() {
        for value in UInt32(0)..<0x20 {
            let scalar = Unicode.Scalar(value)!
            #expect(Self.escaped("a" + String(scalar) + "b") == "a" + Self.reference(scalar) + "b")
        }
        #expect(Self.quoted("\u{0}\u{1}\u{1F}\u{8}\u{C}") == #""\u0000\u0001\u001f\b\f""#)
    }

    @Test func keepsWhatJSONAllowsAsItIs() {
        // `/`, DEL, C1 controls and the JavaScript line separators are valid in a JSON string unescaped.
        let allowed = "/ \u{7F} \u{85} \u{2028} \u{2029} é 日本 😀 ' < > &"
        #expect(Self.quoted(allowed) == "\"" + allowed + "\"")
        #expect(Self.quoted("") == #""""#)
    }

    @Test func escapesQuotesAndBackslashesOfEscapesThatAreAlreadyThere() {
        #expect(Self.quoted(#"say "hi""#) == #""say \"hi\"""#)
        #expect(Self.quoted(#"\u0041 \n \\ \"#) == #""\\u0041 \\n \\\\ \\""#, "an escape in the text is text")
        #expect(Self.quoted(String(repeating: "\"", count: 4)) == #""\"\"\"\"""#)
    }

    @Test func matchesTheReferenceOnLongAndRandomText() throws {
        var random = SeededRandom(seed: 8259)
        let pool: [Unicode.Scalar] =
            (0..<0x80).compactMap(Unicode.Scalar.init) + ["é", "\u{2028}", "\u{FEFF}", "😀", "\u{10FFFF}"]
        for length in [1, 2, 31, 1000, 100_000] {
            let scalars = (0..<length).map { _ in pool[Int(random.next() % UInt64(pool.count))] }
            let text = String(String.UnicodeScalarView(scalars))
            #expect(Self.escaped(text) == scalars.map { Self.reference($0) }.joined())
            // And a JSON parser reads back the very text.
            let decoded = try JSONDecoder().decode(String.self, from: Data(Self.quoted(text).utf8))
            #expect(decoded == text)
        }
    }
}
