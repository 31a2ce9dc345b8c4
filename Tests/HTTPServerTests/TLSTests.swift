import Foundation
import Glibc
import HTTPServer
import HTTPWire
import NetworkTestSupport
import Testing
import WebSocketClient

/// The test certificates (blackbox/tls/make-certs.sh): self-signed for localhost, 127.0.0.1 and ::1.
enum TLSFixtures {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/tls").path

    static func path(_ name: String) -> String { directory + "/" + name }

    static func server(_ name: String = "ecdsa") throws -> TLSContext {
        try TLSContext.server(certificateFile: path(name + ".pem"), keyFile: path(name + ".key"))
    }

    /// A client that trusts exactly the certificate `name`.
    static func client(trusting name: String = "ecdsa") throws -> TLSContext {
        try TLSContext.client(certificateAuthorityFile: path(name + ".pem"))
    }
}

/// A router with a large, patterned binary response (a corrupted or reordered TLS record shows in its bytes), and
/// `/held`, answered once `gate` yields.
func tlsRouter(gate: AsyncStream<Void>? = nil) -> Router {
    var router = testRouter()
    router.get("/blob") { _ in
        HTTPResponse(contentType: "application/octet-stream", bytes: TLSTests.blob)
    }
    router.get("/held") { _ in
        if let gate { for await _ in gate { break } }
        return .text("held")
    }
    return router
}

@Suite("TLS: HTTPS and WSS on the event loops")
struct TLSTests {
    /// Bytes whose every position differs from its neighbours' (a misplaced or repeated record shows).
    static func pattern(count: Int) -> [UInt8] {
        [UInt8](unsafeUninitializedCapacity: count) { buffer, initialized in
            for index in 0..<count { buffer[index] = UInt8(truncatingIfNeeded: index &* 7 &+ index >> 11) }
            initialized = count
        }
    }

    /// `/blob`'s body, made once: 2 MiB, over a hundred records (tests run under TSan too, where making it per
    /// request would slow every test beside them).
    static let blob = pattern(count: 2 << 20)

    static func tlsConfiguration(
        _ name: String = "ecdsa", _ configure: (inout HTTPServerConfiguration) -> Void = { _ in }
    ) throws -> HTTPServerConfiguration {
        let context = try TLSFixtures.server(name)
        return testConfiguration {
            $0.tls = context
            configure(&$0)
        }
    }

    // MARK: Certificates and keys

    static let badIdentities: [(certificate: String, key: String, expected: String)] = [
        ("missing.pem", "ecdsa.key", "unreadable"),
        ("ecdsa.pem", "missing.key", "unreadable"),
        ("", "ecdsa.key", "unreadable"),
        ("garbage.pem", "ecdsa.key", "invalidCertificate"),
        ("ecdsa.pem", "garbage.pem", "invalidKey"),
        ("ecdsa.pem", "encrypted.key", "invalidKey"),
        ("ecdsa.pem", "ecdsa2.key", "keyMismatch"),
        ("ecdsa.key", "ecdsa.key", "invalidCertificate"),
        ("expired.pem", "ecdsa.key", "expired"),
        ("future.pem", "ecdsa.key", "notYetValid"),
    ]

    @Test(arguments: badIdentities)
    func refusesABadCertificateOrKeyWithAClearError(certificate: String, key: String, expected: String) throws {
        let certificatePath = certificate.isEmpty ? TLSFixtures.directory : TLSFixtures.path(certificate)
        do {
            _ = try TLSContext.server(certificateFile: certificatePath, keyFile: TLSFixtures.path(key))
            Issue.record("accepted \(certificate) with \(key)")
        } catch {
            let kind = "\(error)"
            switch (expected, error) {
            case ("unreadable", .unreadable(let path, _)):
                #expect(path == certificatePath || path == TLSFixtures.path(key))
            case ("invalidCertificate", .invalidCertificate(let path, _)): #expect(path == certificatePath)
            case ("invalidKey", .invalidKey(let path, _)): #expect(path == TLSFixtures.path(key))
            case ("keyMismatch", .keyMismatch): break
            case ("expired", .expired(_, let notAfter)): #expect(notAfter == "2021-01-01 00:00:00 UTC")
            case ("notYetValid", .notYetValid(_, let notBefore)): #expect(notBefore == "2200-01-01 00:00:00 UTC")
            default: Issue.record("expected \(expected), got \(kind)")
            }
            #expect(!kind.contains("\n"), "one line: \(kind)")
        }
    }

    @Test func namesTheFileAndTheReasonInOneLine() {
        #expect(throws: TLSError.unreadable(path: "/nonexistent.pem", reason: "No such file or directory")) {
            try TLSContext.server(certificateFile: "/nonexistent.pem", keyFile: TLSFixtures.path("ecdsa.key"))
        }
        let error = TLSError.expired(path: "cert.pem", notAfter: "2021-01-01 00:00:00 UTC")
        #expect(error.description == "the certificate in cert.pem expired on 2021-01-01 00:00:00 UTC")
    }

    @Test func loadsAnRSACertificateToo() throws {
        let context = try TLSFixtures.server("rsa")
        #expect(context.certificateNotAfter?.hasSuffix("UTC") == true)
    }

    // MARK: HTTPS

    @Test func answersKeepAliveRequestsAndABodyOverTLS() async throws {
        try await withServer(Self.tlsConfiguration(), router: tlsRouter()) { address, _ in
            let client = try TestClient(address, tls: TLSFixtures.client())
            #expect(client.tls?.protocolVersion == "TLSv1.3")
            #expect(client.tls?.applicationProtocol == "http/1.1")
            let body = Self.pattern(count: 256 << 10)
            for _ in 0..<3 {
                client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(client.readResponse()?.text == "hello")
            }
            client.send(Array("POST /echo HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.count)\r\n\r\n".utf8) + body)
            #expect(client.readResponse()?.body == body)
            client.send("GET /stream HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(client.readResponse()?.text == "part0;part1;part2;part3;part4;")
        }
    }

    @Test(arguments: [false, true])
    func answersEveryPipelinedRequestOfALargeBurst(tls: Bool) async throws {
        // More than the 64 KiB read ahead while a response is pending, sent at once in small records: reading pauses
        // with whole records still held by TLS, which no readiness event reports once the socket is empty.
        let clock = ManualClock()
        let useClock: (inout HTTPServerConfiguration) -> Void = { $0.clock = .manual(clock) }
        let configuration = tls ? try Self.tlsConfiguration("ecdsa", useClock) : testConfiguration(useClock)
        let (gate, opening) = AsyncStream.makeStream(of: Void.self)
        try await withServer(configuration, router: tlsRouter(gate: gate)) { address, _ in
            let client = try TestClient(address, timeoutSeconds: 10, tls: tls ? TLSFixtures.client() : nil)
            let padding = String(repeating: "p", count: 600)
            // A first request held while a little more than the read-ahead limit arrives, one write (one TLS record)
            // a request as browsers send them: reading pauses at 64 KiB with the last records read ahead by TLS and
            // the socket empty.
            let count = 1 + 110
            client.send("GET /held HTTP/1.1\r\nHost: x\r\n\r\n")
            for _ in 1..<count { client.send("GET /items/\(padding) HTTP/1.1\r\nHost: x\r\n\r\n") }
            // The loops read what has arrived, up to the pause; then the first request is answered.
            await clock.advance(by: .zero)
            opening.yield()
            var answered = 0
            while answered < count, let response = client.readResponse(), response.status == 200 { answered += 1 }
            #expect(answered == count)
        }
    }

    @Test func aSlowReaderGetsALargeResponseWhole() async throws {
        // A small receive window: the server's records keep finding the socket full, so every record goes through
        // the kept-for-retry path.
        try await withServer(Self.tlsConfiguration(), router: tlsRouter()) { address, _ in
            let client = try TestClient(address, timeoutSeconds: 60, receiveBufferSize: 4096, tls: TLSFixtures.client())
            let response: TestResponse? = {
                client.send("GET /blob HTTP/1.1\r\nHost: x\r\n\r\n")
                return client.readResponse()
            }()
            #expect(response?.status == 200)
            #expect(response?.body.count == Self.blob.count)
            #expect(response?.body == Self.blob)
        }
    }

    @Test func verifiesTheServerCertificateAndName() async throws {
        try await withServer(Self.tlsConfiguration()) { address, _ in
            #expect(throws: TestClient.HandshakeFailed.self) {
                _ = try TestClient(address, tls: TLSFixtures.client(trusting: "rsa"))
            }
            #expect(throws: TestClient.HandshakeFailed.self) {
                _ = try TestClient(address, tls: TLSFixtures.client(), serverName: "example.com")
            }
            let numeric = try TestClient(address, tls: TLSFixtures.client(), serverName: "127.0.0.1")
            #expect(numeric.tls != nil)
            let insecure = try TestClient(address, tls: TLSContext.client(verifiesPeer: false), serverName: "x.test")
            #expect(insecure.tls != nil)
        }
    }

    @Test(arguments: ["localhost", "127.0.0.1", "::1"])
    func refusesATrustedCertificateThatDoesNotNameTheServer(name: String) async throws {
        // `other.pem` is trusted but names only other.example: `localhost` is a name to check too, not an address.
        try await withServer(Self.tlsConfiguration("other")) { address, _ in
            #expect(throws: TestClient.HandshakeFailed.self) {
                _ = try TestClient(address, tls: TLSFixtures.client(trusting: "other"), serverName: name)
            }
            let named = try TestClient(address, tls: TLSFixtures.client(trusting: "other"), serverName: "other.example")
            #expect(named.tls != nil)
        }
    }

    // MARK: Bad input on the TLS port

    @Test func answersPlainHTTPWithA400SayingSo() async throws {
        try await withServer(Self.tlsConfiguration()) { address, _ in
            let client = try TestClient(address)
            let response: TestResponse? = {
                client.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                return client.readResponse()
            }()
            #expect(response?.status == 400)
            #expect(response?.text.contains("HTTPS port") == true)
            #expect(response?.header("Connection") == "close")
            #expect(client.isClosedByPeer())
        }
    }

    static let notClientHellos: [[UInt8]] = [
        [0x00, 0x01, 0x02, 0x03], [0x16, 0x03, 0x01, 0x00, 0x05, 1, 2, 3, 4, 5],
        [0xFF] + [UInt8](repeating: 0x42, count: 600),
        [0x16, 0x03, 0x01, 0xFF, 0xFF] + [UInt8](repeating: 0, count: 100),
    ]

    @Test(arguments: notClientHellos)
    func closesAConnectionThatSendsNoClientHello(garbage: [UInt8]) async throws {
        // Refused at once (not TLS), or at the head timeout (a record that never completes).
        let clock = ManualClock()
        let configuration = try Self.tlsConfiguration { $0.clock = .manual(clock) }
        try await withServer(configuration) { address, _ in
            let client = try TestClient(address, timeoutSeconds: 10)
            client.send(garbage)
            await clock.advance(by: configuration.headTimeout + configuration.lingeringTimeout)
            #expect(client.waitForClose())
            // Nothing else suffered.
            let good = try TestClient(address, tls: TLSFixtures.client())
            let text: String? = {
                good.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                return good.readResponse()?.text
            }()
            #expect(text == "hello")
        }
    }

    @Test(arguments: [0, 40])
    func closesAStalledHandshakeAtTheHeadTimeout(sentBytes: Int) async throws {
        let clock = ManualClock()
        let configuration = try Self.tlsConfiguration { $0.clock = .manual(clock) }
        try await withServer(configuration) { address, server in
            // Half a ClientHello (or nothing): the handshake can never finish.
            let stalled = try TestClient(address, timeoutSeconds: 10)
            if sentBytes > 0 { stalled.send([0x16, 0x03, 0x01, 0x02, 0x00] + [UInt8](repeating: 1, count: sentBytes)) }
            await clock.advance(by: configuration.headTimeout - .milliseconds(1))
            #expect(stalled.isOpenWithNothingToRead(), "the handshake has the head timeout (10 s)")
            await clock.advance(by: .milliseconds(1))
            #expect(stalled.waitForClose())
            #expect(server.metrics.snapshot.openConnections == 0)
        }
    }

    // MARK: WSS

    @Test(arguments: [true, false])
    func echoesWebSocketMessagesOverTLS(compression: Bool) async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        try await withServer(Self.tlsConfiguration(), router: echoRouter()) { address, _ in
            var options = WebSocketClient.Options()
            options.compression = compression
            options.tls = try TLSFixtures.client()
            let socket = try await WebSocketClient.connect(
                host: "localhost", port: address.port, path: "/echo", options: options, on: group.next())
            let inbox = Inbox()
            await inbox.attach(to: socket)
            let sent: [WebSocketMessage] = [
                .text(""), .text("hello"), .binary(Self.pattern(count: 70_000)),
                .text(String(repeating: "pose ", count: 10_000)), .binary(Self.pattern(count: 300_000)),
            ]
            for message in sent { socket.send(message) }
            await inbox.wait { $0.messages.count == sent.count }
            #expect(inbox.messages == sent)
            socket.close()
            await inbox.wait { $0.close != nil }
            #expect(inbox.close?.0 == .normal)
        }
    }

    @Test func coalescesQueuedSnapshotsWithoutCorruptingARecord() async throws {
        // 500 × 64 KiB snapshots into a small receive window: records wait for the socket while the queue behind
        // them is replaced; every frame must still decode.
        try await withServer(Self.tlsConfiguration(), router: echoRouter()) { address, _ in
            let client = try TestClient(address, receiveBufferSize: 8192, tls: TLSFixtures.client())
            let texts: [String] = {
                client.send(
                    "GET /flood HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
                guard client.readResponse()?.status == 101 else { return [] }
                client.send(WebSocketTests.frame(0x81, Array("go".utf8)))
                var decoder = WebSocketFrameDecoder(role: .client, maxFrameBytes: 1 << 20)
                var texts: [String] = []
                while texts.last != "event" {
                    let bytes = client.readSome()
                    if bytes.isEmpty { break }
                    decoder.append(contentsOf: bytes)
                    while case .frame(let frame) = decoder.next() {
                        texts.append(String(decoding: frame.payload.prefix(20), as: UTF8.self))
                    }
                }
                return texts
            }()
            #expect(texts.last == "event")
            #expect(texts.allSatisfy { $0 == "event" || $0.hasPrefix("snapshot ") })
            #expect(texts.contains { $0.hasPrefix("snapshot 499 ") }, "the newest snapshot is never lost")
            #expect(texts.count < 501, "older snapshots were replaced while queued: got \(texts.count)")
        }
    }

    // MARK: Reload

    @Test func reloadGivesNewConnectionsTheNewCertificateAndKeepsOpenOnes() async throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("tls-reload-\(getpid())").path
        try? FileManager.default.removeItem(atPath: directory)
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (certificate, key) = (directory + "/cert.pem", directory + "/key.pem")
        func install(_ name: String) throws {
            for (from, to) in [(name + ".pem", certificate), (name + ".key", key)] {
                try? FileManager.default.removeItem(atPath: to)
                try FileManager.default.copyItem(atPath: TLSFixtures.path(from), toPath: to)
            }
        }
        try install("ecdsa")
        let context = try TLSContext.server(certificateFile: certificate, keyFile: key)
        try await withServer(testConfiguration { $0.tls = context }) { address, _ in
            let trustsBoth = try TLSContext.client(verifiesPeer: false)
            let before = try TestClient(address, tls: trustsBoth)
            let first = try #require(before.tls?.peerCertificateDigest)

            try install("ecdsa2")
            try context.reload()
            let after = try TestClient(address, tls: trustsBoth)
            let second = try #require(after.tls?.peerCertificateDigest)
            #expect(first != second)

            // The connection opened before the reload goes on.
            let text: String? = {
                before.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
                return before.readResponse()?.text
            }()
            #expect(text == "hello")

            // A reload that fails changes nothing.
            try FileManager.default.removeItem(atPath: key)
            #expect(throws: TLSError.self) { try context.reload() }
            let unchanged = try TestClient(address, tls: trustsBoth)
            #expect(unchanged.tls?.peerCertificateDigest == second)
        }
    }
}
