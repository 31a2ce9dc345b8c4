import HTTPWire
import Testing

/// A UTF-8 fixture: bytes and, for invalid input, the index of the byte at which failure becomes certain
/// (`nil` for input that is only truncated: never rejected, but not at a character boundary).
struct UTF8Fixture: Sendable, CustomTestStringConvertible {
    var name: String
    var bytes: [UInt8]
    var failsAt: Int?

    var testDescription: String { name }
}

private let validFixtures: [UTF8Fixture] = [
    UTF8Fixture(name: "empty", bytes: []),
    UTF8Fixture(name: "ASCII", bytes: Array("Hello, world!".utf8)),
    UTF8Fixture(name: "2-byte (κόσμε)", bytes: Array("κόσμε".utf8)),
    UTF8Fixture(name: "3-byte (€)", bytes: webSocketHex("E2 82 AC")),
    UTF8Fixture(name: "4-byte (😀)", bytes: webSocketHex("F0 9F 98 80")),
    UTF8Fixture(name: "U+10FFFF", bytes: webSocketHex("F4 8F BF BF")),
    UTF8Fixture(name: "BOM", bytes: webSocketHex("EF BB BF 41")),
    UTF8Fixture(name: "U+D7FF below the surrogates", bytes: webSocketHex("ED 9F BF")),
    UTF8Fixture(name: "U+E000 above the surrogates", bytes: webSocketHex("EE 80 80")),
    UTF8Fixture(name: "U+0800, smallest 3-byte", bytes: webSocketHex("E0 A0 80")),
    UTF8Fixture(name: "U+10000, smallest 4-byte", bytes: webSocketHex("F0 90 80 80")),
    UTF8Fixture(name: "U+0080, smallest 2-byte", bytes: webSocketHex("C2 80")),
    UTF8Fixture(name: "NUL", bytes: [0]),
    UTF8Fixture(name: "mixed", bytes: Array("a€😀ß\u{10FFFF}z".utf8)),
]

private let invalidFixtures: [UTF8Fixture] = [
    UTF8Fixture(name: "overlong '/' (C0 AF)", bytes: webSocketHex("C0 AF"), failsAt: 0),
    UTF8Fixture(name: "overlong C1", bytes: webSocketHex("C1 BF"), failsAt: 0),
    UTF8Fixture(name: "overlong 3-byte (E0 80 AF)", bytes: webSocketHex("E0 80 AF"), failsAt: 1),
    UTF8Fixture(name: "overlong 4-byte (F0 8F BF BF)", bytes: webSocketHex("F0 8F BF BF"), failsAt: 1),
    UTF8Fixture(name: "surrogate D800 (ED A0 80)", bytes: webSocketHex("ED A0 80"), failsAt: 1),
    UTF8Fixture(name: "surrogate DFFF (ED BF BF)", bytes: webSocketHex("ED BF BF"), failsAt: 1),
    UTF8Fixture(name: "above U+10FFFF (F4 90 80 80)", bytes: webSocketHex("F4 90 80 80"), failsAt: 1),
    UTF8Fixture(name: "F5 lead byte", bytes: webSocketHex("F5 80 80 80"), failsAt: 0),
    UTF8Fixture(name: "FF byte", bytes: webSocketHex("41 FF"), failsAt: 1),
    UTF8Fixture(name: "lone continuation", bytes: webSocketHex("80"), failsAt: 0),
    UTF8Fixture(name: "continuation after ASCII", bytes: webSocketHex("41 42 BF"), failsAt: 2),
    UTF8Fixture(name: "missing continuation", bytes: webSocketHex("C3 41"), failsAt: 1),
    UTF8Fixture(name: "3-byte cut by ASCII", bytes: webSocketHex("E2 82 41"), failsAt: 2),
    UTF8Fixture(name: "4-byte cut by a lead byte", bytes: webSocketHex("F0 9F 98 F0"), failsAt: 3),
    UTF8Fixture(
        name: "valid then invalid", bytes: Array("κόσμε".utf8) + webSocketHex("ED A0 80 65 64 69 74 65 64"),
        failsAt: 11),
    UTF8Fixture(name: "truncated 2-byte at end", bytes: webSocketHex("41 C3")),
    UTF8Fixture(name: "truncated 3-byte at end", bytes: webSocketHex("E2 82")),
    UTF8Fixture(name: "truncated 4-byte at end", bytes: webSocketHex("F0 9F 98")),
]

struct WebSocketUTF8ValidatorTests {
    @Test(arguments: validFixtures)
    func validTextIsAcceptedWhateverTheSplit(_ fixture: UTF8Fixture) {
        for position in 0...fixture.bytes.count {
            var validator = UTF8Validator()
            let first = validator.validate(fixture.bytes[..<position])
            let second = validator.validate(fixture.bytes[position...])
            #expect(first && second && validator.isAtCharacterBoundary, "split at \(position)")
        }
        #expect(UTF8Validator.isValid(fixture.bytes))
    }

    @Test(arguments: invalidFixtures)
    func invalidTextIsRejectedWhateverTheSplit(_ fixture: UTF8Fixture) {
        for position in 0...fixture.bytes.count {
            var validator = UTF8Validator()
            let first = validator.validate(fixture.bytes[..<position])
            let second = validator.validate(fixture.bytes[position...])
            if let failsAt = fixture.failsAt {
                #expect(first == (position <= failsAt), "first fragment of split at \(position)")
                #expect(!second, "split at \(position)")
            } else {
                #expect(first && second && !validator.isAtCharacterBoundary, "split at \(position)")
            }
        }
        #expect(!UTF8Validator.isValid(fixture.bytes))
    }

    @Test(arguments: invalidFixtures)
    func invalidTextFailsAtTheFirstByteThatMakesItCertain(_ fixture: UTF8Fixture) {
        var validator = UTF8Validator()
        var failedAt: Int?
        for (index, byte) in fixture.bytes.enumerated() where !validator.validate([byte]) {
            failedAt = index
            break
        }
        #expect(failedAt == fixture.failsAt)
    }

    @Test func failureIsStickyUntilReset() {
        var validator = UTF8Validator()
        let invalid = validator.validate([0xF5])
        let afterwards = validator.validate(Array("fine".utf8))
        #expect(!invalid && !afterwards && validator.hasFailed)
        validator.reset()
        let fresh = validator.validate(Array("fine".utf8))
        #expect(fresh && validator.isAtCharacterBoundary)
    }

    @Test func agreesWithTheStandardLibraryOnRandomInput() {
        var rng = SeededGenerator(seed: 42)
        let interesting: [UInt8] = [
            0x00, 0x41, 0x7F, 0x80, 0x8F, 0x90, 0x9F, 0xA0, 0xBF, 0xC0, 0xC1, 0xC2, 0xDF, 0xE0, 0xE1, 0xEC, 0xED, 0xEE,
            0xEF, 0xF0, 0xF1, 0xF3, 0xF4, 0xF5, 0xFF,
        ]
        for _ in 0..<20_000 {
            let count = Int.random(in: 0...6, using: &rng)
            let bytes = (0..<count).map { _ in interesting[Int.random(in: 0..<interesting.count, using: &rng)] }
            let expected = String(validating: bytes, as: UTF8.self) != nil
            #expect(UTF8Validator.isValid(bytes) == expected, "\(bytes)")
        }
    }
}
