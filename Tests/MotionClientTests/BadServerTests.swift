import Foundation
import Glibc
import HTTPServer
import HTTPWire
import MotionClient
import MotionClientLinux
import MotionCore
import MotionWire
import NetworkTestSupport
import Testing

/// Servers that answer wrongly: every one ends in a typed ``RemoteSessionError`` within the configured timeouts,
/// never a hang.
@Suite("remote session against bad servers", .timeLimit(.minutes(1)))
struct BadServerTests {
    /// Short timers, so a test of a silent server ends in seconds; long enough for a loaded machine's answers.
    static func quick(answerTimeout: Duration = .seconds(8)) -> RemoteSessionConfiguration {
        var configuration = RemoteSessionConfiguration()
        configuration.connectTimeout = .seconds(2)
        configuration.answerTimeout = answerTimeout
        configuration.stopTimeout = .seconds(10)
        return configuration
    }

    /// A raw TCP server that reads what comes, writes `answer` once something arrived, then closes (or, with
    /// `holds`, keeps the connection open and silent).
    final class RawServer: @unchecked Sendable {
        // Safety: immutable after init.
        let port: UInt16
        let fd: Int32

        init(answer: [UInt8], holds: Bool = false) throws {
            fd = try Socket.listen(on: SocketAddress(host: "127.0.0.1", port: 0), backlog: 8, reusePort: false)
            _ = fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK)
            port = try #require(Socket.localAddress(fd)).port
            let listener = fd
            Thread {
                while true {
                    let client = accept(listener, nil, nil)
                    guard client >= 0 else {
                        // Closed here, by the only thread that uses it: a close in deinit could leave this loop
                        // calling accept on a number another test's socket has taken since.
                        Glibc.close(listener)
                        return
                    }
                    var buffer = [UInt8](repeating: 0, count: 4096)
                    _ = buffer.withUnsafeMutableBytes { recv(client, $0.baseAddress, $0.count, 0) }
                    _ = answer.withUnsafeBytes { send(client, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                    if holds { continue }
                    Glibc.close(client)
                }
            }.start()
        }

        var url: String { "ws://127.0.0.1:\(port)" }

        /// Ends the accept loop, which then closes the socket.
        deinit { shutdown(fd, Int32(SHUT_RDWR)) }
    }

    /// What `connect()` and `stop()` of a session against `url` throw.
    static func failure(
        at url: String, configuration: RemoteSessionConfiguration = quick()
    ) async throws -> RemoteSessionError? {
        let session = try RemoteMotionSession(
            server: url, transport: EventLoopTransport(), exercise: .elbowFlexion, side: .right,
            configuration: configuration)
        try session.process(Pose(timestamp: 1))
        var first: RemoteSessionError?
        do {
            try await session.connect()
        } catch {
            first = error
        }
        do {
            _ = try await session.stop()
            Issue.record("stop() answered a summary")
        } catch {
            #expect(error == first)
        }
        // Once failed, a session takes no more poses, as a stopped MotionSession.
        #expect(throws: PoseError.notRunning) { try session.process(Pose(timestamp: 2)) }
        return first
    }

    @Test func refusesAServerThatAnswersGarbage() async throws {
        let server = try RawServer(answer: Array("SSH-2.0-OpenSSH_9.2\r\n\r\n".utf8))
        let error = try await Self.failure(at: server.url)
        guard case .connectionFailed(.handshakeRefused)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
    }

    @Test func refusesAnHTTPServerThatDoesNotUpgrade() async throws {
        let server = try RawServer(
            answer: Array("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
        let error = try await Self.failure(at: server.url)
        guard case .connectionFailed(.handshakeRefused(status: 404, _))? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
    }

    @Test func reportsAConnectionClosedBeforeAnyAnswer() async throws {
        let server = try RawServer(answer: [])
        let error = try await Self.failure(at: server.url)
        #expect(error == .connectionFailed(.closed))
    }

    @Test func timesOutOnASilentServer() async throws {
        let server = try RawServer(answer: [], holds: true)
        let error = try await Self.failure(at: server.url)
        #expect(error == .connectionFailed(.timedOut))
    }

    @Test func reportsNothingListening() async throws {
        // A port that was free a moment ago; its socket is closed once, here (a second close could hit a socket
        // another test opened since under the same number).
        let fd = try Socket.listen(on: SocketAddress(host: "127.0.0.1", port: 0), backlog: 1, reusePort: false)
        let port = try #require(Socket.localAddress(fd)).port
        Glibc.close(fd)
        let error = try await Self.failure(at: "ws://127.0.0.1:\(port)")
        guard case .connectionFailed(.system)? = error else {
            Issue.record("\(String(describing: error))")
            return
        }
    }

    /// A WebSocket server on `/v1/stream` that answers the first message with `answers`, then does `then`.
    static func withWebSocketServer(
        answers: [WebSocketMessage], closeWith code: WebSocketCloseCode? = nil,
        _ body: (String) async throws -> Void
    ) async throws {
        var router = Router()
        router.webSocket("/v1/stream") { socket in
            socket.onMessage = { _ in
                for answer in answers { socket.send(answer) }
                if let code { socket.close(code: code, reason: "") }
            }
        }
        try await withTestServer(router: router) { address, _ in try await body("ws://127.0.0.1:\(address.port)") }
    }

    @Test func refusesAnAnswerThatIsNotJSON() async throws {
        try await Self.withWebSocketServer(answers: [.text("hello, client")]) { url in
            let error = try await Self.failure(at: url)
            #expect(error == .protocolViolation("\(ServerMessageError.notJSON)"))
        }
    }

    @Test func refusesAnotherProtocolVersion() async throws {
        try await Self.withWebSocketServer(answers: [.text(#"{"type":"hello","version":9}"#)]) { url in
            let error = try await Self.failure(at: url)
            #expect(error == .protocolViolation("hello before started"))
        }
    }

    @Test func refusesABinaryAnswer() async throws {
        try await Self.withWebSocketServer(answers: [.binary([1, 2, 3])]) { url in
            let error = try await Self.failure(at: url)
            #expect(error == .protocolViolation("a binary message from the server"))
        }
    }

    @Test func reportsAnEarlyClose() async throws {
        try await Self.withWebSocketServer(answers: [], closeWith: .internalError) { url in
            let error = try await Self.failure(at: url)
            #expect(error == .closed(code: 1011, reason: ""))
        }
    }

    /// A `/v1/stream` server that starts any session, answers `stop` with a summary and closes with `code` after
    /// `pause`: the close, not the summary, says whether the session was stored (docs/protocol.md §3).
    static func withStoringServer(
        closeWith code: WebSocketCloseCode, after pause: Duration, closed: Locked<Bool>,
        _ body: (String) async throws -> Void
    ) async throws {
        var started: [UInt8] = []
        WireEncoder.encodeStarted(session: "s-1", exercise: .elbowFlexion, into: &started)
        var summary: [UInt8] = []
        WireEncoder.encodeSummary(
            SessionSummary(exercise: "elbowFlexion", side: .right),
            metadata: SummaryMetadata(id: "s-1", status: .finished, startedAt: 0, endedAt: 1), includeType: true,
            into: &summary)
        let (startedText, summaryText) = (
            String(decoding: started, as: UTF8.self), String(decoding: summary, as: UTF8.self)
        )
        var router = Router()
        router.webSocket("/v1/stream") { socket in
            socket.onMessage = { view in
                let text = String(decoding: view.bytes, as: UTF8.self)
                if text.contains(#""type":"start""#) { return socket.send(.text(startedText)) }
                guard text.contains(#""type":"stop""#) else { return }
                socket.send(.text(summaryText))
                let loop = socket.loop
                Task {
                    try? await Task.sleep(for: pause)
                    loop.execute {
                        closed.withLock { $0 = true }
                        socket.close(code: code, reason: "")
                    }
                }
            }
        }
        try await withTestServer(router: router) { address, _ in try await body("ws://127.0.0.1:\(address.port)") }
    }

    @Test func stopReturnsTheSummaryOnlyOnceTheCloseSaysItIsStored() async throws {
        let closed = Locked(false)
        try await Self.withStoringServer(closeWith: .normal, after: .milliseconds(300), closed: closed) { url in
            let session = try RemoteMotionSession(
                server: url, transport: EventLoopTransport(), exercise: .elbowFlexion, side: .right,
                configuration: Self.quick())
            try await session.connect()
            let summary = try await session.stop()
            #expect(closed.withLock { $0 }, "stop() returned before the close that says the summary is stored")
            #expect(summary.exercise == "elbowFlexion")
        }
    }

    @Test func stopThrowsWhenTheSummaryIsFollowedByAnotherClose() async throws {
        try await Self.withStoringServer(closeWith: .internalError, after: .zero, closed: Locked(false)) { url in
            let session = try RemoteMotionSession(
                server: url, transport: EventLoopTransport(), exercise: .elbowFlexion, side: .right,
                configuration: Self.quick())
            try await session.connect()
            var failure: RemoteSessionError?
            do throws(RemoteSessionError) {
                _ = try await session.stop()
            } catch {
                failure = error
            }
            #expect(failure == .closed(code: 1011, reason: ""), "a summary not stored is not returned as stored")
        }
    }

    @Test func timesOutWhenStartIsNeverAnswered() async throws {
        try await Self.withWebSocketServer(answers: []) { url in
            let error = try await Self.failure(at: url, configuration: Self.quick(answerTimeout: .seconds(1)))
            #expect(error == .timedOut)
        }
    }

    @Test func reportsARefusedStart() async throws {
        try await withMotionServer { url in
            let session = try RemoteMotionSession(
                server: url, transport: EventLoopTransport(), exercise: .elbowFlexion, side: nil,
                configuration: Self.quick())
            var failure: RemoteSessionError?
            do throws(RemoteSessionError) {
                try await session.connect()
            } catch {
                failure = error
            }
            guard case .refused(code: "missingSide", _)? = failure else {
                Issue.record("\(String(describing: failure))")
                return
            }
        }
    }

    @Test func refusesAURLThatIsNotAWebSocket() {
        #expect(throws: RemoteSessionError.invalidServer("http://127.0.0.1:8080")) {
            _ = try RemoteMotionSession(
                server: "http://127.0.0.1:8080", transport: EventLoopTransport(), exercise: .elbowFlexion, side: .right)
        }
    }
}
