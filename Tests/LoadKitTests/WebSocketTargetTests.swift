import HTTPServer
import LoadKit
import Testing

@Suite struct WebSocketTargetTests {
    @Test func parsesHostPortAndPath() throws {
        let target = try WebSocketTarget(url: "ws://10.1.2.3:8080/v1/stream?session=abc")
        #expect(target.host == "10.1.2.3")
        #expect(target.port == 8080)
        #expect(target.path == "/v1/stream?session=abc")
        #expect(target.headers.isEmpty)
        #expect(!target.usesTLS)
        #expect(target.tls == nil)
        #expect(target.url == "ws://10.1.2.3:8080/v1/stream?session=abc")
    }

    /// `wss://` asks for TLS; the server name is the host as written, so `localhost` is verified as a name.
    @Test(arguments: [
        ("wss://localhost:8443/v1/stream", "127.0.0.1", "localhost"),
        ("wss://10.0.0.2:443", "10.0.0.2", "10.0.0.2"),
    ])
    func parsesSecureURLs(url: String, host: String, serverName: String) throws {
        let target = try WebSocketTarget(url: url)
        #expect(target.usesTLS)
        #expect(target.host == host)
        #expect(target.serverName == serverName)
        #expect(target.tls == nil, "the context is the caller's to give")
        #expect(target.url.hasPrefix("wss://\(host):"))
    }

    /// Without a path (or with only `/`), the request target is `/`.
    @Test(arguments: ["ws://127.0.0.1:9000", "ws://127.0.0.1:9000/"])
    func defaultsThePathToSlash(url: String) throws {
        let target = try WebSocketTarget(url: url)
        #expect(target.host == "127.0.0.1")
        #expect(target.port == 9000)
        #expect(target.path == "/")
    }

    @Test func resolvesLocalhostToTheLoopbackAddress() throws {
        let target = try WebSocketTarget(url: "ws://localhost:1/ws")
        #expect(target.host == "127.0.0.1")
        #expect(target.port == 1)
        #expect(target.path == "/ws")
    }

    @Test func acceptsTheWholePortRange() throws {
        #expect(try WebSocketTarget(url: "ws://0.0.0.0:0").port == 0)
        #expect(try WebSocketTarget(url: "ws://255.255.255.255:65535/").port == 65535)
    }

    @Test func headersCanBeAdded() throws {
        var target = try WebSocketTarget(url: "ws://127.0.0.1:80/")
        target.headers.append(("Authorization", "Bearer x"))
        #expect(target.headers.count == 1)
        #expect(target.headers.first?.0 == "Authorization")
    }

    /// Every refusal throws a ``WebSocketTarget/URLError`` whose description says what is wrong.
    @Test(arguments: [
        ("https://127.0.0.1:443/", "only ws:// and wss://"),
        ("http://127.0.0.1:80/", "only ws:// and wss://"),
        ("WS://127.0.0.1:80/", "only ws:// and wss://"),
        ("wss:/127.0.0.1:80/", "only ws:// and wss://"),
        ("127.0.0.1:80", "only ws:// and wss://"),
        ("", "only ws:// and wss://"),
        ("wss://127.0.0.1/path", "needs a port"),
        ("wss://example.com:443/", "numeric IPv4"),
        ("ws://127.0.0.1/path", "needs a port"),
        ("ws://127.0.0.1", "needs a port"),
        ("ws://127.0.0.1:/", "needs a port"),
        ("ws://127.0.0.1:http/", "needs a port"),
        ("ws://127.0.0.1:65536/", "needs a port"),
        ("ws://127.0.0.1:99999/", "needs a port"),
        ("ws://127.0.0.1:-1/", "needs a port"),
        ("ws://example.com:80/", "numeric IPv4"),
        ("ws://my-server:8080/ws", "numeric IPv4"),
        ("ws://:80/", "numeric IPv4"),
        ("ws://[::1]:80/", "numeric IPv4"),
        ("ws://256.0.0.1:80/", "numeric IPv4"),
    ])
    func refusesBadURLs(url: String, problem: String) {
        let error = #expect(throws: WebSocketTarget.URLError.self) { try WebSocketTarget(url: url) }
        #expect(error?.description.contains(problem) == true, "\(url): \(error?.description ?? "no error")")
    }
}

/// ``WebSocketTarget/configureTLS(certificateAuthorityFile:insecure:serverName:)``: the load tools' `--ca`,
/// `--insecure` and `--server-name`.
@Suite struct WebSocketTargetTLSOptionTests {
    @Test func verifiesAgainstTheGivenCertificateAuthority() throws {
        var target = try WebSocketTarget(url: "wss://127.0.0.1:8443/")
        try target.configureTLS(
            certificateAuthorityFile: TLSFixtures.path("ecdsa.pem"), insecure: false, serverName: nil)
        let tls = try #require(target.tls)
        #expect(tls.role == .client(certificateAuthorityFile: TLSFixtures.path("ecdsa.pem"), verifiesPeer: true))
        #expect(target.serverName == "127.0.0.1")
    }

    @Test func insecureVerifiesNothing() throws {
        var target = try WebSocketTarget(url: "wss://localhost:8443/")
        try target.configureTLS(certificateAuthorityFile: nil, insecure: true, serverName: "motion.example")
        #expect(target.tls?.role == .client(certificateAuthorityFile: nil, verifiesPeer: false))
        #expect(target.serverName == "motion.example")
    }

    /// A CA file that cannot be loaded is an error naming it, not a connection failure later.
    @Test func refusesACertificateAuthorityThatCannotBeLoaded() throws {
        var target = try WebSocketTarget(url: "wss://127.0.0.1:8443/")
        let missing = TLSFixtures.path("missing.pem")
        let error = #expect(throws: WebSocketTarget.TLSOptionError.self) {
            try target.configureTLS(certificateAuthorityFile: missing, insecure: false, serverName: nil)
        }
        #expect(error == .context(.unreadable(path: missing, reason: "No such file or directory")))
        #expect(error?.description == "--ca: cannot read \(missing): No such file or directory")
        let garbage = TLSFixtures.path("garbage.pem")
        let invalid = #expect(throws: WebSocketTarget.TLSOptionError.self) {
            try target.configureTLS(certificateAuthorityFile: garbage, insecure: false, serverName: nil)
        }
        guard case .context(.invalidCertificateAuthority(let path, _)) = invalid else {
            Issue.record("expected invalidCertificateAuthority, got \(String(describing: invalid))")
            return
        }
        #expect(path == garbage)
        #expect(target.tls == nil)
    }

    @Test(
        arguments: [
            ("ws://127.0.0.1:80/", "ca.pem", false, nil, WebSocketTarget.TLSOptionError.notForPlainURL),
            ("ws://127.0.0.1:80/", nil, true, nil, .notForPlainURL),
            ("ws://127.0.0.1:80/", nil, false, "x", .notForPlainURL),
            ("wss://127.0.0.1:443/", "ca.pem", true, nil, .conflicting),
            ("wss://127.0.0.1:443/", nil, true, "", .emptyServerName),
        ] as [(String, String?, Bool, String?, WebSocketTarget.TLSOptionError)])
    func refusesOptionsThatDoNotFit(
        url: String, certificateAuthorityFile: String?, insecure: Bool, serverName: String?,
        expected: WebSocketTarget.TLSOptionError
    ) throws {
        var target = try WebSocketTarget(url: url)
        let error = #expect(throws: WebSocketTarget.TLSOptionError.self) {
            try target.configureTLS(
                certificateAuthorityFile: certificateAuthorityFile, insecure: insecure, serverName: serverName)
        }
        #expect(error == expected)
    }

    /// A plain target with no TLS option stays plain.
    @Test func plainTargetWithoutOptionsStaysPlain() throws {
        var target = try WebSocketTarget(url: "ws://127.0.0.1:80/")
        try target.configureTLS(certificateAuthorityFile: nil, insecure: false, serverName: nil)
        #expect(target.tls == nil)
    }
}
