import Basics
import Glibc
import LoadKit

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

    /// The flags of every mode.
    static let flags = CommandLineFlags(
        [
            "url", "ca", "server-name", "connections", "seconds", "warmup-seconds", "size", "loops", "pipeline",
            "rate", "ramp-seconds", "hold-seconds", "drain-seconds", "tick-us", "handshakes", "server-pid", "engine",
        ].map { CommandLineFlags.Declaration.value($0) }
            + ["compression", "poll", "insecure"].map { CommandLineFlags.Declaration.boolean($0) })

    static func parse(_ arguments: [String]) -> Options {
        do throws(FlagError) {
            return try read(arguments)
        } catch {
            usage(error.message)
        }
    }

    private static func read(_ arguments: [String]) throws(FlagError) -> Options {
        var options = Options()
        guard let mode = arguments.first, ["echo", "rate", "idle"].contains(mode) else { usage("no mode") }
        options.mode = mode
        var url: String?
        var certificateAuthorityFile: String?
        var insecure = false
        var serverName: String?
        let parsed = try flags.parse(Array(arguments.dropFirst()))
        if parsed.wantsHelp { usage("help") }
        for flag in parsed.flags {
            switch flag.name {
            case "compression":
                options.compression = true
                options.library = true
            case "poll": options.poll = true
            case "insecure": insecure = true
            case "url": url = flag.value
            case "ca": certificateAuthorityFile = flag.value
            case "server-name": serverName = flag.value
            case "connections": options.connections = try flag.integer(in: 0...Int.max)
            case "seconds": options.seconds = try flag.number(in: 0...Double.infinity)
            case "warmup-seconds": options.warmupSeconds = try flag.number(in: 0...Double.infinity)
            case "size": options.size = try flag.integer(in: 0...Int.max)
            case "loops": options.loops = try flag.integer(in: 1...256)
            case "pipeline": options.pipeline = try flag.integer(in: 1...Int.max)
            case "rate": options.rate = try flag.number(in: 0...Double.infinity)
            case "ramp-seconds": options.rampSeconds = try flag.number(in: 0...Double.infinity)
            case "hold-seconds": options.holdSeconds = try flag.number(in: 0...Double.infinity)
            case "drain-seconds": options.drainSeconds = try flag.number(in: 0...Double.infinity)
            case "tick-us": options.tickMicroseconds = try flag.number(in: 0...Double.infinity)
            case "handshakes": options.handshakes = try flag.integer(in: 1...Int.max)
            case "server-pid": options.serverPID = Int32(try flag.integer(in: 1...Int(Int32.max)))
            default:  // engine
                guard flag.value == "raw" || flag.value == "library" else { throw flag.invalid("raw or library") }
                options.library = flag.value == "library" || options.compression
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
