import Basics
import Testing

@testable import MotionWire

/// `subject` is at most ``StartRequest/maxSubjectScalars`` Unicode scalars (so at most 512 UTF-8 bytes), counted
/// after unescaping and never in Characters, and holds no control or bidirectional formatting character; over
/// WebSocket and REST alike.
@Suite struct SubjectTests {
    static let tooLong = WireError(code: .invalidMessage, message: "subject must be at most 128 characters")
    static let forbidden = WireError(
        code: .invalidMessage, message: "subject must not contain control or bidirectional formatting characters")

    typealias Outcome = Result<String?, WireError>

    /// A `start` message whose subject string holds `raw` between its quotes, byte for byte.
    static func start(subject raw: [UInt8]) -> [UInt8] {
        bytes(#"{"type":"start","exercise":"x","subject":""#) + raw + bytes(#""}"#)
    }

    /// The subject `start(subject: raw)` decodes to, or the error; the WebSocket message and the REST body
    /// (the same object) must agree.
    static func decode(subject raw: [UInt8], sourceLocation: SourceLocation = #_sourceLocation) -> Outcome {
        let message = start(subject: raw)
        let live = Result { () throws(WireError) -> String? in
            guard case .start(let start) = try MessageDecoder().decode(message) else { return "not a start" }
            return start.subject
        }
        let rest = Result { () throws(WireError) -> String? in try StartRequest(decoding: message).subject }
        #expect(live == rest, "WebSocket and REST disagree", sourceLocation: sourceLocation)
        return live
    }

    @Test func limitIs128Scalars() {
        #expect(StartRequest.maxSubjectScalars == 128)
    }

    @Test func refusesACombiningMarkBombThatIsOneCharacter() {
        let bomb = "a" + String(repeating: "\u{301}", count: 500_000)
        #expect(bomb.count == 1)
        #expect(bomb.utf8.count == 1_000_001)
        #expect(Self.decode(subject: bytes(bomb)) == .failure(Self.tooLong))
        let small = "a" + String(repeating: "\u{301}", count: 128)
        #expect(small.count == 1)
        #expect(Self.decode(subject: bytes(small)) == .failure(Self.tooLong), "129 scalars, one Character")
    }

    @Test func refusesAnEscapedCombiningMarkBomb() {
        let bomb = "a" + String(repeating: #"\u0301"#, count: 170_000)
        #expect(Self.decode(subject: bytes(bomb)) == .failure(Self.tooLong))
    }

    @Test func accepts128ASCIICharactersAndRefuses129() {
        let exact = String(repeating: "s", count: 128)
        #expect(Self.decode(subject: bytes(exact)) == .success(exact))
        #expect(Self.decode(subject: bytes(exact + "s")) == .failure(Self.tooLong))
    }

    @Test func countsMultiByteCharactersAsOneScalarEach() {
        let twoByte = String(repeating: "é", count: 128)
        #expect(Self.decode(subject: bytes(twoByte)) == .success(twoByte))
        #expect(Self.decode(subject: bytes(twoByte + "é")) == .failure(Self.tooLong))
        let fourByte = String(repeating: "😀", count: 128)
        #expect(fourByte.utf8.count == 512, "the most a subject can take")
        #expect(Self.decode(subject: bytes(fourByte)) == .success(fourByte))
        #expect(Self.decode(subject: bytes(fourByte + "😀")) == .failure(Self.tooLong))
        #expect(
            Self.decode(subject: bytes(String(repeating: "s", count: 127) + "é"))
                == .success(
                    String(repeating: "s", count: 127) + "é"))
    }

    @Test func countsEscapedSubjectsAfterUnescaping() {
        let escaped = String(repeating: #"\u0041"#, count: 128)
        #expect(Self.decode(subject: bytes(escaped)) == .success(String(repeating: "A", count: 128)))
        #expect(Self.decode(subject: bytes(escaped + #"\u0041"#)) == .failure(Self.tooLong))
        let accents = String(repeating: #"\u00e9"#, count: 128)
        #expect(Self.decode(subject: bytes(accents)) == .success(String(repeating: "é", count: 128)))
        #expect(Self.decode(subject: bytes(accents + #"\u00e9"#)) == .failure(Self.tooLong))
        // Twelve raw bytes per escaped pair: 128 of them are 1,536 raw bytes, the most the decoder unescapes.
        let pairs = String(repeating: #"\ud83d\ude00"#, count: 128)
        #expect(Self.decode(subject: bytes(pairs)) == .success(String(repeating: "😀", count: 128)))
        #expect(Self.decode(subject: bytes(pairs + #"\ud83d\ude00"#)) == .failure(Self.tooLong))
    }

    @Test(arguments: [
        #"\u0085"#, #"\u202e"#, #"\u2066"#, #"\u0007"#, #"\u0000"#, #"\u001F"#, #"\n"#, #"\t"#, #"\u007f"#,
        #"\u0080"#, #"\u009f"#, #"\u061c"#, #"\u200e"#, #"\u200F"#, #"\u2028"#, #"\u2029"#, #"\u202a"#,
        #"\u202d"#, #"\u2067"#, #"\u2068"#, #"\u2069"#,
    ])
    func refusesEscapedControlAndBidiCharacters(_ escape: String) {
        #expect(Self.decode(subject: bytes("patient" + escape + "17")) == .failure(Self.forbidden))
    }

    @Test(
        arguments: [
            [0xE2, 0x80, 0xAE], [0xC2, 0x85], [0xE2, 0x81, 0xA6], [0x7F], [0xE2, 0x80, 0xA8], [0xE2, 0x80, 0x8F],
            [0xD8, 0x9C],
        ] as [[UInt8]])
    func refusesRawControlAndBidiCharactersInUTF8(_ character: [UInt8]) {
        #expect(Self.decode(subject: bytes("patient") + character + bytes("17")) == .failure(Self.forbidden))
    }

    @Test(arguments: [
        "patient-17", "e\u{301}", "😀 patient é", "日本語", "👩\u{200D}⚕️", "a\u{A0}b", "\u{2027}\u{202F}\u{206A}",
        "\u{200C}\u{200D}\u{61B}\u{61D}", "tricky \"quote\" \\ </script> '; DROP TABLE sessions; --",
    ])
    func acceptsOrdinarySubjects(_ subject: String) {
        var escaped: [UInt8] = []
        escaped.appendJSONString(subject)
        #expect(Self.decode(subject: Array(escaped.dropFirst().dropLast())) == .success(subject))
    }

    @Test func acceptsANullSubjectAndRefusesOtherKinds() throws {
        let null = bytes(#"{"type":"start","exercise":"x","subject":null}"#)
        #expect(try StartRequest(decoding: null).subject == nil)
        for value in ["17", "true", #"["p"]"#, #"{"id":"p"}"#] {
            let input = bytes(#"{"type":"start","exercise":"x","subject":\#(value)}"#)
            #expect(
                wireError { () throws(WireError) in try StartRequest(decoding: input) }
                    == WireError(code: .invalidMessage, message: "subject must be a string"))
        }
    }

    @Test func allowsEveryScalarButTheRefusedRanges() {
        let refused: [ClosedRange<UInt32>] = [
            0x00...0x1F, 0x7F...0x9F, 0x61C...0x61C, 0x200E...0x200F, 0x2028...0x202E, 0x2066...0x2069,
        ]
        for value in UInt32(0)...0x2100 {
            guard let scalar = Unicode.Scalar(value) else { continue }
            let expected = !refused.contains { $0.contains(value) }
            #expect(StartRequest.isAllowedInSubject(scalar) == expected, "U+\(String(value, radix: 16))")
        }
        #expect(StartRequest.isAllowedInSubject("\u{10FFFF}"))
    }
}
