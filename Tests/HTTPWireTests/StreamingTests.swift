import HTTPWire
import Testing

@Suite("Incremental feeding and pipelining")
struct StreamingTests {
    static let fixtures: [Fixture] = [
        Fixture(name: "simple GET", text: "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n"),
        Fixture(
            name: "GET with query and headers",
            text: "GET /search?q=swift+http&page=2 HTTP/1.1\r\nHost: h\r\nAccept: */*\r\nUser-Agent: test/1.0\r\n\r\n"
        ),
        Fixture(
            name: "POST with Content-Length",
            text: "POST /f HTTP/1.1\r\nHost: h\r\nContent-Length: 13\r\n\r\nHello, world!"),
        Fixture(
            name: "chunked with extensions and trailers",
            text: "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "4;ext=1\r\nWiki\r\n5\r\npedia\r\nE\r\n in\r\n\r\nchunks.\r\n0\r\nExpires: never\r\n\r\n"
        ),
        Fixture(name: "absolute-form", text: "GET http://example.com/p?q=1 HTTP/1.1\r\nHost: example.com\r\n\r\n"),
        Fixture(name: "HTTP/1.0 keep-alive", text: "GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n"),
        Fixture(
            name: "three pipelined requests",
            text: "GET /1 HTTP/1.1\r\nHost: h\r\n\r\n"
                + "POST /2 HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc"
                + "POST /3 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\n\r\n"
        ),
        Fixture(name: "request followed by an error", text: "GET / HTTP/1.1\r\nHost: h\r\n\r\nGET / HTTP/2.0\r\n\r\n"),
        Fixture(name: "truncated body", text: "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nabc"),
        Fixture(name: "obs-fold", text: "GET / HTTP/1.1\r\nHost: h\r\nA: b\r\n c\r\n\r\n"),
        Fixture(name: "bare CR before LF run", text: "GET / HTTP/1.1\r\nHost: h\r\r\n\r\n"),
    ]

    @Test(
        "every fixture parses identically whole, byte by byte, at every split and in random chunks", arguments: fixtures
    )
    func splitInvariance(fixture: Fixture) {
        parseInAllSplits(bytes(fixture.text))
    }

    @Test("pipelined requests in one buffer come out in order")
    func pipelinedRequests() throws {
        let outcome = parseInAllSplits(
            "GET /1 HTTP/1.1\r\nHost: h\r\n\r\n"
                + "POST /2 HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nabc"
                + "POST /3 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nx\r\n0\r\nT: v\r\n\r\n"
                + "HEAD /4 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n"
        )
        #expect(outcome.error == nil)
        #expect(outcome.completeMessages.count == 4)
        #expect(outcome.messages.map(\.head.path) == ["/1", "/2", "/3", "/4"])
        #expect(outcome.messages.map(\.body) == [[], bytes("abc"), bytes("x"), []])
        #expect(outcome.messages[2].trailers == ["T": "v"])
        #expect(outcome.messages.map(\.head.keepAlive) == [true, true, true, false])
    }

    @Test("the action sequence for one request is head, body pieces, end")
    func actionSequence() {
        var parser = HTTPRequestParser()
        #expect(parser.isIdle)
        parser.append(contentsOf: bytes("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\nhi"))
        #expect(!parser.isIdle)
        guard case .head(let head) = parser.next() else {
            Issue.record("expected head")
            return
        }
        #expect(head.contentLength == 2)
        #expect(parser.next() == .body(bytes("hi")))
        #expect(parser.state == .messageEnd)
        #expect(parser.next() == .end)
        #expect(parser.next() == .needMoreData)
        #expect(parser.isIdle)
    }

    @Test("the parser state tracks the chunked grammar")
    func chunkedStates() {
        var parser = HTTPRequestParser()
        parser.append(contentsOf: bytes("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"))
        guard case .head = parser.next() else {
            Issue.record("expected head")
            return
        }
        #expect(parser.state == .chunkSize)
        parser.append(contentsOf: bytes("5\r\nhe"))
        #expect(parser.next() == .body(bytes("he")))
        #expect(parser.state == .chunkData(remaining: 3))
        parser.append(contentsOf: bytes("llo\r"))
        #expect(parser.next() == .body(bytes("llo")))
        #expect(parser.next() == .needMoreData)
        #expect(parser.state == .chunkDataEnd)
        parser.append(contentsOf: bytes("\n0\r\n"))
        #expect(parser.next() == .needMoreData)
        #expect(parser.state == .trailers)
        parser.append(contentsOf: bytes("\r\n"))
        #expect(parser.next() == .end)
        #expect(parser.state == .requestLine)
    }

    @Test("a partial request-line stays buffered until completed, then parsing resumes")
    func partialHeadBuffering() {
        var parser = HTTPRequestParser()
        parser.append(contentsOf: bytes("GET /long-path HT"))
        #expect(parser.next() == .needMoreData)
        #expect(parser.state == .requestLine)
        #expect(parser.bufferedByteCount == 17)
        parser.append(contentsOf: bytes("TP/1.1\r\nHost: h\r\n"))
        #expect(parser.next() == .needMoreData)
        #expect(parser.state == .headerFields)
        #expect(parser.bufferedByteCount == 0)
        parser.append(contentsOf: bytes("\r\n"))
        guard case .head(let head) = parser.next() else {
            Issue.record("expected head")
            return
        }
        #expect(head.path == "/long-path")
    }

    @Test("raw buffer pointers can be appended directly")
    func appendRawBuffer() {
        var parser = HTTPRequestParser()
        let input = bytes("GET / HTTP/1.1\r\nHost: h\r\n\r\n")
        input.withUnsafeBytes { parser.append($0) }
        guard case .head(let head) = parser.next() else {
            Issue.record("expected head")
            return
        }
        #expect(head.host == "h")
        #expect(parser.next() == .end)
    }
}
