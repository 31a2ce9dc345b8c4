import HTTPWire
import Testing

@Suite("Derived request facts")
struct SemanticsTests {
    struct KeepAliveCase: Sendable, CustomTestStringConvertible {
        let version: String
        let connection: String?
        let keepAlive: Bool

        var testDescription: String { "\(version) Connection: \(connection ?? "-") → \(keepAlive)" }
    }

    @Test(
        "keep-alive follows the HTTP/1.1 and HTTP/1.0 defaults",
        arguments: [
            KeepAliveCase(version: "HTTP/1.1", connection: nil, keepAlive: true),
            KeepAliveCase(version: "HTTP/1.1", connection: "close", keepAlive: false),
            KeepAliveCase(version: "HTTP/1.1", connection: "Keep-Alive, CLOSE", keepAlive: false),
            KeepAliveCase(version: "HTTP/1.1", connection: "keep-alive", keepAlive: true),
            KeepAliveCase(version: "HTTP/1.1", connection: "closed", keepAlive: true),
            KeepAliveCase(version: "HTTP/1.0", connection: nil, keepAlive: false),
            KeepAliveCase(version: "HTTP/1.0", connection: "keep-alive", keepAlive: true),
            KeepAliveCase(version: "HTTP/1.0", connection: "Keep-Alive", keepAlive: true),
            KeepAliveCase(version: "HTTP/1.0", connection: "keep-alive, close", keepAlive: false),
            KeepAliveCase(version: "HTTP/1.0", connection: "close", keepAlive: false),
        ]
    )
    func keepAliveRules(testCase: KeepAliveCase) throws {
        let connection = testCase.connection.map { "Connection: \($0)\r\n" } ?? ""
        let message = try parseSingle("GET / \(testCase.version)\r\nHost: h\r\n\(connection)\r\n")
        #expect(message.head.keepAlive == testCase.keepAlive)
    }

    @Test("HEAD requests are parsed without a body even when Content-Length is absent")
    func headRequest() throws {
        let message = try parseSingle("HEAD /file HTTP/1.1\r\nHost: h\r\n\r\n")
        #expect(message.head.method == .head)
        #expect(message.head.bodyFraming == .noBody)
    }

    @Test("Expect: 100-continue is reported on HTTP/1.1 and the body follows later")
    func expectContinue() {
        var parser = HTTPRequestParser()
        parser.append(
            contentsOf: bytes("PUT /f HTTP/1.1\r\nHost: h\r\nExpect: 100-Continue\r\nContent-Length: 2\r\n\r\n")
        )
        guard case .head(let head) = parser.next() else {
            Issue.record("expected head")
            return
        }
        #expect(head.expectsContinue)
        #expect(parser.next() == .needMoreData)
        parser.append(contentsOf: bytes("ok"))
        #expect(parser.next() == .body(bytes("ok")))
        #expect(parser.next() == .end)
    }

    @Test("Expect: 100-continue is ignored for HTTP/1.0")
    func expectContinueIgnoredFor10() throws {
        let message = try parseSingle("PUT / HTTP/1.0\r\nExpect: 100-continue\r\nContent-Length: 0\r\n\r\n")
        #expect(!message.head.expectsContinue)
    }

    @Test("other expectations are answered with 417", arguments: ["something", "100-continue, x", "200-ok"])
    func otherExpectations(value: String) {
        let error = parseError("PUT / HTTP/1.1\r\nHost: h\r\nExpect: \(value)\r\n\r\n")
        #expect(error == .unsupportedExpectation)
        #expect(error?.status == .expectationFailed)
    }

    @Test("an upgrade needs both Connection: upgrade and an Upgrade field")
    func upgradeDetection() throws {
        let websocket = try parseSingle(
            "GET /ws HTTP/1.1\r\nHost: h\r\nConnection: keep-alive, Upgrade\r\nUpgrade: websocket\r\n\r\n"
        )
        #expect(websocket.head.isUpgrade)
        let noConnection = try parseSingle("GET /ws HTTP/1.1\r\nHost: h\r\nUpgrade: websocket\r\n\r\n")
        #expect(!noConnection.head.isUpgrade)
        let noUpgrade = try parseSingle("GET /ws HTTP/1.1\r\nHost: h\r\nConnection: upgrade\r\n\r\n")
        #expect(!noUpgrade.head.isUpgrade)
        let http10 = try parseSingle("GET /ws HTTP/1.0\r\nConnection: upgrade\r\nUpgrade: websocket\r\n\r\n")
        #expect(!http10.head.isUpgrade)
    }

    @Test("bytes after an upgrade request can be taken over by the new protocol")
    func takeBufferedBytesAfterUpgrade() {
        var parser = HTTPRequestParser()
        parser.append(
            contentsOf: bytes("GET / HTTP/1.1\r\nHost: h\r\nConnection: upgrade\r\nUpgrade: x\r\n\r\n") + [0x81, 0x00]
        )
        guard case .head(let head) = parser.next() else {
            Issue.record("expected head")
            return
        }
        #expect(head.isUpgrade)
        #expect(parser.next() == .end)
        #expect(parser.takeBufferedBytes() == [0x81, 0x00])
        #expect(parser.bufferedByteCount == 0)
        #expect(parser.isIdle)
    }

    @Test("HTTP/1.1 without Host is rejected with 400, HTTP/1.0 without Host is fine")
    func hostRequirement() throws {
        let error = parseError("GET / HTTP/1.1\r\nAccept: */*\r\n\r\n")
        #expect(error == .missingHost)
        #expect(error?.status == .badRequest)
        #expect(parseError("GET http://h/ HTTP/1.1\r\n\r\n") == .missingHost)
        let old = try parseSingle("GET / HTTP/1.0\r\n\r\n")
        #expect(old.head.host == nil)
    }

    @Test(
        "repeated or invalid Host fields are rejected",
        arguments: ["Host: a\r\nHost: a", "Host: a b", "Host: u@h", "Host: h/p"])
    func invalidHost(fields: String) {
        #expect(parseError("GET / HTTP/1.1\r\n\(fields)\r\n\r\n") == .invalidHost)
    }

    @Test("host values with ports and IP literals are accepted")
    func hostForms() throws {
        #expect(try parseSingle("GET / HTTP/1.1\r\nHost: [::1]:8080\r\n\r\n").head.host == "[::1]:8080")
        #expect(try parseSingle("GET / HTTP/1.1\r\nHost: 127.0.0.1:80\r\n\r\n").head.host == "127.0.0.1:80")
        #expect(try parseSingle("GET / HTTP/1.1\r\nHost:\r\n\r\n").head.host == "")
    }
}
