import HTTPWire
import Testing

@Suite("Header fields")
struct HeaderFieldTests {
    @Test("field names are looked up case-insensitively and values are OWS-trimmed")
    func caseInsensitiveLookupAndTrimming() throws {
        let message = try parseSingle(
            "GET / HTTP/1.1\r\nhOsT: h\r\nX-Thing: \t  spaced value \t\r\nX-Empty:\r\nx-thing: second\r\n\r\n"
        )
        let headers = message.head.headers
        #expect(headers["host"] == "h")
        #expect(headers["X-THING"] == "spaced value")
        #expect(headers.values(for: "x-thing") == ["spaced value", "second"])
        #expect(headers["x-empty"] == "")
        #expect(headers["missing"] == nil)
        #expect(headers.count == 4)
        #expect(headers[0].name == "hOsT")
    }

    @Test("obs-text bytes in values are accepted")
    func acceptsObsText() throws {
        let message = try parseSingle("GET / HTTP/1.1\r\nHost: h\r\nX-Name: caf\u{E9}\r\n\r\n")
        #expect(message.head.headers["x-name"] == "café")
    }

    @Test("obsolete line folding is rejected with 400")
    func rejectsObsFold() {
        #expect(parseError("GET / HTTP/1.1\r\nHost: h\r\nX-A: one\r\n two\r\n\r\n") == .obsoleteLineFolding)
        #expect(parseError("GET / HTTP/1.1\r\nHost: h\r\nX-A: one\r\n\ttwo\r\n\r\n") == .obsoleteLineFolding)
    }

    @Test("whitespace between the request-line and the first field is rejected")
    func rejectsWhitespaceBeforeFirstField() {
        #expect(parseError("GET / HTTP/1.1\r\n Host: h\r\n\r\n") == .obsoleteLineFolding)
    }

    @Test("whitespace before the colon is rejected with 400")
    func rejectsWhitespaceBeforeColon() {
        #expect(parseError("GET / HTTP/1.1\r\nHost : h\r\n\r\n") == .whitespaceBeforeColon)
        #expect(parseError("GET / HTTP/1.1\r\nHost\t: h\r\n\r\n") == .whitespaceBeforeColon)
    }

    @Test(
        "field names that are not tokens or lines without a colon are rejected",
        arguments: [": value", "Bad Name: v", "X(y): v", "NoColon", "X@: v", "Ключ: v", "X\u{1}: v"]
    )
    func rejectsBadFieldNames(line: String) {
        #expect(parseError("GET / HTTP/1.1\r\nHost: h\r\n\(line)\r\n\r\n") == .invalidHeaderName)
    }

    @Test("NUL and other control characters in values are rejected", arguments: [0x00, 0x01, 0x0B, 0x1F, 0x7F])
    func rejectsControlCharactersInValues(byte: UInt8) {
        let input = bytes("GET / HTTP/1.1\r\nHost: h\r\nX-A: a") + [byte] + bytes("b\r\n\r\n")
        #expect(parseError(input) == .invalidHeaderValue)
    }

    @Test("a bare CR inside a field line is rejected")
    func rejectsBareCRInValue() {
        #expect(parseError("GET / HTTP/1.1\r\nHost: h\r\nX-A: a\rb\r\n\r\n") == .bareCarriageReturn)
    }

    @Test("a bare LF line ending is rejected")
    func rejectsBareLF() {
        #expect(parseError("GET / HTTP/1.1\nHost: h\r\n\r\n") == .bareLineFeed)
        #expect(parseError("GET / HTTP/1.1\r\nHost: h\n\r\n") == .bareLineFeed)
        #expect(parseError("GET / HTTP/1.1\r\nHost: h\r\n\n") == .bareLineFeed)
    }

    @Test("contains(token:in:) matches comma-separated elements case-insensitively")
    func containsToken() {
        let headers: HTTPHeaders = ["Connection": "keep-alive, Upgrade", "connection": " , TE ,"]
        #expect(headers.contains(token: "upgrade", in: "connection"))
        #expect(headers.contains(token: "KEEP-ALIVE", in: "Connection"))
        #expect(headers.contains(token: "te", in: "Connection"))
        #expect(!headers.contains(token: "close", in: "Connection"))
        #expect(!headers.contains(token: "keep", in: "Connection"))
        #expect(!headers.contains(token: "upgrade", in: "Upgrade"))
        #expect(headers.tokens(in: "CONNECTION") == ["keep-alive", "Upgrade", "TE"])
    }

    @Test("HTTPHeaders editing keeps order and replaces case-insensitively")
    func editing() {
        var headers = HTTPHeaders()
        headers.add(name: "A", value: "1")
        headers.add(name: "B", value: "2")
        headers.add(name: "a", value: "3")
        #expect(headers.values(for: "A") == ["1", "3"])
        headers.replaceOrAdd(name: "A", value: "4")
        #expect(headers == HTTPHeaders([("B", "2"), ("A", "4")]))
        headers.remove(name: "b")
        #expect(headers == ["A": "4"])
        #expect(headers.contains(name: "a"))
        #expect(!headers.contains(name: "b"))
        #expect(HTTPHeaders([("x", "1")]) != HTTPHeaders([("X", "1")]))
    }
}
