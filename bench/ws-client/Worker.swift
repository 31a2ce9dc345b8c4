import LoadKit
import NetCore

/// Everything on one client loop: its connections, counters and histograms. Used only on that loop's thread,
/// except for the immutable configuration.
final class Worker: @unchecked Sendable {
    // Safety: mutable state is touched only on `loop`'s thread; the main task reaches it with `onLoop`.
    let loop: EventLoop
    let options: Options
    let shared: Shared
    let context: RawWebSocketConnection.Context
    let payload: [UInt8]
    let frames: [[UInt8]]

    var connections: [Connection] = []
    var received = 0
    var sent = 0
    var mismatched = 0
    var unexpected = 0
    var lostCount = 0
    var lostReasons: [String: Int] = [:]
    var failReasons: [String: Int] = [:]

    // echo
    var echoing = false
    // rate
    var latency = Histogram()
    var service = Histogram()
    var lag = Histogram()
    var recording = false
    private var pacer: Pacer?

    init(
        loop: EventLoop, options: Options, target: WebSocketTarget, shared: Shared, payload: [UInt8], frames: [[UInt8]]
    ) {
        self.loop = loop
        self.options = options
        self.shared = shared
        self.payload = payload
        self.frames = frames
        context = RawWebSocketConnection.Context(loop: loop, target: target, keepsPayloads: false)
    }

    /// Starts connection `index` (loop thread).
    func connect(_ index: Int) {
        let connection: Connection =
            options.library ? LibraryConnection(index: index, worker: self) : RawConnection(index: index, worker: self)
        connection.start()
    }

    // Connection events (loop thread).

    func opened(_ connection: Connection) {
        connections.append(connection)
        shared.inFlight.subtract(1, ordering: .relaxed)
        shared.opened.add(1, ordering: .relaxed)
    }

    func failed(_ connection: Connection, _ reason: String) {
        failReasons[reason, default: 0] += 1
        shared.inFlight.subtract(1, ordering: .relaxed)
        shared.failed.add(1, ordering: .relaxed)
    }

    func lost(_ connection: Connection, _ reason: String) {
        lostCount += 1
        lostReasons[reason, default: 0] += 1
        shared.lost.add(1, ordering: .relaxed)
    }

    func finished(_ connection: Connection) {
        shared.finished.add(1, ordering: .relaxed)
    }

    func message(_ connection: Connection, length: Int, text: Bool) {
        if length != payload.count || !text { mismatched += 1 }
        if echoing {
            received += 1
            connection.send(1)
            sent += 1
        } else if recording {
            guard let times = connection.times.pop() else {
                unexpected += 1
                return
            }
            received += 1
            let now = EventLoop.now()
            latency.record(now &- times.intended)
            service.record(now &- times.actual)
        }
    }

    // Echo mode.

    func startEcho() {
        echoing = true
        for connection in connections where connection.isOpen {
            connection.send(options.pipeline)
            sent += options.pipeline
        }
    }

    // Rate mode: connection i sends at start + phase_i + k * period, phase_i = i/N of the period.

    func startRate(at start: UInt64, until end: UInt64) {
        let period = UInt64(1e9 / options.rate)
        let pacer = Pacer(loop: loop, period: period, tick: UInt64(options.tickMicroseconds * 1000)) {
            [unowned self] member, due in
            let connection = connections[member]
            guard connection.isOpen else { return }
            let actual = EventLoop.now()
            connection.times.push(intended: due, actual: actual)
            connection.send(1)
            sent += 1
            lag.record(actual - due)
        }
        let count = UInt64(options.connections)
        for (position, connection) in connections.enumerated() {
            pacer.add(position, phase: UInt64(connection.index) * period / count)
        }
        self.pacer = pacer
        recording = true
        pacer.start(at: start, until: end)
    }

    var outstanding: Int { connections.reduce(0) { $0 + $1.times.count } }

    /// Ends the rate run: every message still unanswered counts with its age now (a lower bound).
    func stopRate() -> Int {
        recording = false
        pacer?.stop()
        pacer = nil
        let now = EventLoop.now()
        var unanswered = 0
        for connection in connections {
            for intended in connection.times.drain() {
                latency.record(now &- intended)
                unanswered += 1
            }
        }
        return unanswered
    }

    func closeAll() {
        echoing = false
        recording = false
        for connection in connections { connection.close() }
    }
}
