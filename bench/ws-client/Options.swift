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
