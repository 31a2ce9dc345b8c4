import HTTPWire
import Testing

struct WebSocketPerMessageDeflateTests {
    @Test func helloWithoutContextTakeoverMatchesRFC7692Example() {
        // RFC 7692 §7.2.3.1.
        let deflater = PerMessageDeflate.Deflater(windowBits: 15, noContextTakeover: true)
        #expect(deflater.compress(Array("Hello".utf8)) == webSocketHex("f2 48 cd c9 c9 07 00"))
        #expect(deflater.compress(Array("Hello".utf8)) == webSocketHex("f2 48 cd c9 c9 07 00"))
    }

    @Test func secondMessageIsSmallerWithContextTakeover() {
        // RFC 7692 §7.2.3.2: the second "Hello" refers back to the first.
        let deflater = PerMessageDeflate.Deflater(windowBits: 15, noContextTakeover: false)
        let first = deflater.compress(Array("Hello".utf8))
        let second = deflater.compress(Array("Hello".utf8))
        #expect(first == webSocketHex("f2 48 cd c9 c9 07 00"))
        #expect(second.count < first.count)
        let inflater = PerMessageDeflate.Inflater(windowBits: 15, noContextTakeover: false)
        #expect((try? inflater.decompress(first, limit: 100)) == Array("Hello".utf8))
        #expect((try? inflater.decompress(second, limit: 100)) == Array("Hello".utf8))
    }

    @Test func rfcExamplesInflate() throws {
        let inflater = PerMessageDeflate.Inflater(windowBits: 15, noContextTakeover: true)
        // §7.2.3.1 compressed, §7.2.3.3 stored (uncompressed) block, §7.2.3.4 BFINAL set, §7.2.3.6 empty.
        #expect(try inflater.decompress(webSocketHex("f2 48 cd c9 c9 07 00"), limit: 5) == Array("Hello".utf8))
        #expect(
            try inflater.decompress(webSocketHex("00 05 00 fa ff 48 65 6c 6c 6f 00"), limit: 5) == Array("Hello".utf8))
        #expect(try inflater.decompress(webSocketHex("f3 48 cd c9 c9 07 00"), limit: 5) == Array("Hello".utf8))
        #expect(try inflater.decompress([0x00], limit: 0) == [])
    }

    @Test func bfinalMessageDoesNotBreakTheNextOneWithContextTakeover() throws {
        let inflater = PerMessageDeflate.Inflater(windowBits: 15, noContextTakeover: false)
        #expect(try inflater.decompress(webSocketHex("f3 48 cd c9 c9 07 00"), limit: 5) == Array("Hello".utf8))
        #expect(try inflater.decompress(webSocketHex("f2 48 cd c9 c9 07 00"), limit: 5) == Array("Hello".utf8))
    }

    @Test(arguments: [false, true])
    func emptyMessageCompressesToASingleZeroByte(noContextTakeover: Bool) throws {
        let deflater = PerMessageDeflate.Deflater(windowBits: 15, noContextTakeover: noContextTakeover)
        let inflater = PerMessageDeflate.Inflater(windowBits: 15, noContextTakeover: noContextTakeover)
        for message in [[], Array("Hello".utf8), [], [], Array("Hello".utf8)] as [[UInt8]] {
            let compressed = deflater.compress(message)
            if message.isEmpty { #expect(compressed == [0x00]) }
            #expect(try inflater.decompress(compressed, limit: 10) == message)
        }
    }

    @Test(arguments: [(9, false), (9, true), (15, false), (15, true), (8, false), (12, true)])
    func messagesRoundTrip(windowBits: Int, noContextTakeover: Bool) throws {
        let deflater = PerMessageDeflate.Deflater(windowBits: windowBits, noContextTakeover: noContextTakeover)
        let inflater = PerMessageDeflate.Inflater(windowBits: windowBits, noContextTakeover: noContextTakeover)
        var rng = SeededGenerator(seed: UInt64(windowBits))
        let words = ["alpha", "beta", "gamma", "delta", "κόσμε", "😀", " ", "\n"]
        for round in 0..<20 {
            let length = [0, 1, 100, 5000, 70_000][round % 5]
            var message: [UInt8] = []
            while message.count < length {
                message += Array(words[Int.random(in: 0..<words.count, using: &rng)].utf8)
            }
            if round % 7 == 3 {
                message = (0..<length).map { _ in UInt8.random(in: 0...255, using: &rng) }  // incompressible
            }
            let compressed = deflater.compress(message)
            #expect(try inflater.decompress(compressed, limit: message.count) == message, "round \(round)")
        }
    }

    @Test func inflateLimitStopsACompressionBomb() {
        let deflater = PerMessageDeflate.Deflater(windowBits: 15, noContextTakeover: true)
        let bomb = deflater.compress(Array(repeating: 0, count: 1 << 20))
        let inflater = PerMessageDeflate.Inflater(windowBits: 15, noContextTakeover: true)
        #expect(throws: WebSocketError.messageTooBig) { try inflater.decompress(bomb, limit: 64 * 1024) }
        // The inflater is usable again afterwards (reset), and the limit is inclusive.
        #expect((try? inflater.decompress(bomb, limit: 1 << 20))?.count == 1 << 20)
    }

    @Test(arguments: [
        [0xFF, 0xFF, 0xFF, 0xFF] as [UInt8],
        [0x07],  // reserved block type 3
        [0x01, 0x05, 0x00, 0x00, 0x00],  // stored block whose NLEN is not the complement of LEN
    ])
    func corruptInputIsRejected(_ input: [UInt8]) {
        let inflater = PerMessageDeflate.Inflater(windowBits: 15, noContextTakeover: true)
        #expect(throws: WebSocketError.self) { try inflater.decompress(input, limit: 1 << 20) }
        do {
            _ = try inflater.decompress(input, limit: 1 << 20)
        } catch {
            #expect(error.closeCode == .invalidPayload)
        }
    }

    @Test func dataAfterAFinalBlockIsRejected() {
        let inflater = PerMessageDeflate.Inflater(windowBits: 15, noContextTakeover: true)
        #expect(throws: WebSocketError.self) {
            try inflater.decompress(webSocketHex("f3 48 cd c9 c9 07 00 f2 48"), limit: 100)
        }
    }

    @Test func parametersBuildMatchingCodecsForEachRole() throws {
        let parameters = PerMessageDeflate.Parameters(
            serverNoContextTakeover: true, clientNoContextTakeover: false, serverMaxWindowBits: 10,
            clientMaxWindowBits: 12)
        let serverDeflater = parameters.makeDeflater(for: .server)
        let clientInflater = parameters.makeInflater(for: .client)
        #expect(serverDeflater.windowBits == 10 && serverDeflater.noContextTakeover)
        #expect(clientInflater.windowBits == 10 && clientInflater.noContextTakeover)
        let clientDeflater = parameters.makeDeflater(for: .client)
        let serverInflater = parameters.makeInflater(for: .server)
        #expect(clientDeflater.windowBits == 12 && !clientDeflater.noContextTakeover)
        let message = Array(String(repeating: "round trip ", count: 40).utf8)
        #expect(try clientInflater.decompress(serverDeflater.compress(message), limit: 1000) == message)
        #expect(try serverInflater.decompress(clientDeflater.compress(message), limit: 1000) == message)
    }
}
