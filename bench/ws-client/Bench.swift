import LoadKit
import NetCore

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
