import Dispatch
import MotionClient
import MotionCore
import MotionWire
import Synchronization
import Testing

/// A ``RemoteMotionSession`` over a transport of the test's own, as an app's would be: no socket, no event loop.
@Suite("remote session over a given transport", .timeLimit(.minutes(1)))
struct TransportTests {
    /// A transport whose one connection plays a server in memory: `started` for `start`, then the summary and close
    /// 1000 for `stop`; it keeps what it was asked and sent.
    final class ScriptedTransport: MotionTransport {
        let requests = Mutex<[TransportRequest]>([])
        let sent = Mutex<[TransportMessage]>([])
        let failure: TransportError?

        init(failing failure: TransportError? = nil) { self.failure = failure }

        func connect(_ request: TransportRequest) async throws(TransportError) -> any TransportConnection {
            requests.withLock { $0.append(request) }
            if let failure { throw failure }
            return Connection(transport: self)
        }

        final class Connection: TransportConnection {
            private struct Callbacks {
                var message: (@Sendable (TransportMessage) -> Void)?
                var close: (@Sendable (Int?, String) -> Void)?
            }

            private let transport: ScriptedTransport
            /// The callbacks run here, one at a time, never inside the session's calls.
            private let queue = DispatchQueue(label: "scripted-connection")
            private let callbacks = Mutex(Callbacks())

            init(transport: ScriptedTransport) { self.transport = transport }

            func start(
                onMessage: @escaping @Sendable (TransportMessage) -> Void,
                onClose: @escaping @Sendable (Int?, String) -> Void
            ) async {
                callbacks.withLock { $0 = Callbacks(message: onMessage, close: onClose) }
            }

            func send(_ message: TransportMessage) {
                transport.sent.withLock { $0.append(message) }
                guard case .text(let text) = message else { return }
                if text.contains(#""type":"start""#) {
                    var started: [UInt8] = []
                    WireEncoder.encodeStarted(session: "s-1", exercise: .elbowFlexion, into: &started)
                    deliver(.text(String(decoding: started, as: UTF8.self)))
                } else if text.contains(#""type":"stop""#) {
                    var summary: [UInt8] = []
                    WireEncoder.encodeSummary(
                        SessionSummary(exercise: "elbowFlexion", side: .right),
                        metadata: SummaryMetadata(id: "s-1", status: .finished, startedAt: 0, endedAt: 1),
                        includeType: true, into: &summary)
                    deliver(.text(String(decoding: summary, as: UTF8.self)))
                    queue.async { self.closed(code: 1000) }
                }
            }

            func close(code: Int, reason: String) {
                queue.async { self.closed(code: nil) }
            }

            private func deliver(_ message: TransportMessage) {
                queue.async { self.callbacks.withLock { $0.message }?(message) }
            }

            private func closed(code: Int?) {
                let close = callbacks.withLock { callbacks in
                    defer { callbacks = Callbacks() }
                    return callbacks.close
                }
                close?(code, "")
            }
        }
    }

    @Test func runsASessionOverTheTransportItIsGiven() async throws {
        let transport = ScriptedTransport()
        var configuration = RemoteSessionConfiguration()
        configuration.connectTimeout = .seconds(3)
        let session = try RemoteMotionSession(
            server: "wss://[::1]:8443/v1/stream?x=1", transport: transport, exercise: .elbowFlexion, side: .right,
            token: "secret", configuration: configuration)
        try session.process(Pose(timestamp: 1))
        try await session.connect()
        try session.process(Pose(timestamp: 2))
        let summary = try await session.stop()
        #expect(summary.exercise == "elbowFlexion")
        let request = try #require(transport.requests.withLock { $0 }.first)
        #expect(request.url == "wss://[::1]:8443/v1/stream?x=1")
        #expect(request.headers.map { "\($0.name): \($0.value)" } == ["Authorization: Bearer secret"])
        #expect(request.timeout == .seconds(3))
        // `start`, the two poses as JSON (a server without resume tokens takes no binary frames), `stop`.
        let types = transport.sent.withLock { $0 }.map { message -> String in
            guard case .text(let text) = message else { return "binary" }
            return text.contains(#""type":"start""#) ? "start" : text.contains(#""type":"stop""#) ? "stop" : "pose"
        }
        #expect(types == ["start", "pose", "pose", "stop"])
    }

    @Test func reportsTheTransportsErrorAsItIs() async throws {
        let session = try RemoteMotionSession(
            server: "ws://127.0.0.1:1", transport: ScriptedTransport(failing: .tlsFailed("untrusted")),
            exercise: .elbowFlexion, side: .right)
        await #expect(throws: RemoteSessionError.connectionFailed(.tlsFailed("untrusted"))) {
            try await session.connect()
        }
    }
}
