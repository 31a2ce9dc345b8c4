import HTTPWire
import Testing

/// A byte fixture and the frames it decodes to.
struct WebSocketFrameFixture: Sendable, CustomTestStringConvertible {
    var name: String
    var bytes: [UInt8]
    var role: WebSocketRole
    var frames: [WebSocketFrame]

    var testDescription: String { name }
}

private let hello = Array("Hello".utf8)
private let binary256 = (0..<256).map { UInt8($0 & 0xFF) }
private let binary64K = (0..<65536).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }

/// The examples of RFC 6455 §5.7.
private let rfcFixtures: [WebSocketFrameFixture] = [
    WebSocketFrameFixture(
        name: "single-frame unmasked text", bytes: webSocketHex("81 05 48 65 6c 6c 6f"), role: .client,
        frames: [WebSocketFrame(opcode: .text, payload: hello)]),
    WebSocketFrameFixture(
        name: "single-frame masked text", bytes: webSocketHex("81 85 37 fa 21 3d 7f 9f 4d 51 58"), role: .server,
        frames: [WebSocketFrame(opcode: .text, payload: hello)]),
    WebSocketFrameFixture(
        name: "fragmented unmasked text", bytes: webSocketHex("01 03 48 65 6c 80 02 6c 6f"), role: .client,
        frames: [
            WebSocketFrame(fin: false, opcode: .text, payload: Array("Hel".utf8)),
            WebSocketFrame(opcode: .continuation, payload: Array("lo".utf8)),
        ]),
    WebSocketFrameFixture(
        name: "unmasked ping", bytes: webSocketHex("89 05 48 65 6c 6c 6f"), role: .client,
        frames: [WebSocketFrame(opcode: .ping, payload: hello)]),
    WebSocketFrameFixture(
        name: "masked pong", bytes: webSocketHex("8a 85 37 fa 21 3d 7f 9f 4d 51 58"), role: .server,
        frames: [WebSocketFrame(opcode: .pong, payload: hello)]),
    WebSocketFrameFixture(
        name: "256-byte binary, 16-bit length", bytes: webSocketHex("82 7E 01 00") + binary256, role: .client,
        frames: [WebSocketFrame(opcode: .binary, payload: binary256)]),
    WebSocketFrameFixture(
        name: "64 KiB binary, 64-bit length", bytes: webSocketHex("82 7F 00 00 00 00 00 01 00 00") + binary64K,
        role: .client, frames: [WebSocketFrame(opcode: .binary, payload: binary64K)]),
]

struct WebSocketFrameCodecTests {
    @Test(arguments: rfcFixtures)
    func rfcExampleDecodesWhole(_ fixture: WebSocketFrameFixture) {
        let outcome = webSocketDecode([fixture.bytes], role: fixture.role)
        #expect(outcome == WebSocketDecodeOutcome(frames: fixture.frames))
    }

    @Test(arguments: rfcFixtures)
    func rfcExampleDecodesOneByteAtATime(_ fixture: WebSocketFrameFixture) {
        let outcome = webSocketDecode(webSocketBytewise(fixture.bytes), role: fixture.role)
        #expect(outcome == WebSocketDecodeOutcome(frames: fixture.frames))
    }

    @Test(arguments: rfcFixtures)
    func rfcExampleDecodesWhenSplitAtEveryPosition(_ fixture: WebSocketFrameFixture) {
        // Every position for small frames; for the 64 KiB frame every header position plus a spread of payload ones.
        let positions =
            fixture.bytes.count <= 512
            ? Array(0...fixture.bytes.count)
            : Array(0...20) + [
                100, 4096, 32_768, 65_545, 65_546,
            ]
        for position in positions {
            let outcome = webSocketDecode(webSocketSplit(fixture.bytes, at: [position]), role: fixture.role)
            #expect(outcome == WebSocketDecodeOutcome(frames: fixture.frames), "split at \(position)")
        }
    }

    @Test(arguments: rfcFixtures)
    func encoderReproducesRFCExample(_ fixture: WebSocketFrameFixture) {
        var encoded: [UInt8] = []
        for frame in fixture.frames {
            WebSocketFrameEncoder.encode(
                frame, mask: fixture.role == .server ? (0x37, 0xFA, 0x21, 0x3D) : nil, into: &encoded)
        }
        #expect(encoded == fixture.bytes)
    }

    @Test func randomChunkingOfManyFramesDecodesTheSameFrames() {
        var rng = SeededGenerator(seed: 7)
        var stream: [UInt8] = []
        var expected: [WebSocketFrame] = []
        for index in 0..<200 {
            let length = [0, 1, 125, 126, 300, 70_000][index % 6]
            let payload = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }
            let frame = WebSocketFrame(opcode: index % 2 == 0 ? .binary : .text, payload: payload)
            expected.append(frame)
            let mask: (UInt8, UInt8, UInt8, UInt8) = (UInt8(index & 0xFF), 0xA5, 0x5A, UInt8(length & 0xFF))
            WebSocketFrameEncoder.encode(frame, mask: mask, into: &stream)
        }
        var offsets: [Int] = []
        var position = 0
        while position < stream.count {
            position += Int.random(in: 1...9000, using: &rng)
            offsets.append(position)
        }
        let outcome = webSocketDecode(webSocketSplit(stream, at: offsets), role: .server)
        #expect(outcome.error == nil)
        #expect(outcome.frames == expected)
        #expect(outcome.bufferedAfter == 0)
    }

    /// Every opcode with every length class, masked and unmasked.
    static let roundTripCases: [(WebSocketOpcode, Int, Bool)] = [
        WebSocketOpcode.continuation, .text, .binary, .close, .ping, .pong,
    ].flatMap { opcode in
        [0, 125, 126, 65_535, 65_536].flatMap { length in [(opcode, length, false), (opcode, length, true)] }
    }.filter { !$0.0.isControl || $0.1 <= 125 }

    @Test(arguments: roundTripCases)
    func frameRoundTrips(opcode: WebSocketOpcode, length: Int, masked: Bool) {
        let payload = (0..<length).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        let frame = WebSocketFrame(fin: true, opcode: opcode, payload: payload)
        let bytes = WebSocketFrameEncoder.encode(frame, mask: masked ? (1, 2, 3, 4) : nil)
        let lengthBytes = length <= 125 ? 0 : (length <= 65_535 ? 2 : 8)
        #expect(bytes.count == 2 + lengthBytes + (masked ? 4 : 0) + length, "minimal length encoding")
        #expect(WebSocketFrameEncoder.headerSize(payloadCount: length, masked: masked) == bytes.count - length)
        let outcome = webSocketDecode([bytes], role: masked ? .server : .client)
        #expect(outcome == WebSocketDecodeOutcome(frames: [frame]))
    }

    @Test func nonFinalAndRSV1FramesRoundTripWhenAllowed() {
        let frames = [
            WebSocketFrame(fin: false, rsv1: true, opcode: .text, payload: [1, 2, 3]),
            WebSocketFrame(fin: true, rsv1: false, opcode: .continuation, payload: [4]),
        ]
        var bytes: [UInt8] = []
        for frame in frames { WebSocketFrameEncoder.encode(frame, into: &bytes) }
        #expect(bytes[0] == 0x41)
        #expect(webSocketDecode([bytes], role: .client, allowsRSV1: true).frames == frames)
    }

    @Test func maskingXORsPayloadWithRepeatingKey() {
        let frame = WebSocketFrame(opcode: .binary, payload: [0, 0, 0, 0, 0, 0xFF])
        let bytes = WebSocketFrameEncoder.encode(frame, mask: (0x11, 0x22, 0x33, 0x44))
        #expect(bytes == [0x82, 0x86, 0x11, 0x22, 0x33, 0x44, 0x11, 0x22, 0x33, 0x44, 0x11, 0xDD])
    }

    @Test func consumedBytesDoNotAccumulate() {
        var decoder = WebSocketFrameDecoder(role: .server)
        let frame = webSocketMasked(WebSocketFrame(opcode: .binary, payload: Array(repeating: 9, count: 1000)))
        for _ in 0..<1000 {
            // Half a frame, drain, the other half, drain: nothing but the unfinished frame is ever held.
            decoder.append(contentsOf: frame[..<500])
            #expect(decoder.next() == .needMoreData)
            #expect(decoder.bufferedByteCount <= frame.count)
            decoder.append(contentsOf: frame[500...])
            guard case .frame = decoder.next() else {
                Issue.record("expected a frame")
                return
            }
            #expect(decoder.next() == .needMoreData)
            #expect(decoder.bufferedByteCount == 0)
        }
    }

    @Test func closeFrameBuilderTruncatesReasonAtCharacterBoundary() {
        let frame = WebSocketFrame.close(code: .goingAway, reason: String(repeating: "é", count: 100))
        #expect(frame.payload.count == 124)  // 2 + 61 two-byte characters; a 62nd would exceed 125
        #expect(Array(frame.payload.prefix(2)) == [0x03, 0xE9])
        #expect(UTF8Validator.isValid(frame.payload.dropFirst(2)))
        #expect(WebSocketFrame.close(code: nil, reason: "ignored").payload.isEmpty)
    }

    @Test func opcodeClassification() {
        #expect([WebSocketOpcode.close, .ping, .pong].allSatisfy { $0.isControl })
        #expect(![WebSocketOpcode.continuation, .text, .binary].contains { $0.isControl })
        let reserved = (0...15).map { WebSocketOpcode(rawValue: UInt8($0)) }.filter(\.isReserved).map(\.rawValue)
        #expect(reserved == [3, 4, 5, 6, 7, 11, 12, 13, 14, 15])
    }
}
