import HTTPWire
import Testing

/// A byte sequence that breaks a framing rule, and the error it must produce.
struct WebSocketViolation: Sendable, CustomTestStringConvertible {
    var name: String
    var bytes: [UInt8]
    var role: WebSocketRole = .server
    var allowsRSV1 = false
    var maxFrameBytes = 1 << 20
    var expected: WebSocketCloseCode = .protocolError

    var testDescription: String { name }
}

private let maskedHello = webSocketHex("81 85 37 fa 21 3d 7f 9f 4d 51 58")
private let unmaskedHello = webSocketHex("81 05 48 65 6c 6c 6f")
private let key = webSocketHex("01 02 03 04")

private let violations: [WebSocketViolation] =
    [
        WebSocketViolation(name: "unmasked frame from a client", bytes: unmaskedHello, role: .server),
        WebSocketViolation(name: "masked frame from a server", bytes: maskedHello, role: .client),
        WebSocketViolation(name: "RSV2 set", bytes: [0xA1, 0x80] + key),
        WebSocketViolation(name: "RSV3 set", bytes: [0x91, 0x80] + key),
        WebSocketViolation(name: "RSV2 set even with RSV1 allowed", bytes: [0xE1, 0x80] + key, allowsRSV1: true),
        WebSocketViolation(name: "RSV1 without a negotiated extension", bytes: [0xC1, 0x80] + key),
        WebSocketViolation(name: "RSV1 on a ping", bytes: [0xC9, 0x80] + key, allowsRSV1: true),
        WebSocketViolation(name: "RSV1 on a close", bytes: [0xC8, 0x80] + key, allowsRSV1: true),
        WebSocketViolation(name: "RSV1 on a continuation", bytes: [0xC0, 0x80] + key, allowsRSV1: true),
        WebSocketViolation(name: "fragmented ping", bytes: [0x09, 0x80] + key),
        WebSocketViolation(name: "fragmented close", bytes: [0x08, 0x80] + key),
        WebSocketViolation(name: "ping with 126-byte payload", bytes: [0x89, 0xFE, 0x00, 0x7E] + key),
        WebSocketViolation(name: "close with 64-bit length", bytes: [0x88, 0xFF] + Array(repeating: 0, count: 8)),
        WebSocketViolation(name: "16-bit length for 125 bytes", bytes: [0x82, 0xFE, 0x00, 0x7D] + key),
        WebSocketViolation(name: "16-bit length for 0 bytes", bytes: [0x82, 0xFE, 0x00, 0x00] + key),
        WebSocketViolation(
            name: "64-bit length for 65535 bytes", bytes: [0x82, 0xFF, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF] + key),
        WebSocketViolation(name: "64-bit length for 126 bytes", bytes: [0x82, 0xFF, 0, 0, 0, 0, 0, 0, 0, 0x7E] + key),
        WebSocketViolation(
            name: "64-bit length with the high bit set", bytes: [0x82, 0xFF, 0x80, 0, 0, 0, 0, 0, 0, 0] + key),
        WebSocketViolation(
            name: "64-bit length of 2^64-1", bytes: [0x82, 0xFF] + Array(repeating: 0xFF, count: 8) + key),
        WebSocketViolation(
            name: "frame over maxFrameBytes (7-bit length)", bytes: [0x82, 0x80 | 101], maxFrameBytes: 100,
            expected: .messageTooBig),
        WebSocketViolation(
            name: "frame over maxFrameBytes (16-bit length)", bytes: [0x82, 0xFE, 0x03, 0xE9], maxFrameBytes: 1000,
            expected: .messageTooBig),
        WebSocketViolation(
            name: "frame over maxFrameBytes (64-bit length)", bytes: [0x82, 0xFF, 0, 0, 0, 0x01, 0, 0, 0, 0],
            expected: .messageTooBig),
    ]
    + ([3, 4, 5, 6, 7, 11, 12, 13, 14, 15] as [UInt8]).map { opcode in
        WebSocketViolation(name: "reserved opcode \(opcode)", bytes: [0x80 | opcode, 0x80] + key)
    }

struct WebSocketFrameViolationTests {
    @Test(arguments: violations)
    func violationFailsTheDecoder(_ violation: WebSocketViolation) {
        let outcome = webSocketDecode(
            [violation.bytes], role: violation.role, maxFrameBytes: violation.maxFrameBytes,
            allowsRSV1: violation.allowsRSV1)
        #expect(outcome.frames.isEmpty)
        #expect(outcome.error?.closeCode == violation.expected)
        #expect(outcome.bufferedAfter == 0, "a failed decoder releases its buffer")
    }

    @Test(arguments: violations)
    func violationIsFoundWhateverTheSplit(_ violation: WebSocketViolation) {
        for position in 0...violation.bytes.count {
            let outcome = webSocketDecode(
                webSocketSplit(violation.bytes, at: [position]), role: violation.role,
                maxFrameBytes: violation.maxFrameBytes, allowsRSV1: violation.allowsRSV1)
            #expect(outcome.error?.closeCode == violation.expected, "split at \(position)")
        }
    }

    @Test(arguments: [
        ("RSV2", [0xA1] as [UInt8]), ("RSV1 not allowed", [0xC1]), ("reserved opcode", [0x83]),
        ("fragmented control", [0x09]), ("unmasked", [0x81, 0x05]), ("control over 125", [0x89, 0xFE]),
        ("non-minimal 16-bit", [0x82, 0xFE, 0x00, 0x10]),
    ])
    func violationIsReportedAsSoonAsTheOffendingByteArrives(name: String, prefix: [UInt8]) {
        var decoder = WebSocketFrameDecoder(role: .server)
        decoder.append(contentsOf: prefix.dropLast())
        #expect(decoder.next() == .needMoreData, "\(name): not decidable before the last byte")
        decoder.append(contentsOf: prefix.suffix(1))
        guard case .error(let error) = decoder.next() else {
            Issue.record("\(name): expected an error")
            return
        }
        #expect(error.closeCode == .protocolError)
    }

    @Test func oversizedFrameIsRejectedBeforeItsPayloadArrives() {
        var decoder = WebSocketFrameDecoder(role: .server, maxFrameBytes: 1 << 16)
        // Header of a 16 MiB frame; no mask key and no payload yet.
        decoder.append(contentsOf: [0x82, 0xFF, 0, 0, 0, 0, 0x01, 0, 0, 0])
        #expect(decoder.next() == .error(.messageTooBig))
        decoder.append(contentsOf: Array(repeating: 0, count: 4096))
        #expect(decoder.bufferedByteCount == 0, "input after the error is dropped")
        #expect(decoder.next() == .error(.messageTooBig))
    }

    @Test func frameOfExactlyMaxFrameSizeIsAccepted() {
        let frame = WebSocketFrame(opcode: .binary, payload: Array(repeating: 1, count: 1000))
        let outcome = webSocketDecode([webSocketMasked(frame)], role: .server, maxFrameBytes: 1000)
        #expect(outcome == WebSocketDecodeOutcome(frames: [frame]))
    }

    @Test func framesBeforeAViolationAreStillDelivered() {
        let good = webSocketMasked(WebSocketFrame(opcode: .text, payload: Array("ok".utf8)))
        let outcome = webSocketDecode([good + [0xA1, 0x80]], role: .server)
        #expect(outcome.frames == [WebSocketFrame(opcode: .text, payload: Array("ok".utf8))])
        #expect(outcome.error?.closeCode == .protocolError)
    }

    @Test func errorsMapToTheirCloseCodes() {
        #expect(WebSocketError.protocolError("x").closeCode == .protocolError)
        #expect(WebSocketError.invalidUTF8.closeCode == .invalidPayload)
        #expect(WebSocketError.invalidPayload("x").closeCode == .invalidPayload)
        #expect(WebSocketError.messageTooBig.closeCode == .messageTooBig)
        #expect(WebSocketCloseCode.protocolError.rawValue == 1002)
        #expect(WebSocketError.protocolError("reserved opcode 3").description.utf8.count <= 123)
    }
}
