import HTTPWire
import Testing

private let sampleKey = "dGhlIHNhbXBsZSBub25jZQ=="

/// The RFC 6455 §1.2 client handshake, as header pairs.
private let validHeaders: [(String, String)] = [
    ("Host", "server.example.com"),
    ("Upgrade", "websocket"),
    ("Connection", "Upgrade"),
    ("Sec-WebSocket-Key", sampleKey),
    ("Origin", "http://example.com"),
    ("Sec-WebSocket-Protocol", "chat, superchat"),
    ("Sec-WebSocket-Version", "13"),
]

private func requestHead(
    method: HTTPMethod = .get, version: HTTPVersion = .http11, headers: [(String, String)] = validHeaders
) throws -> HTTPRequestHead {
    let fields = HTTPHeaders(headers)
    return HTTPRequestHead(
        method: method, target: try HTTPRequestTarget(parsing: "/chat"), version: version, headers: fields,
        host: fields["Host"], keepAlive: true, expectsContinue: false,
        isUpgrade: fields.contains(name: "Upgrade") && fields.contains(token: "upgrade", in: "Connection"),
        bodyFraming: .noBody)
}

private func replacing(_ name: String, with value: String?) -> [(String, String)] {
    var headers = validHeaders.filter { $0.0 != name }
    if let value { headers.append((name, value)) }
    return headers
}

struct WebSocketHandshakeTests {
    @Test func acceptValueMatchesTheRFCExample() {
        #expect(WebSocketHandshake.acceptValue(forKey: sampleKey) == "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=")
    }

    @Test func validRequestFromTheRFCIsAccepted() throws {
        let request = try WebSocketHandshake.validateClientRequest(requestHead()).get()
        #expect(request.key == sampleKey)
        #expect(request.protocols == ["chat", "superchat"])
        #expect(request.origin == "http://example.com")
        #expect(request.extensions.isEmpty)
    }

    @Test func requestParsedFromTheWireIsAccepted() throws {
        var parser = HTTPRequestParser()
        parser.append(
            contentsOf: Array(
                ("GET /chat HTTP/1.1\r\nHost: server.example.com\r\nUpgrade: WebSocket\r\n"
                    + "Connection: keep-alive, Upgrade\r\nSec-WebSocket-Key: \(sampleKey)\r\n"
                    + "Sec-WebSocket-Version: 13\r\n"
                    + "Sec-WebSocket-Extensions: permessage-deflate; client_max_window_bits\r\n"
                    + "Sec-WebSocket-Extensions: x-webkit-deflate-frame\r\n\r\n").utf8))
        guard case .head(let head) = parser.next() else {
            Issue.record("expected a request head")
            return
        }
        let request = try WebSocketHandshake.validateClientRequest(head).get()
        #expect(request.extensions == ["permessage-deflate; client_max_window_bits", "x-webkit-deflate-frame"])
        #expect(request.protocols.isEmpty)
        #expect(request.origin == nil)
    }

    /// A broken request and the error (and so the status) it must produce.
    static let badRequests: [(String, [(String, String)], HTTPMethod, HTTPVersion, WebSocketHandshake.HandshakeError)] =
        [
            ("POST", validHeaders, .post, .http11, .methodNotGET),
            ("HTTP/1.0", validHeaders, .get, .http10, .unsupportedHTTPVersion),
            ("no Host", replacing("Host", with: nil), .get, .http11, .missingHost),
            ("no Upgrade", replacing("Upgrade", with: nil), .get, .http11, .missingUpgrade),
            ("Upgrade: h2c", replacing("Upgrade", with: "h2c"), .get, .http11, .missingUpgrade),
            ("no Connection", replacing("Connection", with: nil), .get, .http11, .missingConnectionUpgrade),
            (
                "Connection: keep-alive", replacing("Connection", with: "keep-alive"), .get, .http11,
                .missingConnectionUpgrade
            ),
            ("no version", replacing("Sec-WebSocket-Version", with: nil), .get, .http11, .unsupportedVersion),
            ("version 8", replacing("Sec-WebSocket-Version", with: "8"), .get, .http11, .unsupportedVersion),
            ("version 14", replacing("Sec-WebSocket-Version", with: "14"), .get, .http11, .unsupportedVersion),
            ("no key", replacing("Sec-WebSocket-Key", with: nil), .get, .http11, .missingKey),
            (
                "key of 15 bytes", replacing("Sec-WebSocket-Key", with: "AAAAAAAAAAAAAAAAAAAA"), .get, .http11,
                .invalidKey
            ),
            (
                "key of 17 bytes", replacing("Sec-WebSocket-Key", with: "AAAAAAAAAAAAAAAAAAAAAAA="), .get, .http11,
                .invalidKey
            ),
            (
                "key not base64", replacing("Sec-WebSocket-Key", with: "dGhlIHNhbXBsZSBub25jZQ"), .get, .http11,
                .invalidKey
            ),
            ("two keys", validHeaders + [("Sec-WebSocket-Key", sampleKey)], .get, .http11, .invalidKey),
            (
                "duplicate protocol", replacing("Sec-WebSocket-Protocol", with: "chat, chat"), .get, .http11,
                .invalidProtocols
            ),
            (
                "protocol not a token", replacing("Sec-WebSocket-Protocol", with: "chat room"), .get, .http11,
                .invalidProtocols
            ),
        ]

    @Test(arguments: badRequests)
    func brokenRequestIsRefusedWithTheRightError(
        name: String, headers: [(String, String)], method: HTTPMethod, version: HTTPVersion,
        expected: WebSocketHandshake.HandshakeError
    ) throws {
        let result = WebSocketHandshake.validateClientRequest(
            try requestHead(method: method, version: version, headers: headers))
        #expect(result == .failure(expected), "\(name)")
        #expect(expected.status.code == (expected == .unsupportedVersion ? 426 : 400))
    }

    @Test func unsupportedVersionAnswersWith426AndTheSupportedVersion() throws {
        let result = WebSocketHandshake.validateClientRequest(
            try requestHead(headers: replacing("Sec-WebSocket-Version", with: "8")))
        guard case .failure(let error) = result else {
            Issue.record("expected a failure")
            return
        }
        #expect(error.status == .upgradeRequired)
        #expect(error.responseHeaders["Sec-WebSocket-Version"] == "13")
        #expect(WebSocketHandshake.HandshakeError.invalidKey.responseHeaders.isEmpty)
    }

    @Test func tokensAreMatchedCaseInsensitively() throws {
        let headers =
            replacing("Upgrade", with: "WebSocket").filter { $0.0 != "Connection" } + [
                ("connection", "keep-alive, UPGRADE")
            ]
        #expect(throws: Never.self) {
            try WebSocketHandshake.validateClientRequest(requestHead(headers: headers)).get()
        }
    }

    @Test func responseHeadersCarryTheAcceptValueAndOptionalFields() {
        let request = WebSocketHandshake.ClientRequest(key: sampleKey, protocols: ["chat"])
        let plain = WebSocketHandshake.responseHeaders(accepting: request, protocol: nil, extensions: nil)
        #expect(
            plain
                == HTTPHeaders([
                    ("Upgrade", "websocket"), ("Connection", "Upgrade"),
                    ("Sec-WebSocket-Accept", "s3pPLMBiTxaQ9kYGzzhZRbK+xOo="),
                ]))
        let full = WebSocketHandshake.responseHeaders(
            accepting: request, protocol: "chat", extensions: "permessage-deflate")
        #expect(full["Sec-WebSocket-Protocol"] == "chat")
        #expect(full["Sec-WebSocket-Extensions"] == "permessage-deflate")
    }

    // MARK: Client side

    @Test func generatedKeysDecodeToSixteenBytesAndDiffer() throws {
        var rng = SeededGenerator(seed: 1)
        let first = WebSocketHandshake.makeKey(using: &rng)
        let second = WebSocketHandshake.makeKey(using: &rng)
        #expect(first != second)
        #expect(first.utf8.count == 24)
        #expect(try #require(Base64.decode(first)).count == 16)
        #expect(Base64.decode(WebSocketHandshake.makeKey())?.count == 16)
    }

    @Test func clientRequestHeadersPassServerValidation() throws {
        let key = sampleKey
        let headers = WebSocketHandshake.clientRequestHeaders(
            host: "example.com:8080", key: key, protocols: ["a", "b"], extensions: PerMessageDeflate.clientOffer())
        let request = try WebSocketHandshake.validateClientRequest(requestHead(headers: Array(headers))).get()
        #expect(request.protocols == ["a", "b"])
        #expect(request.extensions == ["permessage-deflate; client_max_window_bits"])
    }

    private static func serverAnswer(_ extra: [(String, String)] = [], accept: String? = nil) -> HTTPHeaders {
        HTTPHeaders(
            [
                ("Upgrade", "websocket"), ("Connection", "Upgrade"),
                ("Sec-WebSocket-Accept", accept ?? WebSocketHandshake.acceptValue(forKey: sampleKey)),
            ] + extra)
    }

    @Test func validServerResponseIsAccepted() throws {
        let response = try WebSocketHandshake.validateServerResponse(
            status: 101,
            headers: Self.serverAnswer([
                ("Sec-WebSocket-Protocol", "chat"), ("Sec-WebSocket-Extensions", "permessage-deflate"),
            ]), key: sampleKey, offeredProtocols: ["chat", "superchat"]
        ).get()
        #expect(response == WebSocketHandshake.ServerResponse(protocol: "chat", extensions: "permessage-deflate"))
    }

    @Test func serverResponseWithAWrongStatusIsRejected() {
        let result = WebSocketHandshake.validateServerResponse(
            status: 200, headers: Self.serverAnswer(), key: sampleKey, offeredProtocols: [])
        #expect(result == .failure(.unexpectedStatus(200)))
    }

    @Test func serverResponseWithAWrongAcceptIsRejected() {
        let result = WebSocketHandshake.validateServerResponse(
            status: 101, headers: Self.serverAnswer(accept: "s3pPLMBiTxaQ9kYGzzhZRbK+xOp="), key: sampleKey,
            offeredProtocols: [])
        #expect(result == .failure(.invalidAccept))
    }

    @Test func serverResponseWithoutUpgradeIsRejected() {
        var headers = Self.serverAnswer()
        headers.remove(name: "Upgrade")
        #expect(
            WebSocketHandshake.validateServerResponse(
                status: 101, headers: headers, key: sampleKey, offeredProtocols: [])
                == .failure(.missingUpgrade))
        var noConnection = Self.serverAnswer()
        noConnection.remove(name: "Connection")
        #expect(
            WebSocketHandshake.validateServerResponse(
                status: 101, headers: noConnection, key: sampleKey, offeredProtocols: [])
                == .failure(.missingConnectionUpgrade))
    }

    @Test func serverChoosingAnUnofferedProtocolIsRejected() {
        let result = WebSocketHandshake.validateServerResponse(
            status: 101, headers: Self.serverAnswer([("Sec-WebSocket-Protocol", "mqtt")]), key: sampleKey,
            offeredProtocols: ["chat"])
        #expect(result == .failure(.unexpectedProtocol("mqtt")))
    }
}
