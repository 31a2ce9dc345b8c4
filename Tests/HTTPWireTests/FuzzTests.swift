import HTTPWire
import Testing

@Suite("Fuzzing")
struct FuzzTests {
    static let seeds: [[UInt8]] = [
        bytes(
            "GET /a/b?c=d&e=f+g HTTP/1.1\r\nHost: example.com\r\n"
                + "Connection: keep-alive, Upgrade\r\nUpgrade: x\r\n\r\n"),
        bytes("POST /p HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nExpect: 100-continue\r\n\r\nhello"),
        bytes("PUT /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3;x=y\r\nabc\r\n0\r\nT: 1\r\n\r\n"),
        bytes("GET http://h:80/%41?%42=%43 HTTP/1.0\r\n\r\nOPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n"),
    ]

    /// Bytes that matter to the grammar, so mutations hit interesting paths more often.
    static let interesting: [UInt8] = Array("\r\n :;%+?&=/*0123456789aFHTP.,\t".utf8) + [0x00, 0x7F, 0x80, 0xFF]

    static func mutate(_ input: [UInt8], using generator: inout SeededGenerator) -> [UInt8] {
        var output = input
        let mutationCount = Int.random(in: 1...4, using: &generator)
        for _ in 0..<mutationCount {
            let position = output.isEmpty ? 0 : Int.random(in: 0..<output.count, using: &generator)
            let byte =
                Bool.random(using: &generator)
                ? interesting[Int.random(in: 0..<interesting.count, using: &generator)]
                : UInt8.random(in: 0...255, using: &generator)
            switch Int.random(in: 0..<5, using: &generator) {
            case 0 where !output.isEmpty:
                output[position] = byte
            case 1:
                output.insert(byte, at: position)
            case 2 where !output.isEmpty:
                let end = min(output.count, position + Int.random(in: 1...8, using: &generator))
                output.removeSubrange(position..<end)
            case 3 where !output.isEmpty:
                let end = min(output.count, position + Int.random(in: 1...16, using: &generator))
                output.insert(contentsOf: output[position..<end], at: position)
            default:
                output.append(byte)
            }
        }
        return output
    }

    @Test("10,000 random and mutated inputs never crash and end in needMoreData, requests or an error")
    func fuzz() {
        var generator = SeededGenerator(seed: 0xC0FFEE)
        let tightLimits = HTTPParserLimits(
            maxRequestLineBytes: 40,
            maxHeaderBytes: 80,
            maxHeaderCount: 3,
            maxBodyBytes: 8,
            maxChunkSizeLineBytes: 6,
            maxTrailerBytes: 10,
            maxLeadingEmptyLines: 1
        )
        var errors = 0
        var completed = 0
        for iteration in 0..<10_000 {
            let input: [UInt8]
            if iteration % 4 == 0 {
                input = (0..<Int.random(in: 0...120, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
            } else {
                input = Self.mutate(Self.seeds[iteration % Self.seeds.count], using: &generator)
            }
            let limits = iteration % 5 == 0 ? tightLimits : HTTPParserLimits()
            let whole = parseWhole(input, limits: limits)
            let chunked = parse(chunks: randomChunks(input, maxChunk: 7, using: &generator), limits: limits)
            #expect(chunked == whole, "iteration \(iteration)")
            for message in whole.completeMessages {
                // A completed request always satisfies the framing it announced.
                if case .contentLength(let length) = message.head.bodyFraming {
                    #expect(message.body.count == length)
                }
                #expect(message.body.count <= limits.maxBodyBytes)
            }
            if whole.error != nil {
                errors += 1
            }
            completed += whole.completeMessages.count
        }
        #expect(errors > 1000)
        #expect(completed > 100)
    }
}
