import Basics
import MotionCore
import Testing

@testable import MotionWire

/// `subject` is at most ``StartRequest/maxSubjectBytes`` UTF-8 bytes and ``StartRequest/maxSubjectScalars`` Unicode
/// scalars, counted after unescaping and never in Characters, and holds no control, bidirectional formatting or line
/// separator character; over WebSocket and REST alike.
@Suite struct SubjectTests {
    static let tooLong = WireError(
        code: .invalidMessage, message: "subject must be at most 128 characters and 256 bytes of UTF-8")
    static let forbidden = WireError(
        code: .invalidMessage,
        message: "subject must not contain control, bidirectional formatting or line separator characters")

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

    @Test func limitIs256BytesAnd128Scalars() {
        #expect(StartRequest.maxSubjectBytes == 256)
        #expect(StartRequest.maxSubjectScalars == 128)
        #expect(StartRequest.subjectRule == TextRule(maxBytes: 256, maxScalars: 128))
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

    /// Subjects of exactly 256 bytes in two-, three- and four-byte scalars, and one byte more.
    static let longest = [
        String(repeating: "é", count: 128), String(repeating: "€", count: 85) + "x",
        String(repeating: "😀", count: 64), "x" + String(repeating: "€", count: 84) + "é" + "x",
    ]

    @Test(arguments: longest)
    func acceptsMultiByteSubjectsOf256BytesAndRefusesOneByteMore(_ subject: String) {
        #expect(subject.utf8.count == 256)
        #expect(subject.unicodeScalars.count <= 128)
        #expect(Self.decode(subject: bytes(subject)) == .success(subject))
        #expect(Self.decode(subject: bytes(subject + "s")) == .failure(Self.tooLong), "257 bytes")
    }

    @Test(arguments: [
        String(repeating: "€", count: 85) + "é", String(repeating: "😀", count: 63) + "€é",
        String(repeating: "é", count: 127) + "€",
    ])
    func refusesMultiByteSubjectsOf257Bytes(_ subject: String) {
        #expect(subject.utf8.count == 257)
        #expect(subject.unicodeScalars.count <= 128, "refused for its bytes alone")
        #expect(Self.decode(subject: bytes(subject)) == .failure(Self.tooLong))
    }

    @Test func countsBytesNotScalarsForMultiByteCharacters() {
        let twoByte = String(repeating: "é", count: 128)
        #expect(Self.decode(subject: bytes(twoByte)) == .success(twoByte))
        #expect(Self.decode(subject: bytes(twoByte + "é")) == .failure(Self.tooLong))
        let fourByte = String(repeating: "😀", count: 65)
        #expect(fourByte.utf8.count == 260, "65 scalars, well within 128, but 260 bytes")
        #expect(Self.decode(subject: bytes(fourByte)) == .failure(Self.tooLong))
        #expect(Self.decode(subject: bytes(String(repeating: "😀", count: 128))) == .failure(Self.tooLong))
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
        // Twelve raw bytes per escaped pair, four bytes of UTF-8: 64 of them are 768 raw bytes and 256 of UTF-8.
        let pairs = String(repeating: #"\ud83d\ude00"#, count: 64)
        #expect(Self.decode(subject: bytes(pairs)) == .success(String(repeating: "😀", count: 64)))
        #expect(Self.decode(subject: bytes(pairs + #"\ud83d\ude00"#)) == .failure(Self.tooLong))
        // Six raw bytes per escaped ASCII character: 256 bytes of `\u0041` are the 1,536 raw bytes the decoder
        // unescapes at most, and 256 of them are refused by count.
        let letters = String(repeating: #"\u0041"#, count: 256)
        #expect(Self.decode(subject: bytes(letters)) == .failure(Self.tooLong), "256 bytes, 256 scalars")
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
