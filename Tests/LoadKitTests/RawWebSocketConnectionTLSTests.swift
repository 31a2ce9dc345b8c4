import HTTPServer
import LoadKit
import Testing

/// ``RawWebSocketConnection`` over `wss://`: real TLS on loopback, against the project's server with the test
/// certificates (``TLSFixtures``) and an echo route.
@Suite struct RawWebSocketConnectionTLSTests {
    /// A `wss://` target on `port` whose client trusts exactly the certificate `trusted`.
    static func target(
        port: UInt16, host: String = "localhost", trusting trusted: String = "ecdsa"
    ) throws -> WebSocketTarget {
        var target = try WebSocketTarget(url: "wss://\(host):\(port)/echo")
        target.tls = try TLSFixtures.client(trusting: trusted)
        return target
    }

    /// Sends `payloads` as text messages at once and expects their echoes, in order and byte for byte; then closes
    /// from this side and expects a clean finish.
    static func expectEchoes(
        of payloads: [[UInt8]], target: WebSocketTarget, timeout: Duration = .seconds(10)
    ) async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        let loop = group.next()
        let recorder = DelegateRecorder(loop: loop, index: 0)
        let driver = ConnectionDriver(loop: loop)
        await driver.connect(to: target, index: 0, delegate: recorder)
        #expect(await recorder.arrival { !$0.events.isEmpty })
        guard recorder.events == [.open] else {
            Issue.record("expected open, got \(recorder.events)")
            return await driver.abort()
        }
        for payload in payloads { await driver.sendText(payload) }
        let echoed = await recorder.arrival(within: timeout) { $0.messageCount >= payloads.count }
        #expect(echoed, "\(recorder.messages.count) of \(payloads.count) echoes; events \(recorder.events.count)")
        let messages = recorder.messages
        #expect(messages.count == payloads.count)
        for (received, sent) in zip(messages, payloads) {
            guard case .message(let bytes, let length, let text) = received else { continue }
            // Sizes first, so a mismatch does not print a megabyte.
            #expect(length == sent.count)
            #expect(bytes.count == sent.count)
            #expect(text)
            #expect(bytes == sent, "the echo of \(sent.count) bytes differs")
        }
        await driver.close()
        #expect(await recorder.arrival { $0.events.last == .finish })
        let events = recorder.events
        #expect(events.filter { $0 == .finish }.count == 1)
        #expect(!events.contains { if case .close = $0 { true } else { false } })
        #expect(!events.contains { if case .fail = $0 { true } else { false } })
        #expect(recorder.offLoopCalls == 0)
    }

    /// Connects to `target`, expects the connection to fail, then finish, without opening.
    /// - Returns: The failure's reason.
    static func expectFailure(target: WebSocketTarget) async throws -> String? {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        let loop = group.next()
        let recorder = DelegateRecorder(loop: loop, index: 4)
        let driver = ConnectionDriver(loop: loop)
        await driver.connect(to: target, index: 4, delegate: recorder)
        #expect(await recorder.arrival { $0.events.last == .finish })
        let events = recorder.events
        guard events.count == 2, case .fail(let reason) = events[0], events[1] == .finish else {
            Issue.record("expected fail, finish; got \(events)")
            await driver.abort()
            return nil
        }
        #expect(await !driver.isOpen)
        #expect(recorder.offLoopCalls == 0)
        return reason
    }

    /// Every size class of the frame length field, each one echoed whole over TLS; the host is verified both as a
    /// name (SNI and the certificate's DNS name) and as an address (its IP entry).
    @Test(arguments: ["localhost", "127.0.0.1"])
    func echoesTextOfEveryLengthClass(host: String) async throws {
        try await withEchoServer(tls: try TLSFixtures.server()) { port in
            let target = try Self.target(port: port, host: host)
            #expect(target.serverName == host)
            let payloads = RawWebSocketConnectionTests.sizes.map { RawWebSocketConnectionTests.payload($0) }
            try await Self.expectEchoes(of: payloads, target: target)
        }
    }

    /// Messages larger than a mebibyte, three sent at once: the client's output outgrows the socket buffer, so
    /// TLS records wait for writability, and the echoes span many records and reads.
    @Test func echoesMessagesLargerThanAMebibyteBothWays() async throws {
        let sizes = [(1 << 20) + 1, 5 << 19, 1 << 20]
        try await withEchoServer(tls: try TLSFixtures.server(), maxMessageBytes: 4 << 20) { port in
            let payloads = sizes.map { RawWebSocketConnectionTests.payload($0) }
            try await Self.expectEchoes(of: payloads, target: try Self.target(port: port), timeout: .seconds(60))
        }
    }

    /// How many messages ``echoesABurstThatOutrunsTheSocket()`` sends at once.
    static let burstCount = 20000

    /// Thousands of small messages written in one turn of the loop, to a server that does not read at first, fill
    /// the socket: a TLS record the socket cannot take is held and counted as sent, and must still leave, in
    /// order, once the socket has room. The server's reading pause runs on a manual clock, so it ends only after
    /// the burst was written.
    @Test func echoesABurstThatOutrunsTheSocket() async throws {
        let count = Self.burstCount
        let payload = RawWebSocketConnectionTests.payload(1000)
        let server = try TLSFixtures.server()
        let clock = ManualClock()
        try await withEchoServer(
            tls: server, maxMessageBytes: 4 << 20, readingPause: .milliseconds(300), clock: .manual(clock)
        ) { port in
            let group = try EventLoopGroup(loops: 1)
            defer { group.shutdown() }
            let loop = group.next()
            let recorder = DelegateRecorder(loop: loop, index: 5)
            let driver = ConnectionDriver(loop: loop)
            await driver.connect(to: try Self.target(port: port), index: 5, delegate: recorder)
            #expect(await recorder.arrival { $0.events.contains(.open) })
            // One turn of the client's loop: it writes until the socket is full and holds the rest.
            await driver.sendText(payload, count: count)
            await clock.advance(by: .milliseconds(300))
            let echoed = await recorder.arrival(within: .seconds(60)) { $0.messageCount >= Self.burstCount }
            #expect(echoed, "\(recorder.messages.count) of \(count) echoes")
            let wrong = recorder.messages.filter { $0 != .message(bytes: payload, length: payload.count, text: true) }
            #expect(wrong.isEmpty)
            await driver.close()
            #expect(await recorder.arrival { $0.events.last == .finish })
            #expect(!recorder.events.contains { if case .fail = $0 { true } else { false } })
            #expect(!recorder.events.contains { if case .close = $0 { true } else { false } })
        }
    }

    /// A client that trusts another certificate refuses the server's.
    @Test func refusesAnUntrustedCertificate() async throws {
        try await withEchoServer(tls: try TLSFixtures.server()) { port in
            let reason = try await Self.expectFailure(target: try Self.target(port: port, trusting: "ecdsa2"))
            #expect(reason?.hasPrefix("TLS handshake:") == true, "\(reason ?? "")")
            #expect(reason?.contains("certificate verify failed") == true, "\(reason ?? "")")
        }
    }

    /// Without verification the same untrusted certificate is accepted.
    @Test func acceptsAnUntrustedCertificateWithoutVerification() async throws {
        try await withEchoServer(tls: try TLSFixtures.server("ecdsa2")) { port in
            var target = try Self.target(port: port)
            target.tls = try TLSContext.client(verifiesPeer: false)
            try await Self.expectEchoes(of: [RawWebSocketConnectionTests.payload(300)], target: target)
        }
    }

    /// A trusted certificate that does not carry the server name is refused: a DNS name, and an address.
    @Test(arguments: ["wrong.example", "10.9.8.7"])
    func refusesAWrongServerName(name: String) async throws {
        try await withEchoServer(tls: try TLSFixtures.server()) { port in
            var target = try Self.target(port: port)
            target.serverName = name
            let reason = try await Self.expectFailure(target: target)
            #expect(reason?.hasPrefix("TLS handshake:") == true, "\(reason ?? "")")
        }
    }

    /// A `wss://` target without a client context fails at once rather than speaking in the clear.
    @Test func failsWithoutAClientContext() async throws {
        let target = try WebSocketTarget(url: "wss://127.0.0.1:9/echo")
        let reason = try await Self.expectFailure(target: target)
        #expect(reason == "TLS: no client context for wss://")
    }

    /// TLS to a plain server fails the TLS handshake (the server answers the ClientHello as bad HTTP).
    @Test func failsAgainstAPlainServer() async throws {
        try await withEchoServer { port in
            let reason = try await Self.expectFailure(target: try Self.target(port: port))
            #expect(reason?.hasPrefix("TLS handshake:") == true, "\(reason ?? "")")
        }
    }

    /// A plain client on the TLS port gets the server's 400 for plain HTTP.
    @Test func plainClientOnTheTLSPortIsRefused() async throws {
        try await withEchoServer(tls: try TLSFixtures.server()) { port in
            let reason = try await Self.expectFailure(target: try WebSocketTarget(url: "ws://127.0.0.1:\(port)/echo"))
            #expect(reason == "handshake: HTTP 400", "\(reason ?? "")")
        }
    }
}
