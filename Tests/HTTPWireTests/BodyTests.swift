import HTTPWire
import Testing

@Suite("Request bodies")
struct BodyTests {
    @Test("a Content-Length body is delivered exactly")
    func contentLengthBody() throws {
        let message = try parseSingle("POST /upload HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\nhello world")
        #expect(message.head.bodyFraming == .contentLength(11))
        #expect(message.head.contentLength == 11)
        #expect(message.body == bytes("hello world"))
        #expect(message.trailers == nil)
    }

    @Test("Content-Length: 0 ends the message immediately")
    func zeroContentLength() throws {
        let message = try parseSingle("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n")
        #expect(message.head.bodyFraming == .contentLength(0))
        #expect(message.body.isEmpty)
    }

    @Test("identical repeated Content-Length values and leading zeros are accepted")
    func repeatedIdenticalContentLength() throws {
        let message = try parseSingle(
            "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 3, 3\r\nContent-Length: 003\r\n\r\nabc"
        )
        #expect(message.body == bytes("abc"))
    }

    @Test("a request without Content-Length or Transfer-Encoding has no body")
    func noFramingMeansNoBody() {
        let outcome = parseInAllSplits("POST / HTTP/1.1\r\nHost: h\r\n\r\nGET /next HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(outcome.error == nil)
        #expect(outcome.completeMessages.count == 2)
        #expect(outcome.messages.first?.body == [])
        #expect(outcome.messages.last?.head.path == "/next")
    }

    @Test("a chunked body with extensions and trailers is decoded")
    func chunkedWithExtensionsAndTrailers() throws {
        let message = try parseSingle(
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;name=value\r\nhello\r\n"
                + "6 ; a=\"quoted; str\" ;b\r\n world\r\n"
                + "A\r\n0123456789\r\n"
                + "0;last\r\nX-Checksum: abc\r\nX-Other:  2 \r\n\r\n"
        )
        #expect(message.head.bodyFraming == .chunked)
        #expect(message.body == bytes("hello world0123456789"))
        #expect(message.trailers == ["X-Checksum": "abc", "X-Other": "2"])
    }

    @Test("a chunked body without trailers produces no trailers action")
    func chunkedWithoutTrailers() throws {
        let message = try parseSingle(
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: Chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n"
        )
        #expect(message.body == bytes("abc"))
        #expect(message.trailers == nil)
    }

    @Test("chunk sizes are hexadecimal in either case with leading zeros")
    func chunkSizeHex() throws {
        let payload = String(repeating: "x", count: 26)
        let message = try parseSingle(
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n001a\r\n\(payload)\r\n0\r\n\r\n"
        )
        #expect(message.body.count == 26)
        let upper = try parseSingle(
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1A\r\n\(payload)\r\n0\r\n\r\n"
        )
        #expect(upper.body.count == 26)
    }

    @Test(
        "malformed chunk-size lines are rejected",
        arguments: ["zz", "", " 5", "5 ", "5 x", "-5", "0x5", "5;\u{1}", "+5"]
    )
    func rejectsBadChunkSizes(line: String) {
        let input = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n\(line)\r\nhello\r\n0\r\n\r\n"
        #expect(parseError(input) == .invalidChunkSize)
    }

    @Test("chunk data not followed by CRLF is rejected")
    func rejectsMissingChunkTerminator() {
        let head = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
        #expect(parseError(head + "5\r\nhelloXX0\r\n\r\n") == .invalidChunkTerminator)
        #expect(parseError(head + "5\r\nhello\rX") == .invalidChunkTerminator)
        #expect(parseError(head + "5\r\nhello\n0\r\n\r\n") == .invalidChunkTerminator)
        #expect(parseError(head + "3\r\nhello\r\n0\r\n\r\n") == .invalidChunkTerminator)
    }

    @Test("a chunked body missing its final CRLF waits for more data")
    func missingFinalCRLFNeedsMoreData() throws {
        let outcome = parseInAllSplits(
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\nX-T: 1\r\n"
        )
        #expect(outcome.error == nil)
        let message = try #require(outcome.messages.first)
        #expect(message.body == bytes("hello"))
        #expect(!message.isComplete)
    }

    @Test("invalid trailer fields are rejected like header fields")
    func rejectsBadTrailers() {
        let head = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n"
        #expect(parseError(head + "Bad Name: x\r\n\r\n") == .invalidHeaderName)
        #expect(parseError(head + "X: a\r\n folded\r\n\r\n") == .obsoleteLineFolding)
        #expect(parseError(head + "X : a\r\n\r\n") == .whitespaceBeforeColon)
    }

    @Test("body bytes are delivered as they arrive, before the body is complete")
    func streamsBodyIncrementally() {
        var parser = HTTPRequestParser()
        parser.append(contentsOf: bytes("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nabc"))
        guard case .head = parser.next() else {
            Issue.record("expected head")
            return
        }
        #expect(parser.next() == .body(bytes("abc")))
        #expect(parser.next() == .needMoreData)
        #expect(parser.state == .body(remaining: 7))
        #expect(parser.bufferedByteCount == 0)
        parser.append(contentsOf: bytes("defghijGET"))
        #expect(parser.next() == .body(bytes("defghij")))
        #expect(parser.next() == .end)
        #expect(parser.next() == .needMoreData)
        #expect(parser.bufferedByteCount == 3)
    }
}
