import HTTPWire
import Testing

@Suite("Request line")
struct RequestLineTests {
    @Test("an origin-form GET is parsed into method, target and version")
    func parsesOriginFormGet() throws {
        let message = try parseSingle("GET /index.html HTTP/1.1\r\nHost: example.com\r\n\r\n")
        #expect(message.head.method == .get)
        #expect(message.head.version == .http11)
        #expect(message.head.target.form == .origin)
        #expect(message.head.target.raw == "/index.html")
        #expect(message.head.path == "/index.html")
        #expect(message.head.target.rawQuery == nil)
        #expect(message.head.host == "example.com")
        #expect(message.head.bodyFraming == .noBody)
        #expect(message.body.isEmpty)
    }

    @Test("unknown but well-formed methods are passed through case-sensitively")
    func passesThroughExtensionMethods() throws {
        let message = try parseSingle("PROPFIND / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(message.head.method == HTTPMethod("PROPFIND"))
        let lower = try parseSingle("get / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(lower.head.method != .get)
        #expect(lower.head.method.rawValue == "get")
    }

    @Test("the path is percent-decoded and the raw target is kept")
    func decodesPath() throws {
        let message = try parseSingle("GET /a%20b/caf%C3%A9+x HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(message.head.path == "/a b/café+x")
        #expect(message.head.target.rawPath == "/a%20b/caf%C3%A9+x")
        #expect(message.head.target.raw == "/a%20b/caf%C3%A9+x")
    }

    @Test("the query is split into decoded pairs with plus as space")
    func parsesQueryItems() throws {
        let message = try parseSingle("GET /s?q=a+b%26c&flag&&empty=&x=%3D HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(message.head.target.rawQuery == "q=a+b%26c&flag&&empty=&x=%3D")
        #expect(
            message.head.queryItems == [
                HTTPQueryItem(name: "q", value: "a b&c"),
                HTTPQueryItem(name: "flag", value: ""),
                HTTPQueryItem(name: "empty", value: ""),
                HTTPQueryItem(name: "x", value: "="),
            ]
        )
        #expect(message.head.path == "/s")
    }

    @Test("an empty query after ? is present but has no items")
    func emptyQuery() throws {
        let message = try parseSingle("GET /p? HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(message.head.target.rawQuery == "")
        #expect(message.head.queryItems.isEmpty)
    }

    @Test("absolute-form takes path and query from the URI and its authority as host")
    func acceptsAbsoluteForm() throws {
        let message = try parseSingle("GET http://Example.com:8080/a/b?x=1 HTTP/1.1\r\nHost: other\r\n\r\n")
        #expect(message.head.target.form == .absolute)
        #expect(message.head.target.authority == "Example.com:8080")
        #expect(message.head.host == "Example.com:8080")
        #expect(message.head.path == "/a/b")
        #expect(message.head.queryItems == [HTTPQueryItem(name: "x", value: "1")])
    }

    @Test("absolute-form with an empty path means /")
    func absoluteFormEmptyPath() throws {
        let message = try parseSingle("GET HTTPS://example.com?q HTTP/1.1\r\nHost: example.com\r\n\r\n")
        #expect(message.head.path == "/")
        #expect(message.head.target.rawPath == "/")
        #expect(message.head.queryItems == [HTTPQueryItem(name: "q", value: "")])
    }

    @Test(
        "absolute-form with userinfo, empty authority or another scheme is rejected",
        arguments: ["http://user@h/", "http:///x", "ftp://h/x", "http:/h/x", "h/x"]
    )
    func rejectsBadAbsoluteForms(target: String) {
        #expect(parseError("GET \(target) HTTP/1.1\r\nHost: h\r\n\r\n") == .invalidTarget)
    }

    @Test("asterisk-form is accepted for OPTIONS only")
    func asteriskForm() throws {
        let message = try parseSingle("OPTIONS * HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(message.head.target.form == .asterisk)
        #expect(message.head.path == "*")
        #expect(parseError("GET * HTTP/1.1\r\nHost: h\r\n\r\n") == .invalidTarget)
    }

    @Test("CONNECT with authority-form is rejected with 501")
    func rejectsConnect() {
        let error = parseError("CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n")
        #expect(error == .connectNotSupported)
        #expect(error?.status == .notImplemented)
    }

    @Test("HTTP/1.0 is accepted and HTTP/1.x minor versions above 1 are served as 1.1")
    func acceptsHTTP1Versions() throws {
        let old = try parseSingle("GET / HTTP/1.0\r\n\r\n")
        #expect(old.head.version == .http10)
        #expect(old.head.host == nil)
        let newer = try parseSingle("GET / HTTP/1.2\r\nHost: h\r\n\r\n")
        #expect(newer.head.version == HTTPVersion(major: 1, minor: 2))
        #expect(newer.head.keepAlive)
        #expect(parseError("GET / HTTP/1.2\r\n\r\n") == .missingHost)
    }

    @Test(
        "versions other than HTTP/1.x are answered with 505",
        arguments: ["HTTP/2.0", "HTTP/0.9", "HTTP/3.0", "HTTP/9.9"]
    )
    func rejectsOtherMajorVersions(version: String) {
        let error = parseError("GET / \(version)\r\nHost: h\r\n\r\n")
        #expect(error == .unsupportedVersion)
        #expect(error?.status == .httpVersionNotSupported)
    }

    @Test("the HTTP/2 connection preface is answered with 505")
    func rejectsHTTP2Preface() {
        #expect(parseError("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n") == .unsupportedVersion)
    }

    @Test(
        "malformed versions are rejected with 400",
        arguments: ["http/1.1", "HTTP/1.10", "HTTP/1", "HTTP/1.x", "HTTP/11", "HTTP 1.1", "HTTP/1.1 "]
    )
    func rejectsMalformedVersions(version: String) {
        let error = parseError("GET / \(version)\r\nHost: h\r\n\r\n")
        #expect(error?.status == .badRequest)
    }

    @Test(
        "request lines without three single-space separated parts are rejected",
        arguments: [
            ("GET /\r\n\r\n", HTTPParseError.invalidRequestLine),
            ("GET\r\n\r\n", .invalidRequestLine),
            ("GET  / HTTP/1.1\r\n\r\n", .invalidTarget),
            ("GET /a b HTTP/1.1\r\n\r\n", .invalidTarget),
            (" GET / HTTP/1.1\r\n\r\n", .invalidMethod),
            ("G(T / HTTP/1.1\r\n\r\n", .invalidMethod),
            ("GET\t/ HTTP/1.1\r\n\r\n", .invalidRequestLine),
            ("GE\tT / HTTP/1.1\r\n\r\n", .invalidMethod),
        ]
    )
    func rejectsMalformedRequestLines(line: String, expected: HTTPParseError) {
        #expect(parseError(line) == expected)
    }

    @Test(
        "targets with characters outside RFC 3986 or a fragment are rejected",
        arguments: [
            "/a#frag", "/a\"b", "/a<b>", "/a\\b", "/a{b}", "/a|b", "/a^b", "/q?a=`", "/\u{7F}", "/caf\u{E9}", "a/b",
        ]
    )
    func rejectsInvalidTargetCharacters(target: String) {
        #expect(parseError("GET \(target) HTTP/1.1\r\nHost: h\r\n\r\n") == .invalidTarget)
    }

    @Test(
        "invalid percent escapes and %00 are rejected with 400",
        arguments: ["/%", "/%2", "/%zz", "/%0g", "/a%00b", "/?q=%", "/?q=%00", "/?%GG=1", "/%C3%28", "/%FF"]
    )
    func rejectsInvalidPercentEncoding(target: String) {
        let error = parseError("GET \(target) HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(error == .invalidPercentEncoding)
        #expect(error?.status == .badRequest)
    }

    @Test("a few empty lines before the request-line are ignored, too many are rejected")
    func leadingEmptyLines() throws {
        let message = try parseSingle("\r\n\r\nGET / HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(message.head.method == .get)
        let flood = String(repeating: "\r\n", count: 9) + "GET / HTTP/1.1\r\nHost: h\r\n\r\n"
        #expect(parseError(flood) == .invalidRequestLine)
    }

    @Test("HTTPRequestTarget can be parsed directly from a string")
    func parsesTargetFromString() throws {
        let target = try HTTPRequestTarget(parsing: "/x%2Fy?a=1")
        #expect(target.path == "/x/y")
        #expect(target.rawPath == "/x%2Fy")
        #expect(throws: HTTPParseError.invalidTarget) { try HTTPRequestTarget(parsing: "") }
        #expect(throws: HTTPParseError.invalidPercentEncoding) { try HTTPRequestTarget(parsing: "/%00") }
    }
}
