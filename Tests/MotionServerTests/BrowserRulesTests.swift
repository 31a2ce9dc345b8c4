import Foundation
import HTTPServer
import NetworkTestSupport
import Testing

@testable import MotionServer

/// What a foreign web page could make the user's browser send to a server on the user's loopback, against the real
/// server (docs/protocol.md §6.2): a rebound `Host` (DNS rebinding) answered 421 without tokens, a WebSocket opened from a
/// foreign `Origin` (cross-site WebSocket hijacking) answered 403 with or without; and the headers every answer
/// carries.
@Suite("Browser rules")
struct BrowserRulesTests {
    static let tokens = "alice-token-0123456789 alice\n"
    static let alice = "alice-token-0123456789"
    static let key = "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"

    /// One request on a fresh connection, written as given: `head` is the request line and fields, without the
    /// blank line that ends them; `body` follows that line.
    static func exchange(
        _ address: SocketAddress, _ head: String, body: String = "", tls: TLSContext? = nil
    ) async throws -> TestResponse? {
        try await offPool {
            let client = try TestClient(address, tls: tls)
            client.send(head + "\r\n" + body)
            return client.readResponse()
        }
    }

    /// A GET of `path` with `Host: host` (none when nil) and `fields`.
    static func get(
        _ address: SocketAddress, _ path: String, host: String?, fields: String = "", version: String = "HTTP/1.1"
    ) async throws -> TestResponse? {
        let hostField = host.map { "Host: \($0)\r\n" } ?? ""
        return try await exchange(address, "GET \(path) \(version)\r\n\(hostField)\(fields)")
    }

    /// A WebSocket opening handshake (RFC 6455 §4.1) to `path` with `Host: host` and `fields` (an `Origin`, a
    /// subprotocol).
    static func handshake(
        _ address: SocketAddress, _ path: String, host: String, fields: String = ""
    ) async throws -> TestResponse? {
        try await exchange(
            address,
            "GET \(path) HTTP/1.1\r\nHost: \(host)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                + "Sec-WebSocket-Version: 13\r\n\(key)\(fields)")
    }

    /// Tests/HTTPServerTests/Fixtures/tls/`name`, found from this file's path.
    static func tlsFixture(_ name: String) -> String {
        var components = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast(2)
        return components.joined(separator: "/") + "/HTTPServerTests/Fixtures/tls/" + name
    }

    static func code(_ response: TestResponse?) -> String? {
        let body = response.flatMap { try? JSONSerialization.jsonObject(with: Data($0.body)) } as? [String: Any]
        return (body?["error"] as? [String: Any])?["code"] as? String
    }

    // MARK: Host (DNS rebinding)

    @Test(arguments: [
        "attacker.example", "attacker.example:8080", "ATTACKER.example", "localhost.attacker.example",
        "127.0.0.1.attacker.example", "attacker.example.", "127.0.0.2", "[::2]", "[::1", "::1", "localhost:80:80",
        "localhost:8o", "x", "",
    ])
    func refusesAHostThatIsNotOneOfTheServersNamesWithoutTokens(_ host: String) async throws {
        try await withMotionServer(webSocketEcho: true) { address, _, _ in
            for path in ["/v1/sessions", "/v1/exercises", "/metrics", "/index.html", "/nowhere"] {
                let response = try await Self.get(address, path, host: host)
                #expect(response?.status == 421, "\(path) with Host '\(host)'")
                #expect(Self.code(response) == "hostNotAllowed")
                #expect(response?.header("Content-Type") == "application/json")
            }
            for path in ["/v1/stream", "/v1/echo", "/v1/sessions/x/watch"] {
                let response = try await Self.handshake(address, path, host: host)
                #expect(response?.status == 421, "handshake to \(path) with Host '\(host)'")
            }
        }
    }

    @Test func refusesAnAbsoluteFormTargetNamingAnotherHost() async throws {
        try await withMotionServer { address, _, _ in
            let response = try await Self.exchange(
                address, "GET http://attacker.example/v1/sessions HTTP/1.1\r\nHost: 127.0.0.1:\(address.port)\r\n")
            #expect(response?.status == 421, "RFC 9112 §3.2.2: the target's authority is the host")
        }
    }

    @Test func answersTheLoopbackNamesWithAnyPortCaseAndTrailingDot() async throws {
        try await withMotionServer { address, _, _ in
            let port = address.port
            for host in [
                "127.0.0.1:\(port)", "127.0.0.1", "localhost:\(port)", "LocalHost:\(port)", "LOCALHOST",
                "localhost.:\(port)", "[::1]:\(port)", "[::1]", "127.0.0.1:1", "[0:0:0:0:0:0:0:1]:\(port)",
            ] {
                let response = try await Self.get(address, "/v1/sessions", host: host)
                #expect(response?.status == 200, "Host '\(host)'")
            }
        }
    }

    /// HTTP/1.0 may leave `Host` out, and no browser does: answered. HTTP/1.1 without it is malformed (400 from the
    /// parser, RFC 9112 §3.2).
    @Test func answersHTTP10WithoutAHostAndRefusesHTTP11WithoutOne() async throws {
        try await withMotionServer { address, _, _ in
            let http10 = try await Self.get(address, "/v1/sessions", host: nil, version: "HTTP/1.0")
            #expect(http10?.status == 200)
            let http11 = try await Self.get(address, "/v1/sessions", host: nil)
            #expect(http11?.status == 400)
        }
    }

    @Test func allowedHostsAreNamesToo() async throws {
        let allowing: (inout ServerOptions) -> Void = {
            $0.allowedHosts = ["App.Clinic.Example", "fd00::7", "10.0.0.7"]
        }
        try await withMotionServer(configure: allowing) { address, _, _ in
            for host in ["app.clinic.example:8443", "APP.CLINIC.EXAMPLE.", "[fd00::7]:80", "[FD00::7]", "10.0.0.7"] {
                let response = try await Self.get(address, "/v1/sessions", host: host)
                #expect(response?.status == 200, "Host '\(host)'")
            }
            for host in ["clinic.example", "x.app.clinic.example", "[fd00::8]", "10.0.0.70"] {
                let response = try await Self.get(address, "/v1/sessions", host: host)
                #expect(response?.status == 421, "Host '\(host)'")
            }
        }
    }

    @Test func theListeningAddressIsANameUnlessItIsAWildcard() {
        var options = ServerOptions()
        options.host = "192.168.1.20"
        #expect(BrowserPolicy(options: options).admitsHost("192.168.1.20:8080"))
        options.host = "Motion.Lan"
        #expect(BrowserPolicy(options: options).admitsHost("motion.lan:8080"))
        for wildcard in ["0.0.0.0", "::", "[::]"] {
            options.host = wildcard
            let policy = BrowserPolicy(options: options)
            #expect(policy.hostNames == BrowserPolicy.loopbackNames, "--host \(wildcard)")
            #expect(!policy.admitsHost("0.0.0.0:8080"))
            #expect(!policy.admitsHost("[::]:8080"))
        }
    }

    @Test func healthChecksAnswerWhateverTheHost() async throws {
        try await withMotionServer { address, _, _ in
            let live = try await Self.get(address, "/healthz", host: "10.1.2.3:8080")
            #expect(live?.status == 200)
            let ready = try await Self.get(address, "//readyz/", host: "attacker.example")
            #expect(ready?.status == 200)
        }
    }

    /// With tokens the `Host` is the token's business: a rebinding page has none.
    @Test func tokensLeaveTheHostToAuthentication() async throws {
        try await withMotionServer(tokens: Self.tokens) { address, _, _ in
            let withToken = try await Self.get(
                address, "/v1/sessions", host: "attacker.example", fields: "Authorization: Bearer \(Self.alice)\r\n")
            #expect(withToken?.status == 200)
            let without = try await Self.get(address, "/v1/sessions", host: "attacker.example")
            #expect(without?.status == 401)
        }
    }

    /// The Host check comes before authentication reads anything: a rebinding page learns nothing from it.
    @Test func theHostIsRefusedBeforeCredentialsAreRead() async throws {
        try await withMotionServer { address, _, _ in
            let response = try await Self.get(
                address, "/v1/sessions", host: "attacker.example",
                fields: "Authorization: Bearer a-token-0123456789\r\nAuthorization: Bearer b-token-0123456789\r\n")
            #expect(response?.status == 421)
        }
    }

    // MARK: Origin (cross-site WebSocket hijacking)

    /// Origins no page of this server has, each refused on every WebSocket route, with tokens and without.
    static func foreignOrigins(port: UInt16) -> [String] {
        [
            "Origin: http://attacker.example", "Origin: null", "Origin: http://127.0.0.1:\(port &+ 1)",
            "Origin: http://127.0.0.1", "Origin: http://localhost:\(port)", "Origin: http://127.0.0.1:\(port)/",
            "Origin: http://user@127.0.0.1:\(port)", "Origin: 127.0.0.1:\(port)", "Origin: ",
            "Origin: http://127.0.0.1:\(port) http://attacker.example",
            "Origin: http://127.0.0.1:\(port)\r\nOrigin: http://attacker.example",
            "Origin: https://app.clinic.example:443", "Origin: http://127.0.0.1:\(port).attacker.example",
        ]
    }

    @Test(arguments: [false, true])
    func refusesAWebSocketFromAForeignOrigin(withTokens: Bool) async throws {
        let allowing: (inout ServerOptions) -> Void = { $0.allowedOrigins = ["https://app.clinic.example"] }
        try await withMotionServer(
            tokens: withTokens ? Self.tokens : nil, webSocketEcho: true, configure: allowing
        ) { address, _, _ in
            let token = withTokens ? "Sec-WebSocket-Protocol: bearer.\(Self.alice)\r\n" : ""
            for origin in Self.foreignOrigins(port: address.port) {
                for path in ["/v1/stream", "/v1/echo", "/v1/sessions/x/watch"] {
                    let response = try await Self.handshake(
                        address, path, host: "127.0.0.1:\(address.port)", fields: "\(origin)\r\n\(token)")
                    #expect(response?.status == 403, "\(path) with \(origin.debugDescription)")
                    #expect(Self.code(response) == "originNotAllowed")
                }
            }
        }
    }

    @Test(arguments: [false, true])
    func opensAWebSocketFromItsOwnOriginAnAllowedOneOrNone(withTokens: Bool) async throws {
        let allowing: (inout ServerOptions) -> Void = {
            $0.allowedOrigins = ["https://app.clinic.example", "http://localhost:5173"]
        }
        try await withMotionServer(
            tokens: withTokens ? Self.tokens : nil, webSocketEcho: true, configure: allowing
        ) { address, _, _ in
            let port = address.port
            let token = withTokens ? "Sec-WebSocket-Protocol: bearer.\(Self.alice)\r\n" : ""
            let cases = [
                ("127.0.0.1:\(port)", ""), ("127.0.0.1:\(port)", "Origin: http://127.0.0.1:\(port)\r\n"),
                ("127.0.0.1:\(port)", "Origin: https://127.0.0.1:\(port)\r\n"),
                ("127.0.0.1:\(port)", "Origin: HTTP://127.0.0.1:\(port)\r\n"),
                ("localhost:\(port)", "Origin: http://LOCALHOST:\(port)\r\n"),
                ("127.0.0.1:\(port)", "Origin: https://app.clinic.example\r\n"),
                ("127.0.0.1:\(port)", "Origin: https://App.Clinic.Example\r\n"),
                ("localhost:\(port)", "Origin: http://localhost:5173\r\n"),
            ]
            for (host, origin) in cases {
                for path in ["/v1/stream", "/v1/echo"] {
                    let response = try await Self.handshake(address, path, host: host, fields: origin + token)
                    #expect(response?.status == 101, "\(path), Host \(host), \(origin.debugDescription)")
                }
            }
        }
    }

    /// A refused origin is answered before authentication would open and close the socket with 1008.
    @Test func aForeignOriginIsRefusedBeforeAuthentication() async throws {
        try await withMotionServer(tokens: Self.tokens) { address, _, _ in
            let response = try await Self.handshake(
                address, "/v1/stream", host: "127.0.0.1:\(address.port)", fields: "Origin: http://attacker.example\r\n")
            #expect(response?.status == 403)
            let own = try await Self.handshake(
                address, "/v1/stream", host: "127.0.0.1:\(address.port)",
                fields: "Origin: http://127.0.0.1:\(address.port)\r\n")
            #expect(own?.status == 101, "no token: opened and closed with 1008, as before")
        }
    }

    /// A foreign page may make the browser `POST` a body without a type across origins, with no preflight
    /// (`new Blob([json])`), which REST reads as JSON: refused, like a socket; reads are not (the page cannot read
    /// the answer, and the Host is checked).
    @Test(arguments: [false, true])
    func aForeignOriginMayReadButNotAct(withTokens: Bool) async throws {
        try await withMotionServer(tokens: withTokens ? Self.tokens : nil) { address, _, _ in
            let host = "127.0.0.1:\(address.port)"
            let token = withTokens ? "Authorization: Bearer \(Self.alice)\r\n" : ""
            func send(_ method: String, _ path: String, origin: String, body: String = "") async throws -> TestResponse?
            {
                try await Self.exchange(
                    address,
                    "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\n\(token)\(origin)"
                        + "Content-Length: \(body.utf8.count)\r\n", body: body)
            }
            let start = #"{"exercise":"squat"}"#
            let foreign = "Origin: http://attacker.example\r\n"
            for (method, path) in [
                ("POST", "/v1/sessions"), ("POST", "/v1/analyze"), ("POST", "/v1/exercises"),
                ("DELETE", "/v1/sessions/x"), ("PUT", "/v1/exercises/x"), ("PATCH", "/v1/sessions"),
            ] {
                let response = try await send(method, path, origin: foreign, body: start)
                #expect(response?.status == 403, "\(method) \(path)")
                #expect(Self.code(response) == "originNotAllowed")
            }
            let listed = try await send("GET", "/v1/sessions", origin: foreign)
            #expect(listed?.text == #"{"sessions":[],"next":null}"#, "a read is answered, and nothing was stored")
            #expect(try await send("OPTIONS", "/v1/sessions", origin: foreign)?.status != 403)
            let own = try await send("POST", "/v1/sessions", origin: "Origin: http://\(host)\r\n", body: start)
            #expect(own?.status == 201, "the pages' own origin")
            let none = try await send("POST", "/v1/sessions", origin: "", body: start)
            #expect(none?.status == 201, "no Origin: no browser")
        }
    }

    @Test(arguments: [
        "http://a.example", "https://a.example:8443", "HTTPS://A.Example", "http://[::1]:8080", "app+x://host",
    ])
    func readsAllowedOrigins(_ origin: String) throws {
        let options = try ServerOptions.parse(arguments: ["--allowed-origins", " \(origin) ,"], environment: [:])
        #expect(options.allowedOrigins == [origin.lowercased()])
    }

    @Test(arguments: [
        "a.example", "http://a.example/", "http://a.example/path", "null", "*", "http://", "http://user@a.example",
        "http://a.example:", "http://a.example:x", "1http://a.example",
    ])
    func refusesMalformedAllowedOrigins(_ origin: String) {
        #expect(throws: ServerOptions.UsageError.self) {
            try ServerOptions.parse(arguments: ["--allowed-origins", origin], environment: [:])
        }
    }

    @Test func readsAllowedHostsFromTheFlagOrTheEnvironment() throws {
        let flag = try ServerOptions.parse(
            arguments: ["--allowed-hosts", "App.Example, fd00::1,[FD00::2],x."], environment: [:])
        #expect(flag.allowedHosts == ["app.example", "[fd00::1]", "[fd00::2]", "x"])
        let environment = try ServerOptions.parse(
            arguments: [],
            environment: ["MOTION_ALLOWED_HOSTS": "clinic.example", "MOTION_ALLOWED_ORIGINS": "https://clinic.example"])
        #expect(environment.allowedHosts == ["clinic.example"])
        #expect(environment.allowedOrigins == ["https://clinic.example"])
        for bad in ["app.example:8443", "http://app.example", "a b", "[fd00::1]:80", "[zz::1]", "cafe:80", "app/x"] {
            #expect(throws: ServerOptions.UsageError.self, "\(bad)") {
                try ServerOptions.parse(arguments: ["--allowed-hosts", bad], environment: [:])
            }
        }
    }

    // MARK: Headers

    /// A public directory with a page, a script and a stylesheet.
    static func withPublicDirectory(_ body: (String) async throws -> Void) async throws {
        let directory = NSTemporaryDirectory() + "motion-public-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "<!doctype html><title>t</title>".write(
            toFile: directory + "/index.html", atomically: true, encoding: .utf8)
        try "export {};".write(toFile: directory + "/app.js", atomically: true, encoding: .utf8)
        try await body(directory)
    }

    @Test func pagesCarryTheirPolicyAndKeepTheirCaching() async throws {
        try await Self.withPublicDirectory { directory in
            let serving: (inout ServerOptions) -> Void = { $0.publicDirectory = directory }
            try await withMotionServer(configure: serving) { address, _, _ in
                let host = "127.0.0.1:\(address.port)"
                let page = try #require(try await Self.get(address, "/", host: host))
                #expect(page.status == 200)
                #expect(page.header("Content-Type") == "text/html; charset=utf-8")
                #expect(page.header("Content-Security-Policy") == SecurityHeaders.contentSecurityPolicy)
                #expect(page.header("X-Content-Type-Options") == "nosniff")
                #expect(page.header("Referrer-Policy") == "no-referrer")
                #expect(page.header("Cache-Control") == "no-cache", "revalidated by ETag, as before")
                #expect(page.header("Strict-Transport-Security") == nil, "plain HTTP")
                let etag = try #require(page.header("ETag"))
                let again = try #require(
                    try await Self.get(address, "/index.html", host: host, fields: "If-None-Match: \(etag)\r\n"))
                #expect(again.status == 304)
                #expect(again.header("Content-Security-Policy") == SecurityHeaders.contentSecurityPolicy)
                let script = try await Self.get(address, "/app.js", host: host)
                #expect(script?.header("X-Content-Type-Options") == "nosniff")
                #expect(script?.header("Cache-Control") == "no-cache")
                let missing = try await Self.get(address, "/missing.html", host: host)
                #expect(missing?.status == 404)
                #expect(missing?.header("Cache-Control") == "no-store")
                #expect(missing?.header("X-Content-Type-Options") == "nosniff")
            }
        }
    }

    @Test func jsonIsNeverStoredAndNoAnswerIsSniffed() async throws {
        try await withMotionServer { address, _, _ in
            let host = "127.0.0.1:\(address.port)"
            for path in ["/v1/sessions", "/v1/exercises", "/openapi.json", "/v1/sessions/nope", "/healthz", "/metrics"]
            {
                let response = try #require(try await Self.get(address, path, host: host))
                #expect(response.header("Cache-Control") == "no-store", "\(path)")
                #expect(response.header("X-Content-Type-Options") == "nosniff", "\(path)")
                #expect(response.header("Content-Security-Policy") == nil, "\(path): no page")
            }
            let refused = try #require(try await Self.get(address, "/v1/sessions", host: "attacker.example"))
            #expect(refused.header("Cache-Control") == "no-store")
            #expect(refused.header("X-Content-Type-Options") == "nosniff")
            let upgrade = try #require(try await Self.handshake(address, "/v1/stream", host: host))
            #expect(upgrade.status == 101)
            #expect(upgrade.header("Cache-Control") == nil, "an upgrade is left as it is")
        }
    }

    @Test func tlsAsksBrowsersToKeepToIt() async throws {
        let withTLS: (inout ServerOptions) -> Void = {
            $0.tlsCertificate = Self.tlsFixture("ecdsa.pem")
            $0.tlsKey = Self.tlsFixture("ecdsa.key")
        }
        try await withMotionServer(configure: withTLS) { address, _, _ in
            let tls = try TLSContext.client(certificateAuthorityFile: Self.tlsFixture("ecdsa.pem"))
            for path in ["/healthz", "/v1/sessions", "/nowhere"] {
                let response = try await Self.exchange(address, "GET \(path) HTTP/1.1\r\nHost: localhost\r\n", tls: tls)
                #expect(response?.header("Strict-Transport-Security") == "max-age=31536000", "\(path)")
            }
        }
    }

    /// The policy names where the Camera source loads its detector from (`Public/js/camera.js`), and no other
    /// host: a new MediaPipe version in the page without the policy following would break the camera.
    @Test func thePolicyNamesThePoseDetectorsLocationsAndNoOtherHost() throws {
        var components = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast(3)
        let camera = try String(
            contentsOfFile: components.joined(separator: "/") + "/Public/js/camera.js", encoding: .utf8)
        let version = try #require(camera.firstMatch(of: /const VERSION = '([^']+)'/)?.output.1)
        let urls = camera.matches(of: /'(https:[^']+)'|`(https:[^`]+)`/).map {
            String($0.output.1 ?? $0.output.2 ?? "").replacingOccurrences(of: "${VERSION}", with: String(version))
        }
        #expect(urls.count == 3, "the module, the WebAssembly and the model: \(urls)")
        let scripts = SecurityHeaders.poseDetectorScripts
        let models = SecurityHeaders.poseDetectorModels
        for url in urls {
            #expect(url.hasPrefix(scripts) || url.hasPrefix(models), "\(url) is outside the policy")
        }
        let hosts = Set(
            SecurityHeaders.contentSecurityPolicy.split(whereSeparator: { $0 == " " || $0 == ";" })
                .filter { $0.contains("://") }.map(String.init))
        #expect(hosts == [scripts, models])
        #expect(!SecurityHeaders.contentSecurityPolicy.contains("'unsafe-inline'"))
        #expect(!SecurityHeaders.contentSecurityPolicy.contains("'unsafe-eval'"))
        #expect(SecurityHeaders.contentSecurityPolicy.contains("frame-ancestors 'none'"))
    }
}
