import Basics
import Glibc
import LoadKit
import MotionCore
import MotionWire

/// The command line of motion-load.
struct LoadOptions: Sendable {
    static let usage = """
        usage: motion-load --url ws[s]://HOST:PORT/v1/stream [options]

        Opens WebSocket sessions against a motion-server, each streaming poses at a fixed rate, and measures the
        latency from each pose's intended send time to the snapshot that answers it (no coordinated omission).
        HOST is a numeric IPv4 address or localhost.

        TLS (wss:// URLs):
          --ca FILE              verify the server against the CA certificate(s) in this PEM file (a self-signed
                                 server certificate itself will do); without it, the system's CA certificates
          --insecure             do not verify the server's certificate or name at all
          --server-name NAME     the name the certificate must carry, also sent as SNI (default: the URL's host)

        Load:
          --sessions N           sessions (default 100)
          --rate R               poses per second per session (default 30)
          --ramp-rate S          sessions opened per second, 0 = all at once (default 500)
          --seconds D            length of the measured phase, after every session has started (default 30)
          --drain-seconds D      after stop: wait this long for summaries and answers (default 5)
          --exercise ID          catalog exercise to simulate (default squat)
          --side left|right      side for one-sided exercises (default right)
          --poses FILE           stream a recorded session instead (NDJSON poses or {"frames":[…]}, joints format)
          --binary               send poses as binary frames (docs/protocol.md §3.2) instead of JSON text
          --motion               send the phone's motion samples too (docs/protocol.md §3.3): 60/s, in batches
          --motion-every N       poses per batch of samples (default 3: every 100 ms at 30 poses/s, as the Live
                                 page sends them; 1: a batch before each pose)
          --snapshots every|off|SECONDS   the start option (default every; off measures no latency)
          --subject TEXT         the sessions' subject, to find them in the history (default motion-load)
          --token TOKEN          bearer token (or MOTION_LOAD_TOKEN)
          --drop-every S         a share of the sessions (--drop-share) cut their connection every S seconds
                                 without a close and resume it on a new one (docs/protocol.md §3.1), re-sending the
                                 frames after the server's `resumed` t and those due meanwhile; reports the resume
                                 latency (request to `resumed`)
          --drop-share F         the share of sessions that drop, 0…1 (default 0.1)
        Capacity:
          --find-capacity        add sessions level by level until p99 exceeds the limit or errors appear
          --p99-limit-ms MS      the latency limit (default 20)
          --start-sessions N     first level (default 250)
          --step N               sessions added per level (default 250)
          --step-seconds D       measured seconds per level (default 10)
          --max-sessions N       stop there (default 10000)
        Measurement and output:
          --loops N              client event loops (default 1)
          --handshakes N         handshakes in flight at most (default 256)
          --tick-us US           send batching: wake at most every US microseconds (default 100; counted in latency)
          --poll                 the loops poll every tick instead of sleeping in epoll: answers are read up to a
                                 tick late (counted in latency, so it only overstates it), but the server's sends
                                 never have to wake the tool, which then costs far less CPU on a shared machine
          --server-pid PID       also report the server's CPU and RSS (from /proc)
          --json                 print one JSON object on stdout (per-second lines go to stderr)
          --quiet                no per-second lines
        """

    var target: WebSocketTarget?
    /// The PEM CA file to verify a wss:// server with (`--ca`).
    var certificateAuthorityFile: String?
    /// Whether a wss:// server is not verified (`--insecure`).
    var insecure = false
    /// The name a wss:// server's certificate must carry (`--server-name`), when not the URL's host.
    var serverName: String?
    var token: String?
    var sessions = 100
    var rate = 30.0
    var rampRate = 500.0
    var seconds = 30.0
    var drainSeconds = 5.0
    var exercise = "squat"
    var side = BodySide.right
    var posesFile: String?
    var snapshots = "every"
    var subject = "motion-load"
    var findCapacity = false
    var p99LimitMilliseconds = 20.0
    var startSessions = 250
    var step = 250
    var stepSeconds = 10.0
    var maxSessions = 10_000
    var loops = 1
    var handshakes = 256
    var tickMicroseconds = 100.0
    var poll = false
    var serverPID: Int32?
    var json = false
    /// Send poses as binary frames (docs/protocol.md §3.2) instead of JSON.
    var binary = false
    /// Send motion samples beside the poses (`--motion`, docs/protocol.md §3.3), 60 per second: a `motion` message of
    /// the samples since the last one before every ``motionEvery``-th pose.
    var motion = false
    /// Poses per `motion` message (`--motion-every`): 3 sends a batch every 100 ms at 30 poses/s, as the Live page
    /// does; 1, one before each pose.
    var motionEvery = 3
    /// Seconds between a dropping session's connection cuts (`--drop-every`); nil: no session drops.
    var dropEvery: Double?
    /// The share of sessions that drop (`--drop-share`).
    var dropShare = 0.1

    /// Whether session `number` drops its connection every ``dropEvery`` seconds: spread evenly, ``dropShare`` of
    /// every thousand.
    func drops(_ number: Int) -> Bool {
        guard dropEvery != nil else { return false }
        return Double(number % 1000) < (dropShare * 1000).rounded()
    }
    var quiet = false

    /// Whether snapshots come at all (with `off`, nothing answers a frame, so no latency is measured).
    var measuresLatency: Bool { snapshots != "off" }

    /// The `start` message every session sends.
    var startMessage: [UInt8] {
        var message: [UInt8] = []
        message.appendLiteral(#"{"type":"start","exercise":"#)
        message.appendJSONString(exercise)
        message.appendLiteral(#","side":"#)
        message.appendJSONString(side.rawValue)
        message.appendLiteral(#","subject":"#)
        message.appendJSONString(subject)
        message.appendLiteral(#","options":{"snapshots":"#)
        if let interval = Double(snapshots) {
            message.appendJSONNumber(interval)
        } else {
            message.appendJSONString(snapshots)
        }
        message.appendLiteral("}}")
        return message
    }

    static func fail(_ problem: String) -> Never {
        Report.error("motion-load: \(problem)")
        Report.error("run motion-load --help for the options")
        exit(2)
    }

    static let flags = CommandLineFlags([
        .value("url"), .value("ca"), .boolean("insecure"), .value("server-name"),
        .value("token", environment: "MOTION_LOAD_TOKEN"), .value("sessions"), .value("rate"), .value("ramp-rate"),
        .value("seconds"), .value("drain-seconds"), .value("exercise"), .value("side"), .value("poses"),
        .value("snapshots"), .value("subject"), .boolean("find-capacity"), .value("p99-limit-ms"),
        .value("start-sessions"), .value("step"), .value("step-seconds"), .value("max-sessions"), .value("loops"),
        .value("handshakes"), .value("tick-us"), .boolean("poll"), .value("server-pid"), .boolean("json"),
        .boolean("quiet"), .boolean("binary"), .boolean("motion"), .value("motion-every"), .value("drop-every"),
        .value("drop-share"),
    ])

    /// Reads the command line, or prints the usage and exits 0 for `--help`; a problem is printed and exits 2.
    static func parse(_ arguments: [String]) -> LoadOptions {
        do {
            guard let options = try read(arguments, environment: ProcessEnvironment.variables()) else {
                Report.line(usage)
                exit(0)
            }
            return options
        } catch {
            fail(error.message)
        }
    }

    /// Reads the command line; nil when it asks for help.
    /// - Throws: ``FlagError`` naming the flag that is wrong.
    static func read(_ arguments: [String], environment: [String: String]) throws(FlagError) -> LoadOptions? {
        let parsed = try flags.parse(arguments, environment: environment)
        guard !parsed.wantsHelp else { return nil }
        var options = LoadOptions()
        for flag in parsed.flags { try options.set(flag) }
        guard options.target != nil else { throw FlagError(message: "--url is required") }
        do {
            try options.target?.configureTLS(
                certificateAuthorityFile: options.certificateAuthorityFile, insecure: options.insecure,
                serverName: options.serverName)
        } catch {
            throw FlagError(message: error.description)
        }
        if let token = options.token, !token.isEmpty {
            options.target?.headers.append(("Authorization", "Bearer \(token)"))
        }
        guard Exercise.catalog.contains(where: { $0.id == options.exercise }) else {
            throw FlagError(
                message: "unknown exercise \(options.exercise); one of "
                    + Exercise.catalog.map(\.id).joined(separator: ", "))
        }
        return options
    }

    private mutating func set(_ flag: Flag) throws(FlagError) {
        let value = flag.value
        switch flag.name {
        case "url":
            do {
                target = try WebSocketTarget(url: value)
            } catch {
                throw FlagError(message: error.description)
            }
        case "ca": certificateAuthorityFile = value
        case "insecure": insecure = true
        case "server-name": serverName = value
        case "token": token = value
        case "sessions": sessions = try flag.integer(in: 1...Int.max)
        case "rate":
            guard let rate = Double(value), rate > 0, rate <= 1000 else {
                throw flag.invalid("a number of poses per second above 0, at most 1000")
            }
            self.rate = rate
        case "ramp-rate": rampRate = try flag.number(in: 0...Double.infinity)
        case "seconds": seconds = try Self.positive(flag)
        case "drain-seconds": drainSeconds = try flag.number(in: 0...Double.infinity)
        case "exercise": exercise = value
        case "side":
            guard let side = BodySide(rawValue: value) else { throw flag.invalid("left or right") }
            self.side = side
        case "poses": posesFile = value
        case "snapshots":
            guard value == "every" || value == "off" || (Double(value).map { $0.isFinite && $0 > 0 } ?? false) else {
                throw flag.invalid("every, off or a number of seconds")
            }
            snapshots = value
        case "subject":
            guard !value.isEmpty && value.utf8.count <= 128 else { throw flag.invalid("1 to 128 bytes") }
            subject = value
        case "find-capacity": findCapacity = true
        case "p99-limit-ms": p99LimitMilliseconds = try Self.positive(flag)
        case "start-sessions": startSessions = try flag.integer(in: 1...Int.max)
        case "step": step = try flag.integer(in: 1...Int.max)
        case "step-seconds": stepSeconds = try Self.positive(flag)
        case "max-sessions": maxSessions = try flag.integer(in: 1...Int.max)
        case "loops": loops = try flag.integer(in: 1...Int.max)
        case "handshakes": handshakes = try flag.integer(in: 1...Int.max)
        case "tick-us": tickMicroseconds = try flag.number(in: 0...Double.infinity)
        case "poll": poll = true
        case "server-pid": serverPID = Int32(try flag.integer(in: 1...Int(Int32.max)))
        case "json": json = true
        case "binary": binary = true
        case "motion": motion = true
        case "motion-every": motionEvery = try flag.integer(in: 1...1000)
        case "drop-every": dropEvery = try Self.positive(flag)
        case "drop-share": dropShare = try flag.number(in: 0...1)
        case "quiet": quiet = true
        default: preconditionFailure("--\(flag.name) is not in LoadOptions.flags")
        }
    }

    /// A finite number above 0.
    private static func positive(_ flag: Flag) throws(FlagError) -> Double {
        guard let number = Double(flag.value), number.isFinite, number > 0 else { throw flag.invalid("a number > 0") }
        return number
    }
}
