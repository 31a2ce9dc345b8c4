import Testing

@testable import HTTPWire

/// The close-frame payload rule (RFC 6455 §5.5.1): the code in 2 bytes, big-endian, then at most 123 bytes of the
/// reason's UTF-8, cut between characters.
@Suite struct WebSocketClosePayloadTests {
    static func payload(_ code: WebSocketCloseCode?, _ reason: String) -> [UInt8] {
        WebSocketFrame.closePayload(code: code, reason: reason)
    }

    @Test func writesTheCodeBigEndianThenTheReason() {
        #expect(Self.payload(.goingAway, "idle") == [0x03, 0xE9] + Array("idle".utf8))
        #expect(Self.payload(WebSocketCloseCode(rawValue: 4999), "") == [0x13, 0x87])
    }

    @Test func anEmptyReasonIsTheCodeAlone() {
        #expect(Self.payload(.normal, "") == [0x03, 0xE8])
    }

    @Test func noCodeIsAnEmptyPayloadWhateverTheReason() {
        #expect(Self.payload(nil, "").isEmpty)
        #expect(Self.payload(nil, "ignored: a reason needs a code before it").isEmpty)
    }

    @Test func aReasonOfExactly123BytesIsKeptAndALongerOneCutThere() {
        #expect(WebSocketFrame.maxCloseReasonBytes == 123)
        let exact = String(repeating: "a", count: 123)
        #expect(Self.payload(.normal, exact) == [0x03, 0xE8] + Array(exact.utf8))
        #expect(Self.payload(.normal, exact).count == WebSocketFrame.maxControlPayload)
        #expect(Self.payload(.normal, exact + "b") == [0x03, 0xE8] + Array(exact.utf8))
        #expect(Self.payload(.normal, String(repeating: "a", count: 1000)).count == 125)
    }

    @Test(arguments: ["é", "€", "😀"])
    func aCharacterStraddlingTheCutIsLeftOutWhole(_ character: String) {
        let width = character.utf8.count
        // The character's first byte is the 123rd of the reason, its last one past the cut.
        let before = String(repeating: "a", count: 122)
        #expect(Self.payload(.normal, before + character + "z") == [0x03, 0xE8] + Array(before.utf8))
        // Ending exactly at the cut, it is kept.
        let fitting = String(repeating: "a", count: 123 - width)
        #expect(Self.payload(.normal, fitting + character + "z") == [0x03, 0xE8] + Array((fitting + character).utf8))
    }

    @Test func theReasonIsValidUTF8WhereverTheCutFalls() {
        for lead in 0..<4 {
            for character in ["é", "€", "😀"] {
                let reason = String(repeating: "a", count: lead) + String(repeating: character, count: 70)
                let payload = Self.payload(.policyViolation, reason)
                #expect(payload.count <= 125)
                #expect(UTF8Validator.isValid(payload.dropFirst(2)), "\(lead) then \(character)")
                #expect(125 - payload.count < character.utf8.count, "only a whole character was left out")
                #expect(reason.utf8.starts(with: payload.dropFirst(2)))
            }
        }
    }

    @Test func theFrameBuilderCarriesThePayload() {
        let reason = String(repeating: "é", count: 100)
        #expect(WebSocketFrame.close(code: .goingAway, reason: reason).payload == Self.payload(.goingAway, reason))
        #expect(WebSocketFrame.close(code: .goingAway, reason: reason).opcode == .close)
    }
}
