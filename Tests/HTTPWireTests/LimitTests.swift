import HTTPWire
import Testing

@Suite("Limits")
struct LimitTests {
    @Test("the default limits are the documented ones")
    func defaults() {
        let limits = HTTPParserLimits()
        #expect(limits.maxRequestLineBytes == 8192)
        #expect(limits.maxHeaderBytes == 16_384)
        #expect(limits.maxHeaderCount == 100)
        #expect(limits.maxBodyBytes == 1_048_576)
        #expect(limits.maxChunkSizeLineBytes == 1024)
        #expect(limits.maxTrailerBytes == 4096)
        #expect(limits.maxLeadingEmptyLines == 8)
    }

    @Test("an oversized request-line is rejected with 414 before its end arrives")
    func oversizedURI() {
        let path = "/" + String(repeating: "a", count: 9000)
        let error = parseError(bytes("GET \(path) HTTP/1.1\r\nHost: h\r\n\r\n"), everySplit: false)
        #expect(error == .uriTooLong)
        #expect(error?.status == .uriTooLong)
        // Without any line terminator at all the parser still stops at the limit.
        var parser = HTTPRequestParser()
        parser.append(contentsOf: bytes("GET " + path))
        #expect(parser.next() == .error(.uriTooLong))
        #expect(parser.bufferedByteCount == 0)
    }

    @Test("a request-line of exactly the limit is accepted, one byte more is not")
    func requestLineBoundary() throws {
        let limits = HTTPParserLimits(maxRequestLineBytes: 20)
        let exact = "GET /" + String(repeating: "a", count: 6) + " HTTP/1.1"
        #expect(exact.utf8.count == 20)
        _ = try parseSingle(exact + "\r\nHost: h\r\n\r\n", limits: limits)
        let longer = "GET /" + String(repeating: "a", count: 7) + " HTTP/1.1\r\nHost: h\r\n\r\n"
        #expect(parseError(longer, limits: limits) == .uriTooLong)
    }

    @Test("an oversized header section is rejected with 431")
    func oversizedHeaders() {
        var request = "GET / HTTP/1.1\r\nHost: h\r\n"
        for index in 0..<40 {
            request += "X-Filler-\(index): " + String(repeating: "v", count: 500) + "\r\n"
        }
        let error = parseError(bytes(request + "\r\n"), everySplit: false)
        #expect(error == .headersTooLarge)
        #expect(error?.status == .requestHeaderFieldsTooLarge)
    }

    @Test("a single endless header line is rejected with 431 without waiting for its end")
    func endlessHeaderLine() {
        var parser = HTTPRequestParser(limits: HTTPParserLimits(maxHeaderBytes: 100))
        parser.append(contentsOf: bytes("GET / HTTP/1.1\r\nX: " + String(repeating: "v", count: 200)))
        #expect(parser.next() == .error(.headersTooLarge))
    }

    @Test("the header byte limit counts every field line and the final CRLF exactly")
    func headerBytesBoundary() throws {
        // "Host: h\r\n" (9) + "\r\n" (2) = 11 bytes.
        _ = try parseSingle("GET / HTTP/1.1\r\nHost: h\r\n\r\n", limits: HTTPParserLimits(maxHeaderBytes: 11))
        #expect(
            parseError("GET / HTTP/1.1\r\nHost: h\r\n\r\n", limits: HTTPParserLimits(maxHeaderBytes: 10))
                == .headersTooLarge
        )
    }

    @Test("too many header fields are rejected with 431")
    func tooManyHeaders() {
        var request = "GET / HTTP/1.1\r\nHost: h\r\n"
        for index in 0..<100 {
            request += "X-\(index): v\r\n"
        }
        let error = parseError(bytes(request + "\r\n"), everySplit: false)
        #expect(error == .tooManyHeaders)
        #expect(error?.status == .requestHeaderFieldsTooLarge)
        let limits = HTTPParserLimits(maxHeaderCount: 2)
        #expect(parseError("GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\n\r\n", limits: limits) == nil)
        #expect(parseError("GET / HTTP/1.1\r\nHost: h\r\nA: 1\r\nB: 2\r\n\r\n", limits: limits) == .tooManyHeaders)
    }

    @Test("a Content-Length above the body limit is rejected with 413 before any body is read")
    func contentLengthTooLarge() {
        let limits = HTTPParserLimits(maxBodyBytes: 10)
        let outcome = parseInAllSplits(
            bytes("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 11\r\n\r\n"), limits: limits)
        #expect(outcome.error == .bodyTooLarge)
        #expect(outcome.messages.isEmpty)
        #expect(outcome.error?.status == .contentTooLarge)
        #expect(parseError("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\n0123456789", limits: limits) == nil)
        let defaultLimit = parseError("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1048577\r\n\r\n")
        #expect(defaultLimit == .bodyTooLarge)
    }

    @Test("a chunked body growing past the body limit is rejected with 413")
    func chunkedBodyTooLarge() throws {
        let limits = HTTPParserLimits(maxBodyBytes: 10)
        let head = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
        let outcome = parseInAllSplits(bytes(head + "6\r\nabcdef\r\n5\r\nghijk\r\n0\r\n\r\n"), limits: limits)
        #expect(outcome.error == .bodyTooLarge)
        let message = try #require(outcome.messages.first)
        #expect(message.body == bytes("abcdef"))
        #expect(parseError(head + "5\r\nabcde\r\n5\r\nfghij\r\n0\r\n\r\n", limits: limits) == nil)
        #expect(parseError(head + "FFFFFFFFFFFFFFFFFFFFFFFF\r\n") == .bodyTooLarge)
    }

    @Test("an overlong chunk-size line is rejected")
    func longChunkSizeLine() {
        let head = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
        let limits = HTTPParserLimits(maxChunkSizeLineBytes: 16)
        #expect(
            parseError(head + "5;" + String(repeating: "e", count: 14) + "\r\nhello\r\n0\r\n\r\n", limits: limits)
                == nil)
        let error = parseError(
            head + "5;" + String(repeating: "e", count: 15) + "\r\nhello\r\n0\r\n\r\n", limits: limits)
        #expect(error == .chunkSizeLineTooLong)
        let zeros = parseError(bytes(head + String(repeating: "0", count: 2000) + "1\r\n"), everySplit: false)
        #expect(zeros == .chunkSizeLineTooLong)
    }

    @Test("an oversized trailer section is rejected with 431")
    func trailersTooLarge() {
        let head = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n"
        let limits = HTTPParserLimits(maxTrailerBytes: 32)
        let error = parseError(head + "X-Trailer: " + String(repeating: "t", count: 40) + "\r\n\r\n", limits: limits)
        #expect(error == .trailersTooLarge)
        #expect(error?.status == .requestHeaderFieldsTooLarge)
        let countLimits = HTTPParserLimits(maxHeaderCount: 2)
        let many = head + "A: 1\r\nB: 2\r\nC: 3\r\n\r\n"
        #expect(parseError(many, limits: countLimits) == .trailersTooLarge)
    }

    @Test("buffered memory stays bounded while a large body streams through")
    func memoryStaysBounded() {
        var parser = HTTPRequestParser()
        parser.append(contentsOf: bytes("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1048576\r\n\r\n"))
        guard case .head = parser.next() else {
            Issue.record("expected head")
            return
        }
        let read = [UInt8](repeating: 0x61, count: 4096)
        var received = 0
        var ended = false
        for _ in 0..<256 {
            parser.append(contentsOf: read)
            loop: while true {
                switch parser.next() {
                case .body(let piece): received += piece.count
                case .needMoreData: break loop
                case .end: ended = true
                default:
                    Issue.record("unexpected action")
                    return
                }
            }
            #expect(parser.bufferedByteCount == 0)
        }
        #expect(received == 1_048_576)
        #expect(ended)
        #expect(parser.isIdle)
    }
}
