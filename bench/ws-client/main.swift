import Glibc
import HTTPServer
import HTTPWire
import LoadKit
import Synchronization

// ws-bench-client: a WebSocket load client on HTTPServer's event loops, for bench/websocket.sh.
//
//   ws-bench-client echo --url ws[s]://HOST:PORT/v1/echo [--connections 64] [--seconds 10] [--size 1024]
//                        [--pipeline 1] [--warmup-seconds 1]
//   ws-bench-client rate --url ws[s]://HOST:PORT/v1/echo [--connections 1000] [--rate 30] [--seconds 30]
//                        [--size 1024] [--ramp-seconds 5] [--drain-seconds 10] [--tick-us 100] [--poll]
//   ws-bench-client idle --url ws[s]://HOST:PORT/v1/echo [--connections 10000] [--hold-seconds 10]
// Common: [--loops 1] [--handshakes 256] [--server-pid PID] [--engine raw|library] [--compression]
// TLS (wss://): [--ca FILE] (verify against these PEM CA certificates, or the server's self-signed certificate;
//   default: the system's) or [--insecure] (no verification); [--server-name NAME] (the name the certificate must
//   carry, also sent as SNI; default: the URL's host; raw engine only).
//
// echo: every connection keeps `--pipeline` messages in flight (it sends the next one when an echo arrives) and
//   the echoes received after the warm-up are counted for `--seconds`.
// rate: connection i sends at `--rate` messages/s on its own fixed schedule, phase i/N of the period, so the N
//   connections together send evenly spaced messages. A message's latency is its echo's arrival minus its
//   *intended* send time (no coordinated omission: a late send, a stalled server or a backlog all count). Echoes
//   are matched to sends in order (TCP and an echo server keep it). After `--seconds` the client stops sending and
//   waits up to `--drain-seconds` for the rest; a message still unanswered then is counted with its age at that
//   moment, a lower bound, and reported as `unanswered`. Sends are driven by a CLOCK_MONOTONIC timerfd; to save
//   wake-ups the client sends whatever is due at most every `--tick-us` microseconds (100; 0 = each message on
//   its own wake-up), and that wait is part of the measured latency. `send_lag` reports how late sends left.
//   `--poll`: the loops poll every tick instead of sleeping in epoll (as `motion-load --poll`), so echoes are read
//   up to a tick late and never have to wake the client.
// idle: opens the connections, prints `ready <open>` on stdout, holds them `--hold-seconds`, then closes them.
//
// Connections are opened ramped (echo and idle: as fast as `--handshakes` in-flight handshakes allow; rate: spread
// over `--ramp-seconds`, also capped) so the server does not see a SYN storm. Every mode prints one JSON object
// on stdout at the end; progress and errors go to stderr. With `--server-pid` the client also reads the server's
// CPU time (utime + stime from /proc/PID/stat) at the start and end of the measured window.
//
// Engines. `raw` (default) speaks RFC 6455 itself on the event loops: it pre-encodes 16 masked copies of the
// message (each with its own masking key) and only parses the headers of incoming frames (the payload is checked
// for its length, not copied), so it costs far less per message than the server under test. `library` uses
// `WebSocketClient` and `WebSocket` from HTTPServer (a full client: masking per frame, UTF-8 validation, a
// `String` per message). permessage-deflate is not offered unless `--compression` is given, which selects the
// library engine (the raw engine cannot compress).

// MARK: - Options

/// Command-line options.
struct Options {
    var mode = ""
    var target: WebSocketTarget?
    /// The host the library engine connects to: `localhost` as written (a certificate may name only it), else
    /// the numeric address.
    var host: String { target.map { $0.serverName == "localhost" ? "localhost" : $0.host } ?? "127.0.0.1" }
    var port: UInt16 { target?.port ?? 0 }
    var path: String { target?.path ?? "/" }
    var connections = 0
    var seconds = 0.0
    var warmupSeconds = 1.0
    var size = 1024
    var loops = 1
    var pipeline = 1
    var rate = 30.0
    var rampSeconds = 5.0
    var holdSeconds = 10.0
    var drainSeconds = 10.0
    var tickMicroseconds = 100.0
    var poll = false
    var handshakes = 256
    var compression = false
    var library = false
    var serverPID: Int32?

    static func usage(_ problem: String) -> Never {
        Report.error("ws-bench-client: \(problem)")
        Report.error(
            "usage: ws-bench-client echo|rate|idle --url ws[s]://HOST:PORT/PATH [--ca FILE | --insecure] [options] "
                + "(see main.swift)")
        exit(2)
    }

    static func parse(_ arguments: [String]) -> Options {
        var options = Options()
        guard let mode = arguments.first, ["echo", "rate", "idle"].contains(mode) else { usage("no mode") }
        options.mode = mode
        var url: String?
        var certificateAuthorityFile: String?
        var insecure = false
        var serverName: String?
        var iterator = arguments.dropFirst().makeIterator()
        while let flag = iterator.next() {
            if flag == "--compression" {
                options.compression = true
                options.library = true
                continue
            }
            if flag == "--poll" {
                options.poll = true
                continue
            }
            if flag == "--insecure" {
                insecure = true
                continue
            }
            guard let value = iterator.next() else { usage("\(flag) needs a value") }
            func int() -> Int {
                guard let number = Int(value), number >= 0 else { usage("\(flag): not a count: \(value)") }
                return number
            }
            func double() -> Double {
                guard let number = Double(value), number >= 0 else { usage("\(flag): not a number: \(value)") }
                return number
            }
            switch flag {
            case "--url": url = value
            case "--ca": certificateAuthorityFile = value
            case "--server-name": serverName = value
            case "--connections": options.connections = int()
            case "--seconds": options.seconds = double()
            case "--warmup-seconds": options.warmupSeconds = double()
            case "--size": options.size = int()
            case "--loops": options.loops = max(1, int())
            case "--pipeline": options.pipeline = max(1, int())
            case "--rate": options.rate = double()
            case "--ramp-seconds": options.rampSeconds = double()
            case "--hold-seconds": options.holdSeconds = double()
            case "--drain-seconds": options.drainSeconds = double()
            case "--tick-us": options.tickMicroseconds = double()
            case "--handshakes": options.handshakes = max(1, int())
            case "--server-pid": options.serverPID = Int32(int())
            case "--engine":
                guard value == "raw" || value == "library" else { usage("--engine raw|library") }
                options.library = value == "library" || options.compression
            default: usage("unknown flag \(flag)")
            }
        }
        guard let url else { usage("--url is required") }
        var target: WebSocketTarget
        do {
            target = try WebSocketTarget(url: url)
        } catch {
            usage(error.description)
        }
        do {
            try target.configureTLS(
                certificateAuthorityFile: certificateAuthorityFile, insecure: insecure, serverName: serverName)
        } catch {
            usage(error.description)
        }
        options.target = target
        if serverName != nil && options.library { usage("--server-name: raw engine only") }
        if options.connections == 0 {
            options.connections = ["echo": 64, "rate": 1000, "idle": 10_000][mode] ?? 64
        }
        if options.seconds == 0 { options.seconds = mode == "rate" ? 30 : 10 }
        guard mode != "rate" || options.rate > 0 else { usage("--rate must be positive") }
        return options
    }
}

// MARK: - Message

/// The benchmark message: pose-like JSON text (a skeleton's joints with position, orientation and velocity),
/// padded to exactly `size` bytes.
enum Payload {
    static func json(size: Int) -> [UInt8] {
        let closing = "],\"pad\":\"\"}"
        var text = "{\"type\":\"pose\",\"seq\":1,\"t\":1718000000.123456,\"frame\":\"world\",\"joints\":["
        guard size >= text.utf8.count + closing.utf8.count else {
            let padding = max(0, size - 8)
            return Array(("{\"p\":\"" + String(repeating: "x", count: padding) + "\"}").utf8)
        }
        var seed: UInt64 = 0x9E37_79B9_7F4A_7C15
        func number() -> String {
            seed = seed &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            let value = Int((seed >> 33) % 20_001) - 10_000  // -1.0000 ... 1.0000
            let digits = String(abs(value) % 10_000)
            return (value < 0 ? "-" : "") + "\(abs(value) / 10_000)." + String(repeating: "0", count: 4 - digits.count)
                + digits
        }
        var joint = 0
        while true {
            let entry =
                (joint == 0 ? "" : ",") + "{\"name\":\"joint_\(joint)\",\"p\":[\(number()),\(number()),\(number())],"
                + "\"q\":[\(number()),\(number()),\(number()),\(number())],\"v\":[\(number()),\(number()),\(number())]}"
            if text.utf8.count + entry.utf8.count + closing.utf8.count > size { break }
            text += entry
            joint += 1
        }
        text += "],\"pad\":\"" + String(repeating: " ", count: size - text.utf8.count - closing.utf8.count) + "\"}"
        return Array(text.utf8)
    }

    /// `count` copies of the message as masked client text frames, each with its own random masking key.
    static func maskedFrames(_ payload: [UInt8], count: Int) -> [[UInt8]] {
        (0..<count).map { _ in frame(.text, payload) }
    }

    static func frame(_ opcode: WebSocketOpcode, _ payload: [UInt8]) -> [UInt8] {
        let key = UInt32.random(in: .min ... .max)
        let mask = (UInt8(key >> 24), UInt8((key >> 16) & 0xFF), UInt8((key >> 8) & 0xFF), UInt8(key & 0xFF))
        return WebSocketFrameEncoder.encode(WebSocketFrame(opcode: opcode, payload: payload), mask: mask)
    }
}

// MARK: - Connections

/// What all loops share: connection counts, read by the main task while the loops run.
final class Shared: Sendable {
    let inFlight = Atomic<Int>(0)
    let opened = Atomic<Int>(0)
    let failed = Atomic<Int>(0)
    let lost = Atomic<Int>(0)
    let finished = Atomic<Int>(0)
}

/// One benchmark connection. Used only on its worker's loop thread.
class Connection {
    let index: Int
    unowned let worker: Worker
    var times = PendingSends()
    var isOpen = false
    var sentFrames = 0

    init(index: Int, worker: Worker) {
        self.index = index
        self.worker = worker
    }

    func start() {}
    func send(_ count: Int) {}
    func close() {}
}

/// The raw engine: `RawWebSocketConnection` from LoadKit, sending pre-masked frames and skipping payloads.
final class RawConnection: Connection, RawWebSocketDelegate {
    private var socket: RawWebSocketConnection?

    override func start() {
        let socket = RawWebSocketConnection(index: index, context: worker.context, delegate: self)
        self.socket = socket
        socket.start()
    }

    override func send(_ count: Int) {
        guard isOpen, let socket else { return }
        let frames = worker.frames
        for _ in 0..<count {
            socket.send(frame: frames[sentFrames & (frames.count - 1)])
            sentFrames &+= 1
        }
    }

    override func close() {
        guard isOpen else { return }
        isOpen = false
        socket?.close()
    }

    func webSocketDidOpen(_ connection: RawWebSocketConnection) {
        isOpen = true
        worker.opened(self)
    }

    func webSocketDidFail(_ connection: RawWebSocketConnection, reason: String) { worker.failed(self, reason) }

    func webSocket(
        _ connection: RawWebSocketConnection, didReceive payload: UnsafeRawBufferPointer, length: Int, text: Bool
    ) {
        worker.message(self, length: length, text: text)
    }

    func webSocketDidClose(_ connection: RawWebSocketConnection, code: Int?, reason: String) {
        isOpen = false
        worker.lost(self, code.map { "server sent close \($0)" } ?? reason)
    }

    func webSocketDidFinish(_ connection: RawWebSocketConnection) {
        isOpen = false
        socket = nil
        worker.finished(self)
    }
}

/// The library engine: `WebSocketClient` and `WebSocket` from HTTPServer.
final class LibraryConnection: Connection, @unchecked Sendable {
    // Safety: like every Connection, used only on its worker's loop thread; the connect task only hops there.
    private var socket: WebSocket?

    override func start() {
        let worker = worker
        var options = WebSocketClient.Options()
        options.tls = worker.options.target?.tls
        options.compression = worker.options.compression
        if !worker.options.compression { options.configuration.compression = nil }
        Task {
            do {
                let socket = try await WebSocketClient.connect(
                    host: worker.options.host, port: worker.options.port, path: worker.options.path,
                    options: options, on: worker.loop)
                worker.loop.execute { self.adopt(socket) }
            } catch {
                worker.loop.execute { worker.failed(self, "\(error)") }
            }
        }
    }

    private func adopt(_ socket: WebSocket) {
        self.socket = socket
        isOpen = true
        socket.onMessage = { [weak self] message in
            guard let self else { return }
            worker.message(self, length: message.bytes.count, text: message.isText)
        }
        socket.onClose = { [weak self] code, reason in
            guard let self else { return }
            if isOpen { worker.lost(self, "closed: \(code.map { "\($0.rawValue)" } ?? "no code") \(reason)") }
            isOpen = false
            worker.finished(self)
        }
        worker.opened(self)
    }

    override func send(_ count: Int) {
        guard isOpen, let socket else { return }
        for _ in 0..<count { socket.sendText(utf8: worker.payload) }
    }

    override func close() {
        guard isOpen, let socket else { return }
        isOpen = false
        socket.close()
    }
}

// MARK: - Workers

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

// MARK: - Driver

/// Runs `body` on `loop`'s thread and returns its result.
func onLoop<T: Sendable>(_ loop: EventLoop, _ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in loop.execute { continuation.resume(returning: body()) } }
}

func sleep(seconds: Double) async {
    try? await Task.sleep(for: .nanoseconds(Int64(max(0, seconds) * 1e9)))
}

/// The benchmark: connections, then the mode's measurement.
struct Bench {
    let options: Options
    let shared = Shared()
    let workers: [Worker]

    init(options: Options, target: WebSocketTarget, group: EventLoopGroup) {
        self.options = options
        let payload = Payload.json(size: options.size)
        let frames = Payload.maskedFrames(payload, count: 16)
        let shared = shared
        workers = group.loops.map {
            Worker(loop: $0, options: options, target: target, shared: shared, payload: payload, frames: frames)
        }
    }

    /// Starts connections on their workers, number n on worker n mod the worker count.
    func dealToWorkers(_ numbers: [Int]) {
        for (offset, worker) in workers.enumerated() {
            let mine = numbers.filter { $0 % workers.count == offset }
            if !mine.isEmpty { worker.loop.execute { for index in mine { worker.connect(index) } } }
        }
    }

    /// Opens the connections: ramped over `rampSeconds`, at most `handshakes` in flight. Returns when each has
    /// opened or failed.
    func openAll(rampSeconds: Double) async -> Double {
        let start = EventLoop.now()
        let total = options.connections
        let shared = shared
        let handshakes = options.handshakes
        await ConnectionRamp.run(
            0..<total, perSecond: rampSeconds <= 0 ? 0 : Double(total) / rampSeconds,
            admit: {
                guard shared.inFlight.load(ordering: .relaxed) < handshakes else { return false }
                shared.inFlight.add(1, ordering: .relaxed)
                return true
            },
            deal: dealToWorkers)
        let deadline = EventLoop.now() + 15_000_000_000
        while shared.opened.load(ordering: .relaxed) + shared.failed.load(ordering: .relaxed) < total {
            if EventLoop.now() > deadline {
                Report.error("ws-bench-client: some handshakes neither finished nor failed")
                break
            }
            await sleep(seconds: 0.005)
        }
        let seconds = Double(EventLoop.now() - start) / 1e9
        let failed = shared.failed.load(ordering: .relaxed)
        Report.error(
            "ws-bench-client: \(shared.opened.load(ordering: .relaxed)) of \(total) connections open in "
                + "\(Report.fixed(seconds, 2)) s\(failed > 0 ? ", \(failed) failed" : "")")
        return seconds
    }

    func closeAll() async {
        let before = shared.finished.load(ordering: .relaxed)
        var open = 0
        for worker in workers {
            open += await onLoop(worker.loop) {
                let count = worker.connections.filter(\.isOpen).count
                worker.closeAll()
                return count
            }
        }
        let deadline = EventLoop.now() + 3_000_000_000
        while shared.finished.load(ordering: .relaxed) - before < open && EventLoop.now() < deadline {
            await sleep(seconds: 0.01)
        }
    }

    /// Counters summed over the workers: (received, sent, mismatched, unexpected, lost, reasons).
    func counters() async -> (received: Int, sent: Int, mismatched: Int, unexpected: Int, lost: Int) {
        var sum = (received: 0, sent: 0, mismatched: 0, unexpected: 0, lost: 0)
        for worker in workers {
            let values = await onLoop(worker.loop) {
                (worker.received, worker.sent, worker.mismatched, worker.unexpected, worker.lostCount)
            }
            sum.received += values.0
            sum.sent += values.1
            sum.mismatched += values.2
            sum.unexpected += values.3
            sum.lost += values.4
        }
        return sum
    }

    func reasons() async -> (failed: [String: Int], lost: [String: Int]) {
        var failed: [String: Int] = [:]
        var lost: [String: Int] = [:]
        for worker in workers {
            let (f, l) = await onLoop(worker.loop) { (worker.failReasons, worker.lostReasons) }
            failed.merge(f, uniquingKeysWith: +)
            lost.merge(l, uniquingKeysWith: +)
        }
        return (failed, lost)
    }

    func commonFields() async -> [(String, String)] {
        let (failed, lost) = await reasons()
        return [
            ("mode", Report.string(options.mode)),
            ("engine", Report.string(options.library ? "library" : "raw")),
            ("compression", options.compression ? "true" : "false"),
            ("client_loops", "\(options.loops)"),
            ("client_polls", options.poll ? "true" : "false"),
            ("connections", "\(options.connections)"),
            ("opened", "\(shared.opened.load(ordering: .relaxed))"),
            ("connect_failures", "\(shared.failed.load(ordering: .relaxed))"),
            ("connect_failure_reasons", Report.counts(failed)),
            ("lost", "\(shared.lost.load(ordering: .relaxed))"),
            ("lost_reasons", Report.counts(lost)),
        ]
    }

    func echo() async {
        _ = await openAll(rampSeconds: 0)
        for worker in workers { worker.loop.execute { worker.startEcho() } }
        await sleep(seconds: options.warmupSeconds)
        let first = await counters()
        let start = CPUSample.take(serverPID: options.serverPID)
        await sleep(seconds: options.seconds)
        let last = await counters()
        let stop = CPUSample.take(serverPID: options.serverPID)
        let cpu = CPUSample.percent(from: start, to: stop)
        let wall = Double(stop.time - start.time) / 1e9
        let messages = last.received - first.received
        await closeAll()
        var fields = await commonFields()
        fields += [
            ("pipeline", "\(options.pipeline)"),
            ("size", "\(options.size)"),
            ("seconds", Report.fixed(wall)),
            ("messages", "\(messages)"),
            ("messages_per_second", Report.fixed(Double(messages) / wall, 1)),
            ("mismatched", "\(last.mismatched)"),
            ("client_cpu_percent", Report.fixed(cpu.client, 1)),
            ("server_cpu_percent", cpu.server.map { Report.fixed($0, 1) } ?? "null"),
        ]
        Report.line(Report.json(fields))
    }

    func rate() async {
        let connectSeconds = await openAll(rampSeconds: options.rampSeconds)
        let start = EventLoop.now() + 200_000_000
        let end = start + UInt64(options.seconds * 1e9)
        for worker in workers { worker.loop.execute { worker.startRate(at: start, until: end) } }
        await sleep(seconds: Double(start - EventLoop.now()) / 1e9)
        let first = CPUSample.take(serverPID: options.serverPID)
        await sleep(seconds: Double(end - EventLoop.now()) / 1e9)
        let last = CPUSample.take(serverPID: options.serverPID)
        let cpu = CPUSample.percent(from: first, to: last)
        let sentByEnd = await counters()
        // Drain: wait for the echoes still on their way.
        let drainDeadline = EventLoop.now() + UInt64(options.drainSeconds * 1e9)
        while EventLoop.now() < drainDeadline {
            var outstanding = 0
            for worker in workers { outstanding += await onLoop(worker.loop) { worker.outstanding } }
            if outstanding == 0 { break }
            await sleep(seconds: 0.02)
        }
        let drained = Double(EventLoop.now() - end) / 1e9
        var unanswered = 0
        var latency = Histogram()
        var service = Histogram()
        var lag = Histogram()
        for worker in workers {
            let result = await onLoop(worker.loop) { (worker.stopRate(), worker.latency, worker.service, worker.lag) }
            unanswered += result.0
            latency.merge(result.1)
            service.merge(result.2)
            lag.merge(result.3)
        }
        let totals = await counters()
        await closeAll()
        var fields = await commonFields()
        let wall = Double(end - start) / 1e9
        fields += [
            ("connect_seconds", Report.fixed(connectSeconds, 2)),
            ("rate_per_connection", Report.fixed(options.rate, 1)),
            ("size", "\(options.size)"),
            ("seconds", Report.fixed(wall)),
            ("sent", "\(totals.sent)"),
            ("received", "\(totals.received)"),
            ("unanswered", "\(unanswered)"),
            ("mismatched", "\(totals.mismatched)"),
            ("unexpected", "\(totals.unexpected)"),
            ("send_rate", Report.fixed(Double(sentByEnd.sent) / wall, 1)),
            ("receive_rate_during_run", Report.fixed(Double(sentByEnd.received) / wall, 1)),
            ("drain_seconds", Report.fixed(drained, 2)),
            ("p50_ms", Report.milliseconds(latency.percentile(50))),
            ("p90_ms", Report.milliseconds(latency.percentile(90))),
            ("p99_ms", Report.milliseconds(latency.percentile(99))),
            ("p999_ms", Report.milliseconds(latency.percentile(99.9))),
            ("max_ms", Report.milliseconds(latency.maximum)),
            ("mean_ms", Report.fixed(latency.mean / 1e6)),
            ("service_p50_ms", Report.milliseconds(service.percentile(50))),
            ("service_p99_ms", Report.milliseconds(service.percentile(99))),
            ("send_lag_p99_ms", Report.milliseconds(lag.percentile(99))),
            ("send_lag_max_ms", Report.milliseconds(lag.maximum)),
            ("client_cpu_percent", Report.fixed(cpu.client, 1)),
            ("server_cpu_percent", cpu.server.map { Report.fixed($0, 1) } ?? "null"),
        ]
        Report.line(Report.json(fields))
    }

    func idle() async {
        let seconds = await openAll(rampSeconds: 0)
        Report.line("ready \(shared.opened.load(ordering: .relaxed))")
        await sleep(seconds: options.holdSeconds)
        let lostDuringHold = shared.lost.load(ordering: .relaxed)
        await closeAll()
        var fields = await commonFields()
        fields += [
            ("connect_seconds", Report.fixed(seconds, 2)),
            ("hold_seconds", Report.fixed(options.holdSeconds, 1)),
            ("lost_during_hold", "\(lostDuringHold)"),
        ]
        Report.line(Report.json(fields))
    }
}

func main() async {
    let options = Options.parse(Array(CommandLine.arguments.dropFirst()))
    signal(SIGPIPE, SIG_IGN)
    ProcessStats.raiseFileLimit(needed: options.connections)
    let group: EventLoopGroup
    do {
        let tick = Duration.nanoseconds(Int64(max(1, options.tickMicroseconds * 1000)))
        group = try EventLoopGroup(
            loops: options.loops, name: "bench-loop", idleWait: options.poll ? .poll(interval: tick) : .block)
    } catch {
        Report.error("ws-bench-client: \(error)")
        exit(1)
    }
    guard let target = options.target else { Options.usage("--url is required") }
    let bench = Bench(options: options, target: target, group: group)
    switch options.mode {
    case "echo": await bench.echo()
    case "rate": await bench.rate()
    default: await bench.idle()
    }
    exit(0)
}

await main()
