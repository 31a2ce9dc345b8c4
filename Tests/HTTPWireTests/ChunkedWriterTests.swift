import HTTPWire
import Testing

@Suite("Chunked writer")
struct ChunkedWriterTests {
    @Test("chunks are framed with lowercase hex sizes and CRLFs")
    func chunkFraming() throws {
        var buffer: [UInt8] = []
        HTTPChunkedWriter.writeChunk(bytes("Wiki"), into: &buffer)
        HTTPChunkedWriter.writeChunk([UInt8](repeating: 0x2E, count: 26), into: &buffer)
        HTTPChunkedWriter.writeChunk([UInt8](), into: &buffer)
        try HTTPChunkedWriter.writeLastChunk(into: &buffer)
        let dots = String(repeating: ".", count: 26)
        #expect(String(decoding: buffer, as: UTF8.self) == "4\r\nWiki\r\n1a\r\n\(dots)\r\n0\r\n\r\n")
    }

    @Test("a large chunk uses a multi-digit hex size")
    func largeChunk() {
        var buffer: [UInt8] = []
        HTTPChunkedWriter.writeChunk([UInt8](repeating: 0, count: 4096), into: &buffer)
        #expect(Array(buffer.prefix(6)) == bytes("1000\r\n"))
        #expect(buffer.count == 6 + 4096 + 2)
    }

    @Test("raw buffer pointers and slices can be written as chunks")
    func rawBufferChunks() {
        var buffer: [UInt8] = []
        let data = bytes("abcdef")
        data.withUnsafeBytes { HTTPChunkedWriter.writeChunk($0, into: &buffer) }
        HTTPChunkedWriter.writeChunk(data[1..<3], into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == "6\r\nabcdef\r\n2\r\nbc\r\n")
    }

    @Test("the last chunk carries trailers")
    func trailers() throws {
        var buffer: [UInt8] = []
        try HTTPChunkedWriter.writeLastChunk(trailers: ["Server-Timing": "db;dur=53", "X-Sum": "1"], into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == "0\r\nServer-Timing: db;dur=53\r\nX-Sum: 1\r\n\r\n")
    }

    @Test("trailer injection is rejected and nothing is written")
    func trailerInjection() {
        var buffer: [UInt8] = []
        #expect(throws: HTTPWriteError.invalidHeaderValue(name: "X")) {
            try HTTPChunkedWriter.writeLastChunk(trailers: ["X": "a\r\n\r\nGET / HTTP/1.1"], into: &buffer)
        }
        #expect(buffer.isEmpty)
    }

    @Test("chunked output round-trips through the request parser")
    func roundTrip() throws {
        var body: [UInt8] = []
        let pieces = [bytes("first "), bytes("second "), [UInt8](repeating: 0x7A, count: 300)]
        for piece in pieces {
            HTTPChunkedWriter.writeChunk(piece, into: &body)
        }
        try HTTPChunkedWriter.writeLastChunk(trailers: ["T": "1"], into: &body)
        let request = bytes("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n") + body
        let outcome = parseInAllSplits(request, everySplit: false)
        let message = try #require(outcome.messages.first)
        #expect(message.isComplete)
        #expect(message.body == pieces.flatMap { $0 })
        #expect(message.trailers == ["T": "1"])
    }
}
