import HTTPServer
import LoadKit
import Testing

/// ``RawWebSocketConnection`` end to end over loopback, against the project's own WebSocket server with an echo
/// route. Every delegate call is recorded (and checked to come on the loop thread); waits are bounded only so a
/// broken connection cannot hang the run.
@Suite struct RawWebSocketConnectionTests {
    /// A text payload of `length` ASCII bytes, different for every length so echoes cannot be mixed up.
    static func payload(_ length: Int) -> [UInt8] {
        (0..<length).map { UInt8(0x21 + ($0 &* 7 &+ length) % 94) }
    }

    /// Each size class of the frame length field: empty, the largest 7-bit length, the smallest and largest 16-bit
    /// ones, and 64-bit lengths (70 000 bytes is also larger than the connection's 64 KiB read buffer).
    static let sizes = [0, 125, 126, 65_535, 65_536, 70_000]

    @Test func echoesTextOfEveryLengthClassAndClosesCleanly() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        let loop = group.next()
        try await withEchoServer { port in
            let target = try WebSocketTarget(url: "ws://127.0.0.1:\(port)/echo")
            let recorder = DelegateRecorder(loop: loop, index: 7)
            let driver = ConnectionDriver(loop: loop)
            await driver.connect(to: target, index: 7, delegate: recorder)

            let opened = await recorder.arrival { !$0.events.isEmpty }
            #expect(opened)
            #expect(recorder.events == [.open])
            #expect(await driver.isOpen)
            guard recorder.events == [.open] else { return await driver.abort() }

            for size in Self.sizes { await driver.sendText(Self.payload(size)) }
            let echoed = await recorder.arrival { $0.messageCount >= Self.sizes.count }
            #expect(echoed)
            let expected = Self.sizes.map { DelegateEvent.message(bytes: Self.payload($0), length: $0, text: true) }
            let messages = recorder.messages
            #expect(messages.count == expected.count)
            for (received, sent) in zip(messages, expected) {
                // Compare sizes first so a mismatch does not print 70 000 bytes.
                guard case .message(let bytes, let length, let text) = received,
                    case .message(let sentBytes, let sentLength, _) = sent
                else { continue }
                #expect(length == sentLength)
                #expect(bytes.count == sentBytes.count)
                #expect(text)
                #expect(bytes == sentBytes, "the echo of \(sentLength) bytes differs")
            }

            // Closing from this side ends with didFinish, without didClose (which is for the server's close).
            await driver.close()
            #expect(await !driver.isOpen)
            let finished = await recorder.arrival { $0.events.last == .finish }
            #expect(finished)
            let events = recorder.events
            #expect(events.first == .open)
            #expect(events.filter { $0 == .finish }.count == 1)
            #expect(!events.contains { if case .close = $0 { true } else { false } })
            #expect(!events.contains { if case .fail = $0 { true } else { false } })
            #expect(recorder.offLoopCalls == 0)
            #expect(recorder.wrongIndexCalls == 0)
        }
    }

    /// Sending before the handshake finished, or after closing, is ignored rather than written to the socket.
    @Test func sendingWhenNotOpenIsIgnored() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        let loop = group.next()
        try await withEchoServer { port in
            let target = try WebSocketTarget(url: "ws://127.0.0.1:\(port)/echo")
            let recorder = DelegateRecorder(loop: loop, index: 1)
            let driver = ConnectionDriver(loop: loop)
            // Sent while still connecting: this must not reach the server (it would precede the handshake).
            await driver.connect(to: target, index: 1, delegate: recorder, sending: Self.payload(10))
            #expect(await recorder.arrival { $0.events.contains(.open) })
            await driver.sendText(Self.payload(3))
            #expect(await recorder.arrival { $0.messageCount > 0 })
            await driver.close()
            await driver.sendText(Self.payload(4))
            #expect(await recorder.arrival { $0.events.last == .finish })
            #expect(recorder.messages == [.message(bytes: Self.payload(3), length: 3, text: true)])
            #expect(recorder.offLoopCalls == 0)
        }
    }

    /// Nothing listens on the port (it is bound but not listening): the connection fails, then finishes, and
    /// never opens.
    @Test func refusedConnectionFailsThenFinishes() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        let loop = group.next()
        let refusing = try #require(RefusingPort())
        let target = try WebSocketTarget(url: "ws://127.0.0.1:\(refusing.port)/echo")
        let recorder = DelegateRecorder(loop: loop, index: 2)
        let driver = ConnectionDriver(loop: loop)
        await driver.connect(to: target, index: 2, delegate: recorder)

        let finished = await recorder.arrival { $0.events.last == .finish }
        #expect(finished)
        let events = recorder.events
        #expect(events.count == 2)
        guard events.count == 2, case .fail(let reason) = events[0] else {
            Issue.record("expected fail, finish; got \(events)")
            return await driver.abort()
        }
        #expect(reason.hasPrefix("connect"), "\(reason)")
        #expect(events[1] == .finish)
        #expect(await !driver.isOpen)
        #expect(recorder.offLoopCalls == 0)
        #expect(recorder.wrongIndexCalls == 0)
        withExtendedLifetime(refusing) {}
    }

    /// A path the server does not serve as a WebSocket answers 404: the handshake fails with the status in the
    /// reason, then the connection finishes.
    @Test func notFoundPathFailsTheHandshake() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        let loop = group.next()
        try await withEchoServer { port in
            let target = try WebSocketTarget(url: "ws://127.0.0.1:\(port)/no-such-socket")
            let recorder = DelegateRecorder(loop: loop, index: 3)
            let driver = ConnectionDriver(loop: loop)
            await driver.connect(to: target, index: 3, delegate: recorder)

            let finished = await recorder.arrival { $0.events.last == .finish }
            #expect(finished)
            let events = recorder.events
            guard events.count == 2, case .fail(let reason) = events[0] else {
                Issue.record("expected fail, finish; got \(events)")
                return await driver.abort()
            }
            #expect(reason.contains("HTTP 404"), "\(reason)")
            #expect(events[1] == .finish)
            #expect(!events.contains(.open))
            #expect(recorder.offLoopCalls == 0)
        }
    }
}
