import Basics
import Glibc
import HTTPServer
import MotionWire

/// A small server on HTTPServer for benchmarks and the black-box integration tests (tests/http):
/// `GET /` answers "hello"; `POST /echo` returns the body; `GET /big` 64 KiB of text; `GET /stream?n=N` N chunks;
/// `GET /items/{id}` the id as JSON; `GET /v1/echo` a WebSocket that echoes every message; files from `--public` for everything else.
/// Usage: `http-bench-server [--port N] [--loops N] [--public DIR] [--max-body BYTES] [--head-timeout SECONDS]
/// [--tls-cert PEM --tls-key PEM]` (HTTPS and WSS with both).
/// Prints `listening on http://HOST:PORT` (https with TLS) once ready; SIGTERM drains and exits 0.
func serve() async throws {
    var configuration = HTTPServerConfiguration()
    configuration.port = 0
    configuration.logLevel = .warning
    var publicDirectory: String?
    var (certificate, key): (String?, String?) = (nil, nil)
    var arguments = CommandLine.arguments.dropFirst().makeIterator()
    while let flag = arguments.next() {
        let value = arguments.next() ?? ""
        switch flag {
        case "--port": configuration.port = UInt16(value) ?? 0
        case "--loops": configuration.loops = Int(value) ?? configuration.loops
        case "--public": publicDirectory = value
        case "--max-body": configuration.limits.maxBodySize = Int(value) ?? configuration.limits.maxBodySize
        case "--head-timeout": configuration.headTimeout = .seconds(Double(value) ?? 10)
        case "--idle-timeout": configuration.idleTimeout = .seconds(Double(value) ?? 60)
        case "--max-connections": configuration.maxConnections = Int(value) ?? configuration.maxConnections
        case "--host": configuration.host = value
        case "--log-level": configuration.logLevel = LogLevel(name: value) ?? .warning
        case "--tls-cert": certificate = value
        case "--tls-key": key = value
        default: print("unknown flag \(flag)")
        }
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
    let line = "listening on \(configuration.tls == nil ? "http" : "https")://\(address)\n"
    _ = line.utf8CString.withUnsafeBufferPointer { write(1, $0.baseAddress, $0.count - 1) }
    await termination.wait()
    await server.shutdown(gracePeriod: .seconds(5)) { await sockets.closeAll(code: .goingAway) }
    server.stopLoops()
}

try await serve()
