import HTTPWire
import Testing

@Suite("Response writer")
struct ResponseWriterTests {
    static let date = "Sun, 06 Nov 1994 08:49:37 GMT"

    func written(
        _ head: HTTPResponseHead,
        body: [UInt8]? = nil,
        date: String? = ResponseWriterTests.date,
        method: HTTPMethod = .get
    ) throws -> String {
        var buffer: [UInt8] = []
        if let body {
            try HTTPResponseWriter.write(head, body: body, date: date, requestMethod: method, into: &buffer)
        } else {
            try HTTPResponseWriter.write(head, date: date, requestMethod: method, into: &buffer)
        }
        return String(decoding: buffer, as: UTF8.self)
    }

    @Test("a 200 with a body gets Date, the given fields and an automatic Content-Length")
    func okWithBody() throws {
        let head = HTTPResponseHead(status: .ok, headers: ["Content-Type": "text/plain"])
        let text = try written(head, body: bytes("hello"))
        #expect(
            text
                == "HTTP/1.1 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\nContent-Type: text/plain\r\n"
                + "Content-Length: 5\r\n\r\nhello"
        )
    }

    @Test("a response without Date input and without body carries Content-Length: 0")
    func emptyBody() throws {
        let text = try written(HTTPResponseHead(status: .notFound), date: nil)
        #expect(text == "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n")
    }

    @Test("an explicit Date field is not duplicated")
    func explicitDate() throws {
        let head = HTTPResponseHead(status: .ok, headers: ["date": "Thu, 01 Jan 1970 00:00:00 GMT"])
        let text = try written(head, body: [])
        #expect(text == "HTTP/1.1 200 OK\r\ndate: Thu, 01 Jan 1970 00:00:00 GMT\r\nContent-Length: 0\r\n\r\n")
    }

    @Test("HEAD responses keep Content-Length but send no body")
    func headResponse() throws {
        let text = try written(HTTPResponseHead(status: .ok), body: bytes("hello"), date: nil, method: .head)
        #expect(text == "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n")
        let declared = HTTPResponseHead(status: .ok, headers: ["Content-Length": "1234"])
        let explicit = try written(declared, body: [], date: nil, method: .head)
        #expect(explicit == "HTTP/1.1 200 OK\r\nContent-Length: 1234\r\n\r\n")
    }

    @Test("204 and 304 responses have neither body nor automatic Content-Length")
    func noContentStatuses() throws {
        #expect(
            try written(HTTPResponseHead(status: .noContent), body: bytes("x"), date: nil)
                == "HTTP/1.1 204 No Content\r\n\r\n")
        let etag = HTTPResponseHead(status: .notModified, headers: ["ETag": "\"abc\""])
        #expect(try written(etag, body: bytes("x"), date: nil) == "HTTP/1.1 304 Not Modified\r\nETag: \"abc\"\r\n\r\n")
    }

    @Test("1xx responses are just a status line and fields")
    func informational() throws {
        #expect(try written(HTTPResponseHead(status: .continue), date: nil) == "HTTP/1.1 100 Continue\r\n\r\n")
        let upgrade = HTTPResponseHead(
            status: .switchingProtocols,
            headers: ["Connection": "Upgrade", "Upgrade": "websocket"]
        )
        #expect(
            try written(upgrade, date: nil)
                == "HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n"
        )
    }

    @Test("a Transfer-Encoding response gets no Content-Length and its body verbatim")
    func transferEncodingBody() throws {
        let head = HTTPResponseHead(status: .ok, headers: ["Transfer-Encoding": "chunked"])
        var framed: [UInt8] = []
        HTTPChunkedWriter.writeChunk(bytes("abc"), into: &framed)
        try HTTPChunkedWriter.writeLastChunk(into: &framed)
        let text = try written(head, body: framed, date: nil)
        #expect(text == "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n")
    }

    @Test("writeHead writes only the head and appends to existing buffer content")
    func writeHeadOnly() throws {
        var buffer = bytes("previous")
        let head = HTTPResponseHead(status: .ok, version: .http10, headers: ["Transfer-Encoding": "chunked"])
        try HTTPResponseWriter.writeHead(head, date: Self.date, into: &buffer)
        #expect(
            String(decoding: buffer, as: UTF8.self)
                == "previousHTTP/1.0 200 OK\r\nDate: Sun, 06 Nov 1994 08:49:37 GMT\r\n"
                + "Transfer-Encoding: chunked\r\n\r\n"
        )
    }

    @Test("custom statuses and reason phrases are written as given")
    func customStatus() throws {
        let text = try written(HTTPResponseHead(status: HTTPStatus(code: 299, reasonPhrase: "Custom")), date: nil)
        #expect(text == "HTTP/1.1 299 Custom\r\nContent-Length: 0\r\n\r\n")
        #expect(HTTPStatus(code: 431) == .requestHeaderFieldsTooLarge)
        #expect(HTTPStatus(code: 799).reasonPhrase == "")
    }

    @Test(
        "header injection via CR or LF in names or values is rejected and nothing is written",
        arguments: [
            (("X-A", "v\r\nSet-Cookie: evil"), HTTPWriteError.invalidHeaderValue(name: "X-A")),
            (("X-A", "v\nx"), .invalidHeaderValue(name: "X-A")),
            (("X-A", "v\rx"), .invalidHeaderValue(name: "X-A")),
            (("X-A", "v\u{0}x"), .invalidHeaderValue(name: "X-A")),
            (("X-A\r\nEvil", "v"), .invalidHeaderName("X-A\r\nEvil")),
            (("Bad Name", "v"), .invalidHeaderName("Bad Name")),
            (("", "v"), .invalidHeaderName("")),
        ]
    )
    func rejectsHeaderInjection(field: (String, String), expected: HTTPWriteError) {
        var buffer = bytes("keep")
        let head = HTTPResponseHead(status: .ok, headers: HTTPHeaders([field]))
        #expect(throws: expected) {
            try HTTPResponseWriter.write(head, body: bytes("x"), into: &buffer)
        }
        #expect(throws: expected) {
            try HTTPResponseWriter.writeHead(head, into: &buffer)
        }
        #expect(buffer == bytes("keep"))
    }

    /// Values are checked eight bytes at a time: a control is found wherever it lies in a word or in the bytes
    /// after the last whole word, a tab is let through wherever it lies, and bytes past ASCII (obs-text) are kept.
    @Test(
        "a value's controls are found at every position, and its tabs and obs-text pass",
        arguments: Array(0..<20))
    func checksEveryPositionOfAValue(position: Int) throws {
        let filler = Array(repeating: "a", count: 19)
        for control in ["\r", "\n", "\u{0}", "\u{1F}", "\u{7F}"] {
            var characters = filler
            characters.insert(control, at: position)
            let head = HTTPResponseHead(status: .ok, headers: HTTPHeaders([("X-A", characters.joined())]))
            var buffer: [UInt8] = []
            #expect(throws: HTTPWriteError.invalidHeaderValue(name: "X-A")) {
                try HTTPResponseWriter.writeHead(head, into: &buffer)
            }
            #expect(buffer.isEmpty)
        }
        for allowed in ["\t", "é", "\u{80}", " ", "~"] {
            var characters = filler
            characters.insert(allowed, at: position)
            let value = characters.joined()
            let text = try written(HTTPResponseHead(status: .ok, headers: HTTPHeaders([("X-A", value)])), date: nil)
            #expect(text == "HTTP/1.1 200 OK\r\nX-A: \(value)\r\nContent-Length: 0\r\n\r\n")
        }
    }

    @Test("invalid reason phrases, status codes and date values are rejected")
    func rejectsInvalidStatusLine() {
        var buffer: [UInt8] = []
        #expect(throws: HTTPWriteError.invalidReasonPhrase) {
            try HTTPResponseWriter.write(
                HTTPResponseHead(status: HTTPStatus(code: 200, reasonPhrase: "OK\r\nX: y")), into: &buffer)
        }
        #expect(throws: HTTPWriteError.invalidStatusCode(1000)) {
            try HTTPResponseWriter.write(HTTPResponseHead(status: HTTPStatus(code: 1000)), into: &buffer)
        }
        #expect(throws: HTTPWriteError.invalidHeaderValue(name: "Date")) {
            try HTTPResponseWriter.write(HTTPResponseHead(status: .ok), date: "x\r\ny: z", into: &buffer)
        }
        #expect(buffer.isEmpty)
    }

    @Test("inconsistent framing is rejected")
    func rejectsInconsistentFraming() {
        var buffer: [UInt8] = []
        let both = HTTPResponseHead(status: .ok, headers: ["Content-Length": "3", "Transfer-Encoding": "chunked"])
        #expect(throws: HTTPWriteError.conflictingFraming) {
            try HTTPResponseWriter.write(both, body: bytes("abc"), into: &buffer)
        }
        #expect(throws: HTTPWriteError.conflictingFraming) {
            try HTTPResponseWriter.writeHead(both, into: &buffer)
        }
        let wrong = HTTPResponseHead(status: .ok, headers: ["Content-Length": "4"])
        #expect(throws: HTTPWriteError.contentLengthMismatch(declared: "4", actual: 3)) {
            try HTTPResponseWriter.write(wrong, body: bytes("abc"), into: &buffer)
        }
        #expect(buffer.isEmpty)
    }

    @Test("a written response parses back through the request-side header rules")
    func statusTable() {
        let statuses: [HTTPStatus] = [
            .continue, .switchingProtocols, .ok, .created, .noContent, .partialContent, .movedPermanently,
            .notModified, .badRequest, .unauthorized, .forbidden, .notFound, .methodNotAllowed, .requestTimeout,
            .lengthRequired, .contentTooLarge, .uriTooLong, .unsupportedMediaType, .expectationFailed,
            .upgradeRequired, .tooManyRequests, .requestHeaderFieldsTooLarge, .internalServerError,
            .notImplemented, .serviceUnavailable, .httpVersionNotSupported,
        ]
        for status in statuses {
            #expect(HTTPStatus(code: status.code) == status)
            #expect(!status.reasonPhrase.isEmpty)
        }
        #expect(HTTPStatus.ok.description == "200 OK")
        #expect(!HTTPStatus.notModified.permitsContent)
        #expect(HTTPStatus.notFound.permitsContent)
    }
}
