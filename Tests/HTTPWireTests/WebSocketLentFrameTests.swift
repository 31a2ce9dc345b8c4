import Basics
import HTTPWire
import Testing

/// The zero-copy receive path: frames lent in place by the decoder, whole messages answered in place by the
/// assembler, headers built without allocating, and the word-at-a-time UTF-8 check.
struct WebSocketLentFrameTests {
    /// Pushes a lent copy of `frame`.
    private func pushLent(
        _ frame: WebSocketFrame, into assembler: inout WebSocketMessageAssembler
    )
        -> WebSocketMessageAssembler.Output
    {
        frame.payload.withUnsafeBytes { payload in
            assembler.push(WebSocketFrameView(fin: frame.fin, rsv1: frame.rsv1, opcode: frame.opcode, payload: payload))
        }
    }

    @Test func aWholeMessageIsAnsweredInPlace() {
        var assembler = WebSocketMessageAssembler()
        #expect(
            pushLent(WebSocketFrame(opcode: .text, payload: Array("héllo".utf8)), into: &assembler)
                == .unfragmented(isText: true))
        #expect(
            pushLent(WebSocketFrame(opcode: .binary, payload: [0xFF, 0]), into: &assembler)
                == .unfragmented(isText: false))
        #expect(pushLent(WebSocketFrame(opcode: .text, payload: []), into: &assembler) == .unfragmented(isText: true))
    }

    @Test func invalidOrTruncatedUTF8InAWholeTextMessageFails() {
        for payload: [UInt8] in [
            [0xC0, 0x80], [0x61, 0xE2, 0x82], [0xED, 0xA0, 0x80], Array("abcdefgh".utf8) + [0xFF],
        ] {
            var assembler = WebSocketMessageAssembler()
            #expect(pushLent(WebSocketFrame(opcode: .text, payload: payload), into: &assembler) == .error(.invalidUTF8))
        }
    }

    @Test func aWholeMessageOverTheLimitFails() {
        var assembler = WebSocketMessageAssembler(maxMessageBytes: 4)
        #expect(
            pushLent(WebSocketFrame(opcode: .binary, payload: [1, 2, 3, 4, 5]), into: &assembler)
                == .error(.messageTooBig))
    }

    @Test func fragmentsAreCopiedAndReassembled() {
        var assembler = WebSocketMessageAssembler()
        #expect(
            pushLent(WebSocketFrame(fin: false, opcode: .text, payload: Array("ab".utf8)), into: &assembler) == .none)
        #expect(pushLent(WebSocketFrame(opcode: .ping, payload: [7]), into: &assembler) == .ping([7]))
        #expect(
            pushLent(WebSocketFrame(opcode: .continuation, payload: Array("c".utf8)), into: &assembler)
                == .message(.text("abc")))
    }

    @Test func theOwnedFormNeverAnswersInPlace() {
        var assembler = WebSocketMessageAssembler()
        #expect(assembler.push(WebSocketFrame(opcode: .text, payload: Array("hi".utf8))) == .message(.text("hi")))
        #expect(assembler.push(WebSocketFrame(opcode: .binary, payload: [9])) == .message(.binary([9])))
    }

    @Test func framesLieInPlaceAndAreUnmaskedThere() {
        let frames = [
            WebSocketFrame(opcode: .text, payload: Array("first".utf8)),
            WebSocketFrame(opcode: .binary, payload: Array(repeating: 0xAB, count: 300)),
            WebSocketFrame(opcode: .ping, payload: []),
        ]
        var input = frames.flatMap { webSocketMasked($0) }
        var decoder = WebSocketFrameDecoder(role: .server)
        var lent: [WebSocketFrame] = []
        var inPlace = true
        let error = input.withUnsafeMutableBytes { bytes in
            decoder.decode(bytes) { frame in
                lent.append(frame.frame)
                let start = UnsafeRawPointer(bytes.baseAddress!)
                let inside = frame.payload.baseAddress.map { $0 >= start && $0 < start + bytes.count } ?? true
                inPlace = inPlace && (frame.payload.isEmpty || inside)
                return true
            }
        }
        #expect(error == nil)
        #expect(lent == frames)
        #expect(inPlace, "payloads point into the input")
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test(arguments: [1, 2, 7, 150])
    func aSplitFrameIsCompletedInTheBufferAndTheNextOnesLieInPlaceAgain(cut: Int) {
        let frames = [
            WebSocketFrame(opcode: .binary, payload: Array(repeating: 0xCD, count: 200)),
            WebSocketFrame(opcode: .text, payload: Array("second".utf8)),
            WebSocketFrame(opcode: .pong, payload: [1, 2]),
        ]
        let bytes = frames.flatMap { webSocketMasked($0) }
        var first = Array(bytes[..<cut])
        var rest = Array(bytes[cut...])
        var decoder = WebSocketFrameDecoder(role: .server)
        var lent: [WebSocketFrame] = []
        var places: [Bool] = []
        let noError = first.withUnsafeMutableBytes { input in decoder.decode(input) { _ in true } }
        #expect(noError == nil)
        #expect(decoder.bufferedByteCount == cut)
        let error = rest.withUnsafeMutableBytes { input in
            decoder.decode(input) { frame in
                lent.append(frame.frame)
                let start = UnsafeRawPointer(input.baseAddress!)
                places.append(frame.payload.baseAddress.map { $0 >= start && $0 < start + input.count } ?? false)
                return true
            }
        }
        #expect(error == nil)
        #expect(lent == frames)
        #expect(places == [false, true, true], "the split frame is lent from the buffer, the others from the input")
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func randomStreamsInRandomReadsWithRandomPausesGiveEveryFrameInOrder(seed: UInt64) {
        var random = SeededRandom(seed: seed)
        let role: WebSocketRole = seed % 2 == 0 ? .client : .server
        var frames: [WebSocketFrame] = []
        for _ in 0..<300 {
            let count = [0, 1, 125, 126, 200, 65535, 65536, 70000][Int(random.next() % 8)]
            let payload = (0..<count).map { UInt8(truncatingIfNeeded: $0 &+ Int(random.next() % 7)) }
            let opcode: WebSocketOpcode = count <= 125 && random.next() % 4 == 0 ? .ping : .binary
            frames.append(WebSocketFrame(opcode: opcode, payload: payload))
        }
        let stream = frames.flatMap {
            role == .server ? webSocketMasked($0) : WebSocketFrameEncoder.encode($0, mask: nil)
        }
        var decoder = WebSocketFrameDecoder(role: role, maxFrameBytes: 1 << 20)
        var lent: [WebSocketFrame] = []
        var offset = 0
        var reads = 0
        while offset < stream.count || decoder.bufferedByteCount > 0, reads < 100_000 {
            reads += 1
            let size = offset < stream.count ? min(stream.count - offset, 1 + Int(random.next() % 70_000)) : 0
            var read = Array(stream[offset..<(offset + size)])
            offset += size
            let error = read.withUnsafeMutableBytes { input in
                decoder.decode(input) { frame in
                    lent.append(frame.frame)
                    // A connection pausing for flow control now and then: the rest waits for the next call.
                    return random.next() % 5 != 0
                }
            }
            #expect(error == nil)
        }
        #expect(lent == frames)
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test func stoppingKeepsTheRestForTheNextCall() {
        let frames = [
            WebSocketFrame(opcode: .text, payload: [0x61]), WebSocketFrame(opcode: .text, payload: [0x62]),
            WebSocketFrame(opcode: .binary, payload: Array(repeating: 7, count: 200)),
        ]
        var input = frames.flatMap { webSocketMasked($0) }
        var decoder = WebSocketFrameDecoder(role: .server)
        var seen: [WebSocketFrame] = []
        let error = input.withUnsafeMutableBytes { bytes in
            decoder.decode(bytes) { frame in
                seen.append(frame.frame)
                return false
            }
        }
        #expect(error == nil)
        #expect(seen == [frames[0]])
        #expect(decoder.bufferedByteCount == input.count - webSocketMasked(frames[0]).count)
        // Stopping again in the buffered bytes, then going on with no new input.
        var empty: [UInt8] = []
        _ = empty.withUnsafeMutableBytes { bytes in
            decoder.decode(bytes) { frame in
                seen.append(frame.frame)
                return false
            }
        }
        #expect(seen == Array(frames[0...1]))
        _ = empty.withUnsafeMutableBytes { bytes in
            decoder.decode(bytes) { frame in
                seen.append(frame.frame)
                return true
            }
        }
        #expect(seen == frames)
        #expect(decoder.bufferedByteCount == 0)
    }

    @Test(arguments: [0, 1, 125, 126, 65535, 65536, 70000])
    func headersMatchTheEncoder(payloadCount: Int) {
        let payload = [UInt8](repeating: 0x5A, count: payloadCount)
        for mask: (UInt8, UInt8, UInt8, UInt8)? in [nil, (1, 2, 3, 4)] {
            for (fin, rsv1, opcode) in [
                (true, false, WebSocketOpcode.text), (false, true, .binary), (true, false, .close),
            ]
            where payloadCount <= 125 || !opcode.isControl {
                let frame = WebSocketFrame(fin: fin, rsv1: rsv1, opcode: opcode, payload: payload)
                let encoded = WebSocketFrameEncoder.encode(frame, mask: mask)
                let header = WebSocketFrameHeader(
                    fin: fin, rsv1: rsv1, opcode: opcode, payloadCount: payloadCount, mask: mask)
                #expect(
                    header.count == WebSocketFrameEncoder.headerSize(payloadCount: payloadCount, masked: mask != nil))
                #expect(header.withUnsafeBytes { Array($0) } == Array(encoded.prefix(header.count)))
            }
        }
    }

    @Test func rawUTF8ValidationAgreesWithTheCollectionForm() {
        var generator = SeededGenerator(seed: 42)
        let pieces: [[UInt8]] = [
            Array("abcdefghijklmnop".utf8), Array("é".utf8), Array("€".utf8), Array("𝄞".utf8), [0xC0], [0xED, 0xA0],
            [0x80], [0xF4, 0x90], Array("12345678".utf8), [0xE2],
        ]
        for _ in 0..<2000 {
            let count = Int.random(in: 0...6, using: &generator)
            let bytes = (0..<count).flatMap { _ in pieces.randomElement(using: &generator)! }
            var raw = UTF8Validator()
            var collection = UTF8Validator()
            let rawResult = bytes.withUnsafeBytes { raw.validate($0) }
            #expect(rawResult == collection.validate(bytes[...]), "\(bytes)")
            #expect(raw.isAtCharacterBoundary == collection.isAtCharacterBoundary, "\(bytes)")
            #expect((rawResult && raw.isAtCharacterBoundary) == (String(validating: bytes, as: UTF8.self) != nil))
        }
    }
}
