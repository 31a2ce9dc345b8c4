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
          --snapshots every|off|SECONDS   the start option (default every; off measures no latency)
          --subject TEXT         the sessions' subject, to find them in the history (default motion-load)
          --token TOKEN          bearer token (or MOTION_LOAD_TOKEN)
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

    static func parse(_ arguments: [String]) -> LoadOptions {
        var options = LoadOptions()
        var iterator = arguments.makeIterator()
        while let flag = iterator.next() {
            switch flag {
            case "--help", "-h":
                Report.line(usage)
                exit(0)
            case "--find-capacity":
                options.findCapacity = true
                continue
            case "--json":
                options.json = true
                continue
            case "--quiet":
                options.quiet = true
                continue
            case "--poll":
                options.poll = true
                continue
            case "--insecure":
                options.insecure = true
                continue
            default: break
            }
            guard let value = iterator.next() else { fail("\(flag) needs a value") }
            func count(_ minimum: Int = 1) -> Int {
                guard let number = Int(value), number >= minimum else {
                    fail("\(flag): not a count ≥ \(minimum): \(value)")
                }
                return number
            }
            func positive() -> Double {
                guard let number = Double(value), number.isFinite, number > 0 else {
                    fail("\(flag): not a positive number: \(value)")
                }
                return number
            }
            func nonNegative() -> Double {
                guard let number = Double(value), number.isFinite, number >= 0 else {
                    fail("\(flag): not a number ≥ 0: \(value)")
                }
                return number
            }
            switch flag {
            case "--url":
                do {
                    options.target = try WebSocketTarget(url: value)
                } catch {
                    fail(error.description)
                }
            case "--ca": options.certificateAuthorityFile = value
            case "--server-name": options.serverName = value
            case "--sessions": options.sessions = count()
            case "--rate":
                options.rate = positive()
                guard options.rate <= 1000 else { fail("--rate: at most 1000 poses/s per session") }
            case "--ramp-rate": options.rampRate = nonNegative()
            case "--seconds": options.seconds = positive()
            case "--drain-seconds": options.drainSeconds = nonNegative()
            case "--exercise": options.exercise = value
            case "--side":
                guard let side = BodySide(rawValue: value) else { fail("--side: left or right, not \(value)") }
                options.side = side
            case "--poses": options.posesFile = value
            case "--snapshots":
                guard value == "every" || value == "off" || (Double(value).map { $0.isFinite && $0 > 0 } ?? false)
                else { fail("--snapshots: every, off or a number of seconds, not \(value)") }
                options.snapshots = value
            case "--token": options.token = value
            case "--subject":
                guard !value.isEmpty && value.utf8.count <= 128 else { fail("--subject: 1 to 128 bytes") }
                options.subject = value
            case "--p99-limit-ms": options.p99LimitMilliseconds = positive()
            case "--start-sessions": options.startSessions = count()
            case "--step": options.step = count()
            case "--step-seconds": options.stepSeconds = positive()
            case "--max-sessions": options.maxSessions = count()
            case "--loops": options.loops = count()
            case "--handshakes": options.handshakes = count()
            case "--tick-us": options.tickMicroseconds = nonNegative()
            case "--server-pid": options.serverPID = Int32(count())
            default: fail("unknown option \(flag)")
            }
        }
        guard options.target != nil else { fail("--url is required") }
        do {
            try options.target?.configureTLS(
                certificateAuthorityFile: options.certificateAuthorityFile, insecure: options.insecure,
                serverName: options.serverName)
        } catch {
            fail(error.description)
        }
        if let token = options.token ?? getenv("MOTION_LOAD_TOKEN").map({ String(cString: $0) }), !token.isEmpty {
            options.target?.headers.append(("Authorization", "Bearer \(token)"))
        }
        guard Exercise.catalog.contains(where: { $0.id == options.exercise }) else {
            fail("unknown exercise \(options.exercise); one of \(Exercise.catalog.map(\.id).joined(separator: ", "))")
        }
        return options
    }
}
