import Basics
import HTTPWire
import Synchronization

/// What every connection of one server shares: configuration, the pipeline, counters, and per-loop state.
final class ServerContext: @unchecked Sendable {
    // Safety: `perLoop[i]` is touched only on loop i's thread; everything else is immutable or atomic.
    let configuration: HTTPServerConfiguration
    /// Answers every request; never throws (errors are rendered inside it).
    let pipeline: HTTPPipeline
    let metrics: HTTPMetrics
    /// The bounds on open connections, in all and per client address.
    let admission: ConnectionAdmission
    let logger: Logger
    /// The configuration's connection timeouts in nanoseconds, converted once (``HTTPConnection`` arms one per phase,
    /// several times per request).
    let timeouts: Timeouts
    private let draining = Atomic<Bool>(false)
    private let perLoop: [LoopState]

    final class LoopState {
        var connections: [ObjectIdentifier: any ServerConnection] = [:]
        var dateSecond = -1
        var date = ""
    }

    init(
        configuration: HTTPServerConfiguration, pipeline: HTTPPipeline,
        metrics: HTTPMetrics, admission: ConnectionAdmission, logger: Logger, loops: Int
    ) {
        self.configuration = configuration
        self.admission = admission
        self.pipeline = pipeline
        timeouts = Timeouts(configuration)
        self.metrics = metrics
        self.logger = logger
        self.perLoop = (0..<loops).map { _ in LoopState() }
    }

    var isDraining: Bool { draining.load(ordering: .relaxed) }

    /// A connection admitted with `slot` has closed (after its handshake, its requests or its upgrade): it no
    /// longer counts, and a listener paused for want of descriptors may accept again.
    func closed(_ slot: ConnectionAdmission.Slot) {
        metrics.closedConnection()
        admission.release(slot)
    }

    func startDraining() { draining.store(true, ordering: .relaxed) }

    func registry(for loop: EventLoop) -> Registry { Registry(state: perLoop[loop.index]) }

    /// The `Date` header value, formatted once per second per loop (RFC 9110 §6.6.1).
    func date(for loop: EventLoop) -> String {
        let state = perLoop[loop.index]
        let now = WallClock.seconds()
        if now != state.dateSecond {
            state.dateSecond = now
            state.date = HTTPDate.imfFixdate(unixTime: now)
        }
        return state.date
    }

    /// ``HTTPServerConfiguration``'s connection timeouts, in nanoseconds.
    struct Timeouts {
        let idle: UInt64
        let head: UInt64
        let body: UInt64
        let lingering: UInt64

        init(_ configuration: HTTPServerConfiguration) {
            idle = EventLoop.nanoseconds(configuration.idleTimeout)
            head = EventLoop.nanoseconds(configuration.headTimeout)
            body = EventLoop.nanoseconds(configuration.bodyTimeout)
            lingering = EventLoop.nanoseconds(configuration.lingeringTimeout)
        }
    }

    /// The open HTTP connections of one loop (loop thread only).
    struct Registry: @unchecked Sendable {
        // Safety: used only on the thread of the loop it belongs to.
        let state: LoopState
        func insert(_ connection: any ServerConnection) { state.connections[ObjectIdentifier(connection)] = connection }
        func remove(_ connection: any ServerConnection) { state.connections[ObjectIdentifier(connection)] = nil }
        var all: [any ServerConnection] { Array(state.connections.values) }
    }
}

/// A connection the server closes when it shuts down (HTTP, or a TLS handshake before it). Loop thread only.
protocol ServerConnection: AnyObject {
    /// Closes at once if nothing is in flight; otherwise after the response in flight.
    func drain()
    /// Closes at once.
    func closeNow()
}
