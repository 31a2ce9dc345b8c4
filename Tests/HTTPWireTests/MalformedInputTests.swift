import HTTPWire
import Testing

@Suite("Malformed and hostile input")
struct MalformedInputTests {
    struct Hostile: Sendable, CustomTestStringConvertible {
        let name: String
        let input: [UInt8]
        let error: HTTPParseError

        init(_ name: String, _ text: String, _ error: HTTPParseError) {
            self.name = name
            self.input = Array(text.utf8)
            self.error = error
        }

        init(_ name: String, bytes: [UInt8], _ error: HTTPParseError) {
            self.name = name
            self.input = bytes
            self.error = error
        }

        var testDescription: String { name }
    }

    static let cases: [Hostile] = [
        Hostile(
            "CL and TE together",
            "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n",
            .contentLengthWithTransferEncoding),
        Hostile(
            "TE then CL", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nContent-Length: 0\r\n\r\n",
            .contentLengthWithTransferEncoding),
        Hostile(
            "two different CLs", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello",
            .conflictingContentLength),
        Hostile(
            "CL list with different values", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5, 6\r\n\r\n",
            .conflictingContentLength),
        Hostile("negative CL", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n", .invalidContentLength),
        Hostile("signed CL", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: +5\r\n\r\n", .invalidContentLength),
        Hostile("hex CL", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 0x5\r\n\r\n", .invalidContentLength),
        Hostile(
            "CL with inner space", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1 2\r\n\r\n", .invalidContentLength),
        Hostile("empty CL", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length:\r\n\r\n", .invalidContentLength),
        Hostile(
            "CL with empty list element", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5,\r\n\r\n",
            .invalidContentLength),
        Hostile(
            "huge CL overflow", "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 99999999999999999999999\r\n\r\n",
            .bodyTooLarge),
        Hostile(
            "unknown TE", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip\r\n\r\n",
            .unsupportedTransferEncoding),
        Hostile(
            "gzip then chunked", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: gzip, chunked\r\n\r\n",
            .unsupportedTransferEncoding),
        Hostile(
            "chunked with parameters", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked;q=1\r\n\r\n",
            .unsupportedTransferEncoding),
        Hostile(
            "identity TE", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: identity\r\n\r\n",
            .unsupportedTransferEncoding),
        Hostile(
            "chunked twice",
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n",
            .invalidTransferEncoding),
        Hostile("empty TE", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: \r\n\r\n", .invalidTransferEncoding),
        Hostile("TE in HTTP/1.0", "POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", .invalidTransferEncoding),
        Hostile("obs-fold", "GET / HTTP/1.1\r\nHost: h\r\nX: a\r\n b\r\n\r\n", .obsoleteLineFolding),
        Hostile(
            "space before colon", "GET / HTTP/1.1\r\nHost: h\r\nContent-Length : 5\r\n\r\n", .whitespaceBeforeColon),
        Hostile("bad header name", "GET / HTTP/1.1\r\nHost: h\r\nX[1]: a\r\n\r\n", .invalidHeaderName),
        Hostile("bare CR in request line", "GET /\r HTTP/1.1\r\nHost: h\r\n\r\n", .bareCarriageReturn),
        Hostile("bare CR as line end", "GET / HTTP/1.1\rHost: h\r\n\r\n", .bareCarriageReturn),
        Hostile("bare CR line in head", "GET / HTTP/1.1\r\nHost: h\r\n\r\r\n", .bareCarriageReturn),
        Hostile("bare LF", "GET / HTTP/1.1\n\n", .bareLineFeed),
        Hostile(
            "NUL in request line", bytes: Array("GET /".utf8) + [0] + Array(" HTTP/1.1\r\nHost: h\r\n\r\n".utf8),
            .invalidTarget),
        Hostile("NUL in method", bytes: [0x47, 0x00] + Array(" / HTTP/1.1\r\nHost: h\r\n\r\n".utf8), .invalidMethod),
        Hostile(
            "NUL in header name", bytes: Array("GET / HTTP/1.1\r\nHo".utf8) + [0] + Array("st: h\r\n\r\n".utf8),
            .invalidHeaderName),
        Hostile(
            "NUL in header value", bytes: Array("GET / HTTP/1.1\r\nHost: h".utf8) + [0] + Array("\r\n\r\n".utf8),
            .invalidHeaderValue),
        Hostile("NUL only", bytes: [0, 0, 0, 0x0D, 0x0A], .invalidRequestLine),
        Hostile("%00 in path", "GET /file%00.txt HTTP/1.1\r\nHost: h\r\n\r\n", .invalidPercentEncoding),
        Hostile("invalid percent escape", "GET /%G0 HTTP/1.1\r\nHost: h\r\n\r\n", .invalidPercentEncoding),
        Hostile("HTTP/2.0", "GET / HTTP/2.0\r\nHost: h\r\n\r\n", .unsupportedVersion),
        Hostile("missing Host on 1.1", "GET / HTTP/1.1\r\n\r\n", .missingHost),
        Hostile(
            "bad chunk hex", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\nxyz\r\n",
            .invalidChunkSize),
        Hostile(
            "chunk data overrun", "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n",
            .invalidChunkTerminator),
        Hostile("binary garbage line", bytes: [0xFF, 0xFE, 0x20, 0x2F, 0x20, 0x0D, 0x0A], .invalidMethod),
        Hostile(
            "TLS client hello", bytes: [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03, 0x0D, 0x0A],
            .invalidRequestLine),
    ]

    @Test("hostile input is rejected with the specific error in every split", arguments: cases)
    func rejectsHostileInput(testCase: Hostile) {
        #expect(parseError(testCase.input) == testCase.error)
    }

    @Test("every parse error maps to a 4xx or 5xx status and has a reason")
    func errorsHaveStatuses() {
        for testCase in Self.cases {
            let status = testCase.error.status
            #expect((400...599).contains(status.code))
            #expect(!testCase.error.reason.isEmpty)
        }
        #expect(HTTPParseError.unsupportedTransferEncoding.status == .notImplemented)
        #expect(HTTPParseError.contentLengthWithTransferEncoding.status == .badRequest)
        #expect(HTTPParseError.chunkSizeLineTooLong.status == .badRequest)
    }

    @Test(
        "each parse error maps to its documented status",
        arguments: [
            (HTTPParseError.invalidRequestLine, 400), (.invalidMethod, 400), (.invalidTarget, 400),
            (.invalidPercentEncoding, 400), (.invalidVersion, 400), (.unsupportedVersion, 505),
            (.connectNotSupported, 501), (.uriTooLong, 414), (.bareLineFeed, 400), (.bareCarriageReturn, 400),
            (.obsoleteLineFolding, 400), (.invalidHeaderName, 400), (.whitespaceBeforeColon, 400),
            (.invalidHeaderValue, 400), (.headersTooLarge, 431), (.tooManyHeaders, 431), (.missingHost, 400),
            (.invalidHost, 400), (.invalidContentLength, 400), (.conflictingContentLength, 400),
            (.contentLengthWithTransferEncoding, 400), (.invalidTransferEncoding, 400),
            (.unsupportedTransferEncoding, 501), (.unsupportedExpectation, 417), (.bodyTooLarge, 413),
            (.invalidChunkSize, 400), (.chunkSizeLineTooLong, 400), (.invalidChunkTerminator, 400),
            (.trailersTooLarge, 431),
        ]
    )
    func statusMapping(error: HTTPParseError, code: Int) {
        #expect(error.status.code == code)
        #expect(error.status == HTTPStatus(code: code))
        #expect(!error.reason.isEmpty)
    }

    @Test("after an error the parser stays failed and ignores further input")
    func staysFailed() {
        var parser = HTTPRequestParser()
        parser.append(contentsOf: bytes("GET / HTTP/2.0\r\n"))
        #expect(parser.next() == .error(.unsupportedVersion))
        parser.append(contentsOf: bytes("GET / HTTP/1.1\r\nHost: h\r\n\r\n"))
        #expect(parser.next() == .error(.unsupportedVersion))
        #expect(parser.state == .failed(.unsupportedVersion))
        #expect(parser.bufferedByteCount == 0)
    }

    @Test(
        "truncated input at any point yields needMoreData and never crashes",
        arguments: [
            "GET /a?b=c HTTP/1.1\r\nHost: h\r\nX: y\r\n\r\n",
            "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\n\r\nhello",
            "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n5;x\r\nhello\r\n0\r\nT: 1\r\n\r\n",
        ]
    )
    func truncatedInput(text: String) {
        let input = bytes(text)
        for length in 0..<input.count {
            let outcome = parseWhole(Array(input[0..<length]))
            #expect(outcome.error == nil, "prefix of \(length) bytes")
            #expect(outcome.completeMessages.isEmpty, "prefix of \(length) bytes")
        }
        #expect(parseWhole(input).completeMessages.count == 1)
    }
}
