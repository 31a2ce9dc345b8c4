import LoadKit
import NetCore

/// Runs a load test: opens sessions (ramped), measures a steady phase or level after level, stops every session
/// and reports. Lives on the main task; the loops are reached with `onLoop`.
struct LoadDriver: Sendable {
    let options: LoadOptions
    let target: WebSocketTarget
    let script: PoseScript
    let shared = SharedCounts()
    let workers: [LoadWorker]

    init(options: LoadOptions, target: WebSocketTarget, script: PoseScript, group: EventLoopGroup) {
        self.options = options
        self.target = target
        self.script = script
        let shared = shared
        workers = group.loops.map {
            LoadWorker(loop: $0, options: options, target: target, script: script, shared: shared)
        }
    }

    /// One measured window: the merged statistics, with the frames still waiting at its end counted at their age.
    struct Measurement: Sendable {
        var sessions: Int
        var seconds: Double
        var stats: LoadStats
        var cpu: (client: Double, server: Double?)
        var serverRSS: Int?
        var waiting: Int
    }

    /// Runs the whole test; returns whether it counts as a success (for the exit status), and the whole run's
    /// statistics.
    func run() async -> (succeeded: Bool, run: LoadStats) {
        let mode = options.findCapacity ? "find capacity" : "\(options.sessions) sessions"
        progress(
            "motion-load: \(mode) × \(Report.fixed(options.rate, 1)) poses/s, \(script.source), "
                + "~\(options.binary ? script.meanBinaryBytes : script.meanMessageBytes) B/pose\(options.binary ? " (binary)" : ""), snapshots \(options.snapshots), against \(target.url)"
        )
        let baselineRSS = options.serverPID.flatMap { ProcessStats.residentBytes($0) }
        let pacingStart = EventLoop.now() + 20_000_000
        for worker in workers { worker.loop.execute { worker.startPacing(at: pacingStart) } }
        let ticker = Task { await tickEverySecond() }

        var fields: [(String, String)] = [
            ("url", Report.string(target.url)),
            ("mode", Report.string(options.findCapacity ? "find-capacity" : "steady")),
            ("script", Report.string(script.source)),
            ("message_bytes", "\(options.binary ? script.meanBinaryBytes : script.meanMessageBytes)"),
            ("binary", "\(options.binary)"),
            ("motion", "\(options.motion)"),
            ("motion_every", "\(options.motionEvery)"),
            ("rate_per_session", Report.fixed(options.rate, 1)),
            ("snapshots", Report.string(options.snapshots)),
            ("client_loops", "\(options.loops)"),
            ("client_tick_us", Report.fixed(options.tickMicroseconds, 0)),
            ("client_polls", options.poll ? "true" : "false"),
            ("server_rss_mib_before", baselineRSS.map { Report.fixed(Double($0) / 1_048_576, 1) } ?? "null"),
        ]
        var succeeded: Bool
        if options.findCapacity {
            let (levels, best) = await findCapacity(baselineRSS: baselineRSS)
            fields.append(("p99_limit_ms", Report.fixed(options.p99LimitMilliseconds, 1)))
            fields.append(("levels", "[" + levels.map { Report.json($0) }.joined(separator: ",") + "]"))
            fields.append(("capacity", best.map { Report.json($0) } ?? "null"))
            succeeded = best != nil
        } else {
            let opened = await open(upTo: options.sessions, from: 0)
            let measurement = await measure(sessions: opened, seconds: options.seconds)
            progress(describe(measurement, title: "steady \(Report.fixed(measurement.seconds, 1)) s"))
            fields.append(("sessions", "\(options.sessions)"))
            fields.append(("measurement", Report.json(self.fields(of: measurement, baselineRSS: baselineRSS))))
            succeeded = measurement.sessions > 0 && measurement.stats.problems == 0
        }
        let finished = await stopAll()
        ticker.cancel()
        let seconds = await ticker.value
        var whole = LoadStats()
        for worker in workers { whole.merge(await onLoop(worker.loop) { worker.take(.run) }) }
        progress(
            "run: \(whole.sessionsStarted) sessions started, \(whole.framesSent) frames sent, \(whole.snapshots) "
                + "snapshots, \(whole.summaries) summaries, closes \(Report.counts(whole.closes)), errors "
                + "\(Report.counts(whole.errorCodes)), unanswered \(whole.unanswered); \(finished) sessions stopped")
        // A session is stored once the close 1000 that follows its summary comes (docs/protocol.md §3): a summary alone
        // does not make a run good.
        if whole.summaries < whole.sessionsStarted || whole.closes["1000", default: 0] < whole.sessionsStarted {
            succeeded = false
        }
        fields.append(("run", Report.json(statsFields(whole, seconds: nil))))
        fields.append(("seconds", "[" + seconds.joined(separator: ",") + "]"))
        if options.json { Report.line(Report.json(fields)) }
        return (succeeded, whole)
    }

    // MARK: Opening sessions

    /// Opens sessions `from..<upTo`, at most `rampRate` per second and `handshakes` at once, and waits until each
    /// has started or failed. Returns how many are streaming.
    func open(upTo total: Int, from first: Int) async -> Int {
        let shared = shared
        let handshakes = options.handshakes
        await ConnectionRamp.run(
            first..<total, perSecond: options.rampRate,
            admit: {
                guard shared.handshakesInFlight.load(ordering: .relaxed) < handshakes else { return false }
                shared.handshakesInFlight.add(1, ordering: .relaxed)
                return true
            },
            deal: { numbers in
                for (offset, worker) in workers.enumerated() {
                    let mine = numbers.filter { $0 % workers.count == offset }
                    if !mine.isEmpty { worker.loop.execute { for number in mine { worker.open(number) } } }
                }
            })
        let deadline = EventLoop.now() + 30_000_000_000
        while shared.started.load(ordering: .relaxed) + shared.refused.load(ordering: .relaxed) < total {
            if EventLoop.now() > deadline {
                progress("motion-load: some sessions neither started nor failed within 30 s")
                break
            }
            await sleep(seconds: 0.005)
        }
        return shared.started.load(ordering: .relaxed)
    }

    // MARK: Measuring

    /// Measures `seconds` from now: every worker's measurement window, CPU and the server's RSS.
    func measure(sessions: Int, seconds: Double) async -> Measurement {
        for worker in workers { _ = await onLoop(worker.loop) { worker.take(.measurement) } }
        let first = CPUSample.take(serverPID: options.serverPID)
        await sleep(seconds: seconds)
        var stats = LoadStats()
        var waiting = 0
        for worker in workers {
            let (window, ages, count) = await onLoop(worker.loop) {
                (worker.take(.measurement), worker.waitingAges(), worker.waiting)
            }
            stats.merge(window)
            stats.latency.merge(ages)
            waiting += count
        }
        let last = CPUSample.take(serverPID: options.serverPID)
        return Measurement(
            sessions: sessions, seconds: Double(last.time - first.time) / 1e9, stats: stats,
            cpu: CPUSample.percent(from: first, to: last),
            serverRSS: options.serverPID.flatMap { ProcessStats.residentBytes($0) },
            waiting: waiting)
    }

    /// Adds sessions level by level until p99 passes the limit, a problem appears or the maximum is reached.
    func findCapacity(baselineRSS: Int?) async -> (levels: [[(String, String)]], best: [(String, String)]?) {
        var levels: [[(String, String)]] = []
        var best: [(String, String)]?
        var level = options.startSessions
        var opened = 0
        while level <= options.maxSessions {
            let streaming = await open(upTo: level, from: opened)
            opened = level
            await sleep(seconds: 1)  // let the new sessions' first seconds pass
            let measurement = await measure(sessions: streaming, seconds: options.stepSeconds)
            let p99 = Double(measurement.stats.latency.percentile(99)) / 1e6
            let expected = Double(level) * options.rate * measurement.seconds
            let passed =
                streaming == level && measurement.stats.problems == 0 && p99 <= options.p99LimitMilliseconds
                && Double(measurement.stats.framesSent) >= 0.95 * expected
            var fields = self.fields(of: measurement, baselineRSS: baselineRSS)
            fields.append(("passed", passed ? "true" : "false"))
            levels.append(fields)
            progress(describe(measurement, title: "level \(level)") + (passed ? " — pass" : " — FAIL"))
            guard passed else { break }
            best = fields
            level += options.step
        }
        if let best, let sessions = best.first(where: { $0.0 == "sessions" })?.1 {
            progress(
                "capacity: \(sessions) sessions at \(Report.fixed(options.rate, 1)) poses/s with p99 ≤ "
                    + "\(Report.fixed(options.p99LimitMilliseconds, 1)) ms")
        } else {
            progress("capacity: not even the first level (\(options.startSessions) sessions) passed")
        }
        return (levels, best)
    }

    // MARK: Stopping

    /// Sends `stop` to every session, waits up to `drainSeconds` for them to end, then aborts the rest.
    func stopAll() async -> Int {
        var stopped = 0
        for worker in workers { stopped += await onLoop(worker.loop) { worker.stopAll() } }
        let total = shared.started.load(ordering: .relaxed) + shared.refused.load(ordering: .relaxed)
        let deadline = EventLoop.now() + UInt64(options.drainSeconds * 1e9)
        while shared.finished.load(ordering: .relaxed) < total && EventLoop.now() < deadline {
            await sleep(seconds: 0.01)
        }
        for worker in workers { await onLoop(worker.loop) { worker.abortAll() } }
        return stopped
    }

    // MARK: Per-second lines

    /// Every second until cancelled: the second's window of every worker, as a line (unless quiet) and as JSON.
    func tickEverySecond() async -> [String] {
        var lines: [String] = []
        let start = EventLoop.now()
        var second = 1
        while !Task.isCancelled {
            await sleep(until: start + UInt64(second) * 1_000_000_000)
            var stats = LoadStats()
            var waiting = 0
            for worker in workers {
                let (window, count) = await onLoop(worker.loop) { (worker.take(.second), worker.waiting) }
                stats.merge(window)
                waiting += count
            }
            let streaming = shared.started.load(ordering: .relaxed) - shared.finished.load(ordering: .relaxed)
            lines.append(
                Report.json([
                    ("second", "\(second)"), ("streaming", "\(max(0, streaming))"),
                    ("frames_sent", "\(stats.framesSent)"), ("snapshots", "\(stats.snapshots)"),
                    ("events", "\(stats.events)"), ("errors", "\(stats.errors)"), ("waiting", "\(waiting)"),
                    ("closes", Report.counts(stats.closes)),
                    ("p50_ms", Report.milliseconds(stats.latency.percentile(50))),
                    ("p99_ms", Report.milliseconds(stats.latency.percentile(99))),
                    ("max_ms", Report.milliseconds(stats.latency.maximum)),
                ]))
            if !options.quiet {
                progress(
                    "\(pad("\(second)s", 5)) sessions \(pad("\(max(0, streaming))", 6)) sent \(pad("\(stats.framesSent)/s", 9))"
                        + " snapshots \(pad("\(stats.snapshots)/s", 9)) events \(pad("\(stats.events)", 5)) errors "
                        + "\(pad("\(stats.errors)", 4)) waiting \(pad("\(waiting)", 6)) p50 "
                        + "\(Report.milliseconds(stats.latency.percentile(50))) p99 "
                        + "\(Report.milliseconds(stats.latency.percentile(99))) max "
                        + "\(Report.milliseconds(stats.latency.maximum)) ms")
            }
            second += 1
        }
        return lines
    }

    // MARK: Reporting

    /// Human output: stderr with `--json` (stdout stays one JSON object), stdout otherwise.
    func progress(_ line: String) {
        if options.json { Report.error(line) } else { Report.line(line) }
    }

    private func pad(_ text: String, _ width: Int) -> String {
        text.count >= width ? text : text + String(repeating: " ", count: width - text.count)
    }

    func describe(_ measurement: Measurement, title: String) -> String {
        let stats = measurement.stats
        let latency = stats.latency
        var line =
            "\(title): \(measurement.sessions) sessions, \(Report.fixed(Double(stats.framesSent) / measurement.seconds, 0))"
            + " frames/s; latency p50 \(Report.milliseconds(latency.percentile(50))) p90 "
            + "\(Report.milliseconds(latency.percentile(90))) p99 \(Report.milliseconds(latency.percentile(99))) "
            + "p99.9 \(Report.milliseconds(latency.percentile(99.9))) max \(Report.milliseconds(latency.maximum)) ms; "
            + "problems \(stats.problems); client CPU \(Report.fixed(measurement.cpu.client, 0))%"
        if let server = measurement.cpu.server { line += ", server CPU \(Report.fixed(server, 0))%" }
        if let rss = measurement.serverRSS { line += ", server RSS \(Report.fixed(Double(rss) / 1_048_576, 1)) MiB" }
        if stats.drops > 0 {
            let resume = stats.resumeLatency
            line +=
                "; \(stats.drops) drops, \(stats.resumes) resumes p50 \(Report.milliseconds(resume.percentile(50))) "
                + "p99 \(Report.milliseconds(resume.percentile(99))) ms"
        }
        return line
    }

    func fields(of measurement: Measurement, baselineRSS: Int?) -> [(String, String)] {
        var fields: [(String, String)] = [
            ("sessions", "\(measurement.sessions)"),
            ("seconds", Report.fixed(measurement.seconds)),
            ("frames_per_second", Report.fixed(Double(measurement.stats.framesSent) / measurement.seconds, 1)),
            ("waiting_at_end", "\(measurement.waiting)"),
            ("client_cpu_percent", Report.fixed(measurement.cpu.client, 1)),
            ("server_cpu_percent", measurement.cpu.server.map { Report.fixed($0, 1) } ?? "null"),
            ("server_rss_mib", measurement.serverRSS.map { Report.fixed(Double($0) / 1_048_576, 1) } ?? "null"),
        ]
        var perSession = "null"
        if let rss = measurement.serverRSS, let baselineRSS, measurement.sessions > 0 {
            perSession = Report.fixed(Double(rss - baselineRSS) / 1024 / Double(measurement.sessions), 1)
        }
        fields.append(("server_rss_kib_per_session", perSession))
        return fields + statsFields(measurement.stats, seconds: measurement.seconds)
    }

    func statsFields(_ stats: LoadStats, seconds: Double?) -> [(String, String)] {
        func percentiles(_ histogram: Histogram) -> String {
            Report.json([
                ("p50", Report.milliseconds(histogram.percentile(50))),
                ("p90", Report.milliseconds(histogram.percentile(90))),
                ("p99", Report.milliseconds(histogram.percentile(99))),
                ("p999", Report.milliseconds(histogram.percentile(99.9))),
                ("max", Report.milliseconds(histogram.maximum)),
                ("mean", Report.fixed(histogram.mean / 1e6)),
                ("count", "\(histogram.total)"),
            ])
        }
        return [
            ("sessions_opened", "\(stats.sessionsOpened)"), ("sessions_started", "\(stats.sessionsStarted)"),
            ("frames_sent", "\(stats.framesSent)"), ("snapshots", "\(stats.snapshots)"),
            ("coalesced", "\(stats.coalesced)"), ("events", "\(stats.events)"),
            ("event_kinds", Report.counts(stats.eventKinds, limit: 32)), ("errors", "\(stats.errors)"),
            ("error_codes", Report.counts(stats.errorCodes, limit: 32)), ("summaries", "\(stats.summaries)"),
            ("checkpoints", "\(stats.checkpoints)"),
            ("unanswered", "\(stats.unanswered)"), ("closes", Report.counts(stats.closes, limit: 32)),
            ("unexpected_closes", "\(stats.unexpectedCloses)"),
            ("connect_failures", Report.counts(stats.connectFailures, limit: 32)),
            ("latency_ms", percentiles(stats.latency)), ("send_lag_ms", percentiles(stats.sendLag)),
            ("start_ms", percentiles(stats.startLatency)),
            ("drops", "\(stats.drops)"), ("resumes", "\(stats.resumes)"),
            ("resume_ms", percentiles(stats.resumeLatency)),
        ]
    }
}
