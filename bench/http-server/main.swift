import Basics
import Glibc
import HTTPServer
import MotionWire

/// The command line.
let usage = """
    usage: http-bench-server [--host 127.0.0.1] [--port 0] [--loops N] [--public DIR] [--max-body BYTES]
                             [--head-timeout SECONDS] [--idle-timeout SECONDS] [--max-connections N]
                             [--log-level warning] [--tls-cert PEM --tls-key PEM]
    """

/// A small server on HTTPServer for benchmarks and the black-box integration tests (blackbox/http):
/// `GET /` answers "hello"; `POST /echo` returns the body; `GET /big` 64 KiB of text; `GET /stream?n=N` N chunks;
/// `GET /items/{id}` the id as JSON; `GET /v1/echo` a WebSocket that echoes every message; files from `--public` for everything else.
/// Flags: ``usage`` (HTTPS and WSS with both `--tls-cert` and `--tls-key`).
/// Prints `listening on http://HOST:PORT` (https with TLS) once ready; SIGTERM drains and exits 0.
func serve() async throws {
    var configuration = HTTPServerConfiguration()
    configuration.port = 0
    configuration.logLevel = .warning
    var publicDirectory: String?
    var (certificate, key): (String?, String?) = (nil, nil)
    let flags = CommandLineFlags([
        .value("port"), .value("loops"), .value("public"), .value("max-body"), .value("head-timeout"),
        .value("idle-timeout"), .value("max-connections"), .value("host"), .value("log-level"), .value("tls-cert"),
        .value("tls-key"),
    ])
    do throws(FlagError) {
        let parsed = try flags.parse(Array(CommandLine.arguments.dropFirst()))
        if parsed.wantsHelp {
            Console.line(usage)
            exit(0)
        }
        for flag in parsed.flags {
            switch flag.name {
            case "port": configuration.port = UInt16(try flag.integer(in: 0...65535))
            case "loops": configuration.loops = try flag.integer(in: 1...1024)
            case "public": publicDirectory = flag.value
            case "max-body": configuration.limits.maxBodyBytes = try flag.integer(in: 0...Int.max)
            case "head-timeout": configuration.headTimeout = .seconds(try flag.number(in: 0.001...86_400))
            case "idle-timeout": configuration.idleTimeout = .seconds(try flag.number(in: 0.001...86_400))
            case "max-connections": configuration.maxConnections = try flag.integer(in: 1...Int.max)
            case "host": configuration.host = flag.value
            case "log-level":
                guard let level = LogLevel(name: flag.value) else {
                    throw flag.invalid("debug, info, notice, warning or error")
                }
                configuration.logLevel = level
            case "tls-cert": certificate = flag.value
            case "tls-key": key = flag.value
            default: preconditionFailure("--\(flag.name) is not declared")
            }
        }
    } catch {
        Console.error("http-bench-server: \(error.message)\n\n\(usage)")
        exit(2)
    }
    if let certificate, let key {
        configuration.tls = try TLSContext.server(certificateFile: certificate, keyFile: key)
    }
    configuration.errorRenderer = HTTPErrorRenderer { error in
        var body: [UInt8] = []
        WireEncoder.encodeErrorBody(
            WireError(code: ErrorCode(rawValue: error.code), message: error.message), into: &body)
        return HTTPResponse(status: error.status, contentType: "application/json", bytes: body)
    }
    var router = Router()
    router.get("/") { _ in .text("hello") }
    router.post("/echo") { request in
        HTTPResponse(contentType: request.headers["Content-Type"] ?? "application/octet-stream", bytes: request.body)
    }
    router.get("/big") { _ in .text(String(repeating: "motion-server big body line\n", count: 2341)) }
    let sockets = WebSocketHub()
    router.webSocket("/v1/echo", hub: sockets) { socket in
        socket.onMessage = { message in socket.send(message) }
    }
    router.get("/items/{id}") { request in
        var body: [UInt8] = []
        body.appendLiteral(#"{"id":"#)
        body.appendJSONString(request.parameters["id"] ?? "")
        body.append(UInt8(ascii: "}"))
        return HTTPResponse(contentType: "application/json", bytes: body)
    }
    router.get("/stream") { request in
        let count = Int(request.query("n") ?? "") ?? 3
        let (stream, continuation) = AsyncStream.makeStream(of: [UInt8].self)
        for i in 0..<max(0, min(count, 10_000)) { continuation.yield(Array("chunk \(i)\n".utf8)) }
        continuation.finish()
        return HTTPResponse(headers: ["Content-Type": "text/plain"], body: .stream(stream))
    }
    var fallback: Router.Handler?
    if let publicDirectory {
        let files = try FileServer(root: publicDirectory)
        fallback = { request in try await files.respond(to: request) }
    }
    let server = try HTTPServer(configuration: configuration, router: router, fallback: fallback)
    let termination = SignalWaiter()
    let address = try server.start()
    Console.line("listening on \(configuration.tls == nil ? "http" : "https")://\(address)")
    await termination.wait()
    await server.shutdown(gracePeriod: .seconds(5)) { await sockets.closeAll(code: .goingAway) }
    server.stopLoops()
}

try await serve()
