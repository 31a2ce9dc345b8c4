import HTTPWire
import Testing

private func text(_ string: String, fin: Bool = true) -> WebSocketFrame {
    WebSocketFrame(fin: fin, opcode: .text, payload: Array(string.utf8))
}

private func continuation(_ bytes: [UInt8], fin: Bool = true) -> WebSocketFrame {
    WebSocketFrame(fin: fin, opcode: .continuation, payload: bytes)
}

private func close(_ payload: [UInt8]) -> WebSocketFrame {
    WebSocketFrame(opcode: .close, payload: payload)
}

private func push(
    _ frames: [WebSocketFrame], into assembler: inout WebSocketMessageAssembler
)
    -> [WebSocketMessageAssembler.Output]
{
    frames.map { assembler.push($0) }
}

struct WebSocketAssemblerTests {
    @Test func singleFrameMessagesAreDelivered() {
        var assembler = WebSocketMessageAssembler()
        #expect(assembler.push(text("Hello")) == .message(.text("Hello")))
        #expect(assembler.push(WebSocketFrame(opcode: .binary, payload: [1, 2])) == .message(.binary([1, 2])))
        #expect(assembler.push(WebSocketFrame(opcode: .text, payload: [])) == .message(.text("")))
    }

    @Test func fragmentsAreJoinedAndControlFramesMayInterleave() {
        var assembler = WebSocketMessageAssembler()
        let outputs = push(
            [
                text("Hel", fin: false),
                WebSocketFrame(opcode: .ping, payload: [7]),
                continuation(Array("l".utf8), fin: false),
                WebSocketFrame(opcode: .pong, payload: []),
                continuation(Array("o".utf8)),
                WebSocketFrame(opcode: .binary, payload: [9]),
            ], into: &assembler)
        #expect(outputs == [.none, .ping([7]), .none, .pong([]), .message(.text("Hello")), .message(.binary([9]))])
        #expect(!assembler.isMessageInProgress)
    }

    @Test func continuationWithoutAStartedMessageIsAProtocolError() {
        var assembler = WebSocketMessageAssembler()
        #expect(assembler.push(continuation([1])).errorCloseCode == .protocolError)
    }

    @Test(arguments: [WebSocketOpcode.text, .binary])
    func newMessageBeforeTheFragmentedOneEndsIsAProtocolError(_ opcode: WebSocketOpcode) {
        var assembler = WebSocketMessageAssembler()
        #expect(assembler.push(text("part", fin: false)) == .none)
        #expect(assembler.push(WebSocketFrame(opcode: opcode, payload: [0x41])).errorCloseCode == .protocolError)
    }

    @Test func invalidUTF8FailsAtTheFragmentThatMakesItCertain() {
        var assembler = WebSocketMessageAssembler()
        // "a" + ED | A0 80: the surrogate is only certain once A0 arrives in the second fragment.
        #expect(assembler.push(WebSocketFrame(fin: false, opcode: .text, payload: [0x61, 0xED])) == .none)
        #expect(assembler.push(continuation([0xA0], fin: false)) == .error(.invalidUTF8))
    }

    @Test func invalidUTF8InAFirstFragmentFailsImmediately() {
        var assembler = WebSocketMessageAssembler()
        #expect(
            assembler.push(WebSocketFrame(fin: false, opcode: .text, payload: [0x61, 0xF5])) == .error(.invalidUTF8))
    }

    @Test func characterSplitAcrossFragmentsIsValid() {
        var assembler = WebSocketMessageAssembler()
        let euro: [UInt8] = [0xE2, 0x82, 0xAC]
        #expect(assembler.push(WebSocketFrame(fin: false, opcode: .text, payload: [euro[0]])) == .none)
        #expect(assembler.push(continuation([euro[1]], fin: false)) == .none)
        #expect(assembler.push(continuation([euro[2]])) == .message(.text("€")))
    }

    @Test func textEndingMidCharacterIsInvalid() {
        var assembler = WebSocketMessageAssembler()
        #expect(assembler.push(WebSocketFrame(fin: false, opcode: .text, payload: [0x61])) == .none)
        #expect(assembler.push(continuation([0xE2, 0x82])) == .error(.invalidUTF8))
    }

    @Test func binaryIsNotValidatedAsUTF8() {
        var assembler = WebSocketMessageAssembler()
        #expect(
            assembler.push(WebSocketFrame(opcode: .binary, payload: [0xFF, 0xED])) == .message(.binary([0xFF, 0xED])))
    }

    @Test func fragmentedMessageOverTheLimitFailsBeforeAppending() {
        var assembler = WebSocketMessageAssembler(maxMessageBytes: 10)
        #expect(
            assembler.push(WebSocketFrame(fin: false, opcode: .binary, payload: Array(repeating: 1, count: 6))) == .none
        )
        #expect(assembler.push(continuation(Array(repeating: 1, count: 5))) == .error(.messageTooBig))
    }

    @Test func messageOfExactlyTheLimitIsAccepted() {
        var assembler = WebSocketMessageAssembler(maxMessageBytes: 10)
        #expect(assembler.push(text("12345", fin: false)) == .none)
        #expect(assembler.push(continuation(Array("67890".utf8))) == .message(.text("1234567890")))
        #expect(assembler.push(text("12345678901")) == .error(.messageTooBig))
    }

    @Test func errorsAreSticky() {
        var assembler = WebSocketMessageAssembler()
        #expect(assembler.push(continuation([1])).errorCloseCode == .protocolError)
        #expect(assembler.push(text("fine")).errorCloseCode == .protocolError)
    }

    @Test func controlFramesAreCheckedEvenWhenBuiltByHand() {
        var assembler = WebSocketMessageAssembler()
        let oversized = WebSocketFrame(opcode: .ping, payload: Array(repeating: 0, count: 126))
        #expect(assembler.push(oversized).errorCloseCode == .protocolError)
        var other = WebSocketMessageAssembler()
        #expect(other.push(WebSocketFrame(fin: false, opcode: .ping, payload: [])).errorCloseCode == .protocolError)
        var third = WebSocketMessageAssembler()
        #expect(
            third.push(WebSocketFrame(opcode: WebSocketOpcode(rawValue: 3), payload: [])).errorCloseCode
                == .protocolError)
    }

    // MARK: Close frames (RFC 6455 §5.5.1, §7.4)

    @Test func emptyCloseHasNoCode() {
        var assembler = WebSocketMessageAssembler()
        #expect(assembler.push(close([])) == .close(code: nil, reason: ""))
    }

    @Test func oneByteClosePayloadIsAProtocolError() {
        var assembler = WebSocketMessageAssembler()
        #expect(assembler.push(close([0x03])).errorCloseCode == .protocolError)
    }

    @Test(arguments: [0, 999, 1004, 1005, 1006, 1015, 1016, 1100, 2000, 2999, 5000, 65_535] as [UInt16])
    func closeWithAnInvalidCodeIsAProtocolError(_ code: UInt16) {
        var assembler = WebSocketMessageAssembler()
        #expect(!WebSocketCloseCode(rawValue: code).isValidOnWire)
        #expect(assembler.push(close([UInt8(code >> 8), UInt8(code & 0xFF)])).errorCloseCode == .protocolError)
    }

    @Test(
        arguments: [1000, 1001, 1002, 1003, 1007, 1008, 1009, 1010, 1011, 1012, 1013, 1014, 3000, 4000, 4999]
            as [UInt16])
    func closeWithAValidCodeIsReported(_ code: UInt16) {
        var assembler = WebSocketMessageAssembler()
        let output = assembler.push(close([UInt8(code >> 8), UInt8(code & 0xFF)] + Array("bye ✓".utf8)))
        #expect(output == .close(code: WebSocketCloseCode(rawValue: code), reason: "bye ✓"))
    }

    @Test func closeReasonMustBeValidUTF8() {
        var assembler = WebSocketMessageAssembler()
        #expect(assembler.push(close([0x03, 0xE8, 0xED, 0xA0, 0x80])) == .error(.invalidUTF8))
        var truncated = WebSocketMessageAssembler()
        #expect(truncated.push(close([0x03, 0xE8, 0xE2, 0x82])) == .error(.invalidUTF8))
    }

    @Test func closeMayArriveBetweenFragments() {
        var assembler = WebSocketMessageAssembler()
        #expect(assembler.push(text("a", fin: false)) == .none)
        #expect(assembler.push(close([0x03, 0xE8])) == .close(code: .normal, reason: ""))
    }

    // MARK: Compressed messages (RFC 7692)

    @Test func compressedBitWithoutAnInflaterIsAProtocolError() {
        var assembler = WebSocketMessageAssembler()
        #expect(
            assembler.push(WebSocketFrame(rsv1: true, opcode: .text, payload: [0])).errorCloseCode == .protocolError)
    }

    @Test func compressedBitOnAContinuationIsAProtocolError() {
        var assembler = WebSocketMessageAssembler(
            inflater: PerMessageDeflate.Inflater(windowBits: 15, noContextTakeover: false))
        #expect(assembler.push(text("a", fin: false)) == .none)
        #expect(
            assembler.push(WebSocketFrame(rsv1: true, opcode: .continuation, payload: [0])).errorCloseCode
                == .protocolError)
    }

    @Test func compressedFragmentedTextIsInflatedAtTheEnd() {
        let deflater = PerMessageDeflate.Deflater(windowBits: 15, noContextTakeover: false)
        var assembler = WebSocketMessageAssembler(
            inflater: PerMessageDeflate.Inflater(windowBits: 15, noContextTakeover: false))
        let message = String(repeating: "compress me, κόσμε! ", count: 50)
        for _ in 0..<3 {
            let compressed = deflater.compress(Array(message.utf8))
            let third = compressed.count / 3
            let frames = [
                WebSocketFrame(fin: false, rsv1: true, opcode: .text, payload: Array(compressed[..<third])),
                continuation(Array(compressed[third..<(2 * third)]), fin: false),
                continuation(Array(compressed[(2 * third)...])),
            ]
            #expect(push(frames, into: &assembler) == [.none, .none, .message(.text(message))])
        }
    }

    @Test func compressedInvalidUTF8IsRejectedAfterInflating() {
        let deflater = PerMessageDeflate.Deflater(windowBits: 15, noContextTakeover: true)
        var assembler = WebSocketMessageAssembler(
            inflater: PerMessageDeflate.Inflater(windowBits: 15, noContextTakeover: true))
        let frame = WebSocketFrame(rsv1: true, opcode: .text, payload: deflater.compress([0x61, 0xED, 0xA0, 0x80]))
        #expect(assembler.push(frame) == .error(.invalidUTF8))
    }

    @Test func compressionBombIsRefused() {
        let deflater = PerMessageDeflate.Deflater(windowBits: 15, noContextTakeover: true)
        let bomb = deflater.compress(Array(repeating: 0, count: 1 << 20))
        #expect(bomb.count < 2048)
        var assembler = WebSocketMessageAssembler(
            maxMessageBytes: 64 * 1024, inflater: PerMessageDeflate.Inflater(windowBits: 15, noContextTakeover: true))
        #expect(assembler.push(WebSocketFrame(rsv1: true, opcode: .binary, payload: bomb)) == .error(.messageTooBig))
    }

    @Test func corruptCompressedDataFailsWithInvalidPayload() {
        var assembler = WebSocketMessageAssembler(
            inflater: PerMessageDeflate.Inflater(windowBits: 15, noContextTakeover: true))
        let output = assembler.push(WebSocketFrame(rsv1: true, opcode: .binary, payload: [0xFF, 0xFF, 0xFF, 0xFF]))
        #expect(output.errorCloseCode == .invalidPayload)
    }
}

extension WebSocketMessageAssembler.Output {
    /// The close code of an `.error` output, `nil` for anything else.
    fileprivate var errorCloseCode: WebSocketCloseCode? {
        if case .error(let error) = self { return error.closeCode }
        return nil
    }
}
