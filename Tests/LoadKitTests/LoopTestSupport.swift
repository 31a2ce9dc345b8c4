import Glibc
import HTTPServer
import HTTPWire
import LoadKit
import NetworkTestSupport
import Synchronization

/// Starts a server with a WebSocket echo route on a free loopback port for one test, then shuts it down.
/// - Parameters:
///   - tls: The server's TLS context (``TLSFixtures/server(_:)``); nil serves in the clear.
///   - maxMessageBytes: The largest message (and frame) the echo route accepts.
///   - readingPause: How long the server leaves a new connection unread before echoing, so that a client's
///     writes fill the socket; nil reads at once.
///   - clock: What the server's loop runs by, and so the reading pause (a ``ManualClock`` ends it when the test
///     moves it).
///   - body: Receives the bound port.
func withEchoServer(
    tls: TLSContext? = nil, maxMessageBytes: Int = 1 << 20, readingPause: Duration? = nil,
    clock: LoopClock = .monotonic, _ body: (UInt16) async throws -> Void
) async throws {
    var router = Router()
    var configuration = WebSocketConfiguration()
    configuration.maxMessageBytes = maxMessageBytes
    configuration.maxFrameBytes = maxMessageBytes
    router.webSocket("/echo", configuration: configuration) { socket in
        socket.onMessage = { message in socket.send(message) }
        if let readingPause {
            socket.pauseReading()
            _ = socket.loop.schedule(after: readingPause) { socket.resumeReading() }
        }
    }
    let server = testConfiguration {
        $0.loops = 1
        $0.tls = tls
        $0.clock = clock
        $0.budget.pendingOutputBytes = max($0.budget.pendingOutputBytes, 4 * maxMessageBytes)
    }
    try await withTestServer(server, router: router) { address, _ in
        try await body(address.port)
    }
}

/// The test certificates of HTTPServerTests (blackbox/tls/make-certs.sh): `ecdsa` is self-signed for localhost,
/// 127.0.0.1 and ::1; `ecdsa2` is another self-signed certificate, untrusted by a client that trusts `ecdsa`.
enum TLSFixtures {
    /// Tests/HTTPServerTests/Fixtures/tls, found from this file's path.
    static let directory: String = {
        var components = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast(2)
        return components.joined(separator: "/") + "/HTTPServerTests/Fixtures/tls"
    }()

    /// The path of fixture `name` (`ecdsa.pem`).
    static func path(_ name: String) -> String { directory + "/" + name }

    /// A server context with the certificate and key `name`.
    static func server(_ name: String = "ecdsa") throws -> TLSContext {
        try TLSContext.server(certificateFile: path(name + ".pem"), keyFile: path(name + ".key"))
    }

    /// A client context that trusts exactly the certificate `name`.
    static func client(trusting name: String = "ecdsa") throws -> TLSContext {
        try TLSContext.client(certificateAuthorityFile: path(name + ".pem"))
    }
}

/// A loopback TCP port that is bound but not listening, so connecting to it is refused; released on deinit.
final class RefusingPort {
    /// The bound socket.
    let fd: Int32
    /// Its port.
    let port: UInt16

    /// Binds a fresh socket to 127.0.0.1 on a port the kernel chooses (nil when that fails).
    init?() {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { return nil }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = in_addr_t(0x7F00_0001).bigEndian
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, length) == 0 && getsockname(fd, $0, &length) == 0
            }
        }
        guard bound else {
            Glibc.close(fd)
            return nil
        }
        self.fd = fd
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { Glibc.close(fd) }
}

/// What a ``RawWebSocketDelegate`` was told, in order.
enum DelegateEvent: Equatable, Sendable {
    case open
    case fail(reason: String)
    case message(bytes: [UInt8], length: Int, text: Bool)
    case close(code: Int?, reason: String)
    case finish
}

/// What a ``DelegateRecorder`` has recorded.
struct DelegateRecord: Sendable {
    /// Every call so far, in order.
    var events: [DelegateEvent] = []
    /// How many of them are messages.
    var messageCount = 0
    /// Calls that did not come on the loop thread (should stay 0).
    var offLoopCalls = 0
    /// Calls for a connection with another index (should stay 0).
    var wrongIndexCalls = 0
}

/// A delegate that records every call (from the loop thread) for the test task to inspect and wait on.
final class DelegateRecorder: RawWebSocketDelegate, Sendable {
    private let loop: EventLoop
    private let recorded = Observed(DelegateRecord())
    private let index: Int

    /// A recorder for the connection numbered `index` on `loop`.
    init(loop: EventLoop, index: Int) {
        self.loop = loop
        self.index = index
    }

    /// Every call so far.
    var events: [DelegateEvent] { recorded.current.events }
    /// Calls that did not come on the loop thread (should stay 0).
    var offLoopCalls: Int { recorded.current.offLoopCalls }
    /// Calls for a connection with another index (should stay 0).
    var wrongIndexCalls: Int { recorded.current.wrongIndexCalls }
    /// The messages received so far.
    var messages: [DelegateEvent] {
        events.filter {
            if case .message = $0 { return true }
            return false
        }
    }

    /// Waits until `condition` holds of what was recorded, woken by each call; the timeout only keeps a broken
    /// connection from hanging the run.
    /// - Returns: Whether it held in time.
    func arrival(
        within timeout: Duration = .seconds(10), until condition: @escaping @Sendable (DelegateRecord) -> Bool
    ) async -> Bool {
        await recorded.arrival(within: timeout, until: condition)
    }

    private func record(_ event: DelegateEvent, from connection: RawWebSocketConnection) {
        let onLoop = loop.inEventLoop
        let rightIndex = connection.index == index
        recorded.record {
            $0.events.append(event)
            if case .message = event { $0.messageCount += 1 }
            if !onLoop { $0.offLoopCalls += 1 }
            if !rightIndex { $0.wrongIndexCalls += 1 }
        }
    }

    func webSocketDidOpen(_ connection: RawWebSocketConnection) { record(.open, from: connection) }

    func webSocketDidFail(_ connection: RawWebSocketConnection, reason: String) {
        record(.fail(reason: reason), from: connection)
    }

    func webSocket(
        _ connection: RawWebSocketConnection, didReceive payload: UnsafeRawBufferPointer, length: Int, text: Bool
    ) {
        record(.message(bytes: Array(payload), length: length, text: text), from: connection)
    }

    func webSocketDidClose(_ connection: RawWebSocketConnection, code: Int?, reason: String) {
        record(.close(code: code, reason: reason), from: connection)
    }

    func webSocketDidFinish(_ connection: RawWebSocketConnection) { record(.finish, from: connection) }
}

/// Owns one ``RawWebSocketConnection``; an actor whose executor is the connection's loop, so every method runs on
/// the loop thread as the connection requires.
actor ConnectionDriver {
    private let loop: EventLoop
    private var connection: RawWebSocketConnection?

    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    init(loop: EventLoop) { self.loop = loop }

    /// Creates the connection (payloads kept) and starts connecting.
    /// - Parameter early: Text to send right after starting, in the same turn of the loop, while the connection
    ///   is certainly still connecting.
    func connect(to target: WebSocketTarget, index: Int, delegate: DelegateRecorder, sending early: [UInt8]? = nil) {
        let context = RawWebSocketConnection.Context(loop: loop, target: target, keepsPayloads: true)
        let connection = RawWebSocketConnection(index: index, context: context, delegate: delegate)
        self.connection = connection
        connection.start()
        early?.withUnsafeBytes { connection.sendText($0) }
    }

    /// Whether the connection is open.
    var isOpen: Bool { connection?.isOpen ?? false }

    /// Sends one text message, or `count` copies of it in one turn of the loop (no event handled in between).
    func sendText(_ bytes: [UInt8], count: Int = 1) {
        bytes.withUnsafeBytes { bytes in
            for _ in 0..<count { connection?.sendText(bytes) }
        }
    }

    /// Starts the closing handshake.
    func close() { connection?.close() }

    /// Releases the socket at once (cleanup after a failed expectation).
    func abort() { connection?.abort() }
}

/// One firing of a ``Pacer``.
struct Firing: Equatable, Sendable, CustomStringConvertible {
    var member: Int
    var due: UInt64
    var description: String { "member \(member) due \(due)" }
}

/// The firings a ``Pacer`` made, filled in on the loop thread and read from the test task.
final class FiringLog: Sendable {
    private let state = Mutex<(firings: [Firing], offLoop: Int)>(([], 0))

    /// Records one firing.
    func record(_ firing: Firing, onLoop: Bool) {
        state.withLock {
            $0.firings.append(firing)
            if !onLoop { $0.offLoop += 1 }
        }
    }

    /// Every firing so far, in order.
    var firings: [Firing] { state.withLock { $0.firings } }
    /// Firings that did not happen on the loop thread (should stay 0).
    var offLoop: Int { state.withLock { $0.offLoop } }
}

/// Owns one ``Pacer`` and records its firings; an actor whose executor is the pacer's loop, so every method runs
/// on the loop thread as the pacer requires.
actor PacerDriver {
    private let loop: EventLoop
    private let pacer: Pacer
    /// What the pacer fired (readable from any thread).
    nonisolated let log: FiringLog

    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }

    init(loop: EventLoop, period: UInt64, tick: UInt64 = 0) {
        let log = FiringLog()
        self.log = log
        self.loop = loop
        pacer = Pacer(loop: loop, period: period, tick: tick) { member, due in
            log.record(Firing(member: member, due: due), onLoop: loop.inEventLoop)
        }
    }

    /// Adds a member.
    /// - Returns: The last due time fired before it was added (nil when nothing had fired).
    @discardableResult
    func add(_ member: Int, phase: UInt64) -> UInt64? {
        let lastDue = log.firings.last?.due
        pacer.add(member, phase: phase)
        return lastDue
    }

    /// Starts the pacer at the loop's current time.
    /// - Parameter duration: Nanoseconds until the end.
    /// - Returns: The start instant.
    func startNow(for duration: UInt64) -> UInt64 {
        let start = loop.now()
        pacer.start(at: start, until: start + duration)
        return start
    }

    /// Stops the pacer.
    func stop() { pacer.stop() }
}
