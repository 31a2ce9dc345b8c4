import Foundation
import Testing

@testable import MotionWire

/// Our reader against Foundation's `JSONSerialization` on seeded random documents and mutations of them.
///
/// Intentional divergences, excluded case by case below:
/// - Foundation accepts a trailing comma (`[1,]`, `{"a":1,}`); RFC 8259 §4–5 forbid it and so do we.
/// - Foundation accepts a leading byte order mark; RFC 8259 §8.1 lets a parser ignore it, we reject it (a
///   WebSocket text frame or a JSON body has no business starting with one).
/// - Foundation rejects numbers beyond `Double`'s range (`1e400`); they are valid JSON (RFC 8259 §6), so we read
///   them as ±infinity and leave the range check to the decoders (a pose answers `invalidPose`).
@Suite struct DifferentialTests {
    static let documentCount = 3000
    static let mutationsPerDocument = 2

    @Test func agreesWithFoundationOnGeneratedDocuments() throws {
        var random = SeededGenerator(seed: 0x5EED_1234)
        var compared = 0
        for _ in 0..<Self.documentCount {
            var document = ""
            JSONGenerator.appendValue(to: &document, depth: 0, using: &random)
            let input = bytes(JSONGenerator.whitespace(using: &random) + document)
            let ours = try JSONValue.parse(input)
            let theirs = try #require(Self.foundationValue(input), "Foundation rejected \(document)")
            #expect(ours == theirs, "differs on \(document)")
            compared += 1
        }
        #expect(compared == Self.documentCount)
    }

    @Test func acceptsMutatedInputIffFoundationDoes() throws {
        var random = SeededGenerator(seed: 0xF1_1B5)
        var compared = 0
        var excluded = 0
        var bothAccepted = 0
        for _ in 0..<Self.documentCount {
            var document = ""
            JSONGenerator.appendValue(to: &document, depth: 0, using: &random)
            for _ in 0..<Self.mutationsPerDocument {
                let input = JSONGenerator.mutate(bytes(document), using: &random)
                let ours = Result { () throws(JSONError) in try JSONValue.parse(input) }
                let theirs = Self.foundationValue(input)
                switch (ours, theirs) {
                case (.success(let value), let theirs?):
                    #expect(value == theirs, "differs on \(text(input).debugDescription)")
                    bothAccepted += 1
                case (.failure, nil):
                    break
                case (.failure(let error), _?):
                    if Self.isTrailingComma(input, at: error) || Self.startsWithByteOrderMark(input) {
                        excluded += 1
                        continue
                    }
                    Issue.record("we reject (\(error)) what Foundation accepts: \(text(input).debugDescription)")
                case (.success(let value), nil):
                    if value.containsInfinity {
                        excluded += 1
                        continue
                    }
                    Issue.record("we accept what Foundation rejects: \(text(input).debugDescription)")
                }
                compared += 1
            }
        }
        #expect(compared + excluded == Self.documentCount * Self.mutationsPerDocument)
        #expect(bothAccepted > 100, "mutations should leave some inputs valid")
    }

    @Test(arguments: [
        "[1,]", "{\"a\":1,}", "\u{FEFF}[1]", "1e400", "[-1e400]", "1.7976931348623159e308",
    ])
    func documentedDivergencesAreTheOnlyOnes(_ input: String) {
        let ours = Result { () throws(JSONError) in try JSONValue.parse(bytes(input)) }
        let theirs = Self.foundationValue(bytes(input))
        #expect((try? ours.get()) != theirs, "\(input) is listed as a divergence but both agree")
    }

    // MARK: Foundation

    /// Foundation's parse, normalised to a ``JSONValue``: numbers as exact `Double`s, booleans apart from 0/1.
    static func foundationValue(_ input: [UInt8]) -> JSONValue? {
        guard let object = try? JSONSerialization.jsonObject(with: Data(input), options: [.fragmentsAllowed]) else {
            return nil
        }
        return normalize(object)
    }

    private static func normalize(_ object: Any) -> JSONValue? {
        switch object {
        case is NSNull: return .null
        case let string as String: return .string(string)
        case let decimal as NSDecimalNumber:
            // NSDecimalNumber.doubleValue is not correctly rounded; its exact digits through Double(String) are.
            return Double(decimal.description).map(JSONValue.number)
        case let number as NSNumber:
            if String(cString: number.objCType) == "c" { return .bool(number.boolValue) }
            return .number(number.doubleValue)
        case let array as [Any]:
            var elements: [JSONValue] = []
            for element in array {
                guard let value = normalize(element) else { return nil }
                elements.append(value)
            }
            return .array(elements)
        case let dictionary as [String: Any]:
            var members: [String: JSONValue] = [:]
            for (key, element) in dictionary {
                guard let value = normalize(element) else { return nil }
                members[key] = value
            }
            return .object(members)
        default: return nil
        }
    }

    /// Whether `error` is our rejection of a trailing comma: a closing bracket right after a comma.
    private static func isTrailingComma(_ input: [UInt8], at error: JSONError) -> Bool {
        guard error.offset < input.count, [UInt8(ascii: "]"), UInt8(ascii: "}")].contains(input[error.offset])
        else { return false }
        let before = input[..<error.offset].last { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }
        return before == UInt8(ascii: ",")
    }

    private static func startsWithByteOrderMark(_ input: [UInt8]) -> Bool {
        input.starts(with: [0xEF, 0xBB, 0xBF])
    }
}

extension JSONValue {
    var containsInfinity: Bool {
        switch self {
        case .number(let value): value.isInfinite
        case .array(let elements): elements.contains(where: \.containsInfinity)
        case .object(let members): members.values.contains(where: \.containsInfinity)
        default: false
        }
    }
}

/// Seeded random JSON texts and mutations of them.
enum JSONGenerator {
    static func appendValue(to out: inout String, depth: Int, using random: inout SeededGenerator) {
        let choice = Int.random(in: 0..<(depth >= 6 ? 6 : 9), using: &random)
        switch choice {
        case 0: out += "null"
        case 1: out += Bool.random(using: &random) ? "true" : "false"
        case 2, 3: out += number(using: &random)
        case 4, 5: out += string(using: &random)
        case 6: appendArray(to: &out, depth: depth, using: &random)
        default: appendObject(to: &out, depth: depth, using: &random)
        }
    }

    private static func appendArray(to out: inout String, depth: Int, using random: inout SeededGenerator) {
        out += "["
        let count = Int.random(in: 0...5, using: &random)
        for index in 0..<count {
            if index > 0 { out += "," }
            out += whitespace(using: &random)
            appendValue(to: &out, depth: depth + 1, using: &random)
            out += whitespace(using: &random)
        }
        out += whitespace(using: &random) + "]"
    }

    private static func appendObject(to out: inout String, depth: Int, using random: inout SeededGenerator) {
        out += "{"
        let count = Int.random(in: 0...5, using: &random)
        var keys: [String] = []
        for index in 0..<count {
            if index > 0 { out += "," }
            // Reuse a key now and then: duplicate names keep the last value in both parsers.
            let key =
                !keys.isEmpty && Int.random(in: 0..<6, using: &random) == 0
                ? keys.randomElement(using: &random) ?? "k" : string(using: &random)
            keys.append(key)
            out += whitespace(using: &random) + key + whitespace(using: &random) + ":" + whitespace(using: &random)
            appendValue(to: &out, depth: depth + 1, using: &random)
        }
        out += whitespace(using: &random) + "}"
    }

    static func whitespace(using random: inout SeededGenerator) -> String {
        guard Int.random(in: 0..<3, using: &random) == 0 else { return "" }
        let pieces = [" ", "\t", "\n", "\r\n", "  "]
        return (0..<Int.random(in: 1...2, using: &random)).map { _ in pieces.randomElement(using: &random) ?? " " }
            .joined()
    }

    static func number(using random: inout SeededGenerator) -> String {
        let specials = [
            "0", "-0", "-0.0", "1e308", "5e-324", "4.9e-324", "2.2250738585072014e-308", "1.7976931348623157e308",
            "0.1", "0.30000000000000004", "9007199254740993", "18446744073709551615", "-9223372036854775808",
            "1e22", "1e23", "123456789012345678", "3.141592653589793238462643383279", "1E+2", "2.5e-3", "100e-2",
            "0.000001", "1e-7", "12345.6789e-3", "9.999999999999999e22", "8.98846567431158e307",
        ]
        switch Int.random(in: 0..<6, using: &random) {
        case 0: return specials.randomElement(using: &random) ?? "0"
        case 1: return String(Int.random(in: -1_000_000...1_000_000, using: &random))
        case 2:
            let value = Double.random(in: -2000...2000, using: &random)
            return String(format: "%.\(Int.random(in: 0...6, using: &random))f", value)
        case 3:
            let bits = random.next()
            let value = Double(bitPattern: bits)
            return value.isFinite ? value.description : "1.5"
        case 4:
            var text = Bool.random(using: &random) ? "-" : ""
            let digits = Int.random(in: 1...25, using: &random)
            text += String(Int.random(in: 1...9, using: &random))
            for _ in 1..<digits { text += String(Int.random(in: 0...9, using: &random)) }
            if Bool.random(using: &random) {
                text += "."
                for _ in 0..<Int.random(in: 1...20, using: &random) {
                    text += String(Int.random(in: 0...9, using: &random))
                }
            }
            return text
        default:
            let mantissa = Int.random(in: 1...99_999, using: &random)
            let exponent = Int.random(in: -330...300, using: &random)
            let marker = ["e", "E"].randomElement(using: &random) ?? "e"
            let sign = exponent < 0 ? "-" : ["", "+"].randomElement(using: &random) ?? ""
            return "\(mantissa)\(marker)\(sign)\(abs(exponent))"
        }
    }

    static func string(using random: inout SeededGenerator) -> String {
        let pieces = [
            "a", "Z", "0", " ", "é", "ñ", "€", "😀", "日本", "\\\"", "\\\\", "\\/", "\\b", "\\f", "\\n", "\\r", "\\t",
            "\\u0041", "\\u00e9", "\\u20AC", "\\ud83d\\ude00", "\\uD834\\uDD1E", "\\u0000", "\\u001f", "\u{7F}",
            "rightElbow", "t", "type",
        ]
        var text = "\""
        for _ in 0..<Int.random(in: 0...6, using: &random) { text += pieces.randomElement(using: &random) ?? "a" }
        return text + "\""
    }

    static func mutate(_ input: [UInt8], using random: inout SeededGenerator) -> [UInt8] {
        guard !input.isEmpty else { return [UInt8(ascii: "[")] }
        var output = input
        let interesting = Array("{}[],:\"\\ -+.0123456789eEtrufalsn\u{7}".utf8) + [0x00, 0x80, 0xC3, 0xE2, 0xED, 0xFF]
        let position = Int.random(in: 0..<output.count, using: &random)
        switch Int.random(in: 0..<5, using: &random) {
        case 0: output[position] = interesting.randomElement(using: &random) ?? 0
        case 1: output[position] = UInt8.random(in: 0...255, using: &random)
        case 2: output.removeSubrange(position...)
        case 3: output.insert(interesting.randomElement(using: &random) ?? 0, at: position)
        default: output.remove(at: position)
        }
        return output
    }
}
