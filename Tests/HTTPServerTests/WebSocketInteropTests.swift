import Foundation
import Glibc
import HTTPServer
import HTTPWire
import Testing
import WebSocketClient

/// Why the interop tests could not run or a peer misbehaved.
private struct InteropError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}

/// The Python `websockets` echo server (blackbox/websocket/echo_server.py) as a child process, so our client is tested
/// against an independent implementation of RFC 6455 and RFC 7692.
///
/// Runs on the interpreter in `PYTHON` (the Makefile sets it to the project's `.venv`), else `.venv/bin/python` when
/// it exists, else `python3` from `PATH`; it needs the PyPI package `websockets` (`make deps` installs it into
/// `.venv`). Without it starting fails with a message saying what to run, so the test fails rather than skips.
private final class PythonEchoServer {
    let port: UInt16
    private let process = Process()
    private let errorLog: URL

    init() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let script = root.appendingPathComponent("blackbox/websocket/echo_server.py")
        guard FileManager.default.fileExists(atPath: script.path) else {
            throw InteropError("missing \(script.path)")
        }
        errorLog = FileManager.default.temporaryDirectory.appendingPathComponent("echo-server-\(UUID()).log")
        guard FileManager.default.createFile(atPath: errorLog.path, contents: nil) else {
            throw InteropError("cannot create \(errorLog.path)")
        }
        let output = Pipe()
        let python = Self.python(root: root)
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [python, script.path, "--port", "0"]
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorLog)
        process.standardInput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            throw InteropError("cannot run \(python): \(error)")
        }
        let line = Self.readLine(from: output.fileHandleForReading.fileDescriptor, timeout: .seconds(20))
        let prefix = "listening on ws://"
        guard let line, line.hasPrefix(prefix), let colon = line.lastIndex(of: ":"),
            let port = UInt16(line[line.index(after: colon)...].filter(\.isNumber))
        else {
            Self.stop(process)
            let log = (try? String(contentsOf: errorLog, encoding: .utf8)) ?? ""
            try? FileManager.default.removeItem(at: errorLog)
            throw InteropError(
                """
                the Python echo server did not start (exit status \(process.terminationStatus), first line \
                \(line.map { "\"\($0)\"" } ?? "none")) on \(python). It needs the websockets package: \
                `make deps` installs it into .venv. Its stderr: \(log.suffix(1500))
                """)
        }
        self.port = port
    }

    /// The interpreter to run: `PYTHON`, else the project's `.venv`, else `python3` from `PATH`.
    private static func python(root: URL) -> String {
        if let python = ProcessInfo.processInfo.environment["PYTHON"], !python.isEmpty { return python }
        let venv = root.appendingPathComponent(".venv/bin/python").path
        return FileManager.default.isExecutableFile(atPath: venv) ? venv : "python3"
    }

    /// Stops the server (SIGTERM, SIGKILL after 5 s) and removes its log.
    func stop() {
        Self.stop(process)
        try? FileManager.default.removeItem(at: errorLog)
    }

    private static func stop(_ process: Process) {
        guard process.isRunning else { return process.waitUntilExit() }
        let pid = process.processIdentifier
        // SIGKILL after 5 s, unless it has exited by then (the kill is cancelled as soon as it has).
        let killer = DispatchWorkItem { kill(pid, SIGKILL) }
        DispatchQueue.global().asyncAfter(deadline: .now() + 5, execute: killer)
        process.terminate()
        process.waitUntilExit()
        killer.cancel()
    }

    /// Reads one line from `fd`, giving up at EOF or after `timeout`.
    private static func readLine(from fd: Int32, timeout: Duration) -> String? {
        var bytes: [UInt8] = []
        let deadline = ContinuousClock.now + timeout
        while bytes.last != UInt8(ascii: "\n") {
            guard ContinuousClock.now < deadline else { return nil }
            var descriptor = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 100)
            if ready < 0 && errno != EINTR { return nil }
            guard ready > 0 else { continue }
            var byte: UInt8 = 0
            guard read(fd, &byte, 1) == 1 else { return nil }
            bytes.append(byte)
        }
        return String(decoding: bytes.dropLast(), as: UTF8.self)
    }
}

@Suite("WebSocket client against the Python websockets echo server", .serialized, .timeLimit(.minutes(1)))
struct WebSocketInteropTests {
    /// Starts the Python echo server and a loop for our client, runs `body`, and stops both.
    private static func withEchoServer(_ body: (SocketAddress, EventLoopGroup) async throws -> Void) async throws {
        let server = try PythonEchoServer()
        defer { server.stop() }
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        try await body(try SocketAddress(host: "127.0.0.1", port: server.port), group)
    }

    private static func options(compression: Bool) -> WebSocketClient.Options {
        var options = WebSocketClient.Options()
        options.compression = compression
        return options
    }

    /// Waits until `condition` holds, failing after `timeout` instead of hanging.
    private static func waitFor(
        _ inbox: Inbox, _ what: String, timeout: Duration = .seconds(20),
        until condition: @escaping @Sendable (Inbox) -> Bool
    ) async throws {
        let arrived = await inbox.arrival(within: timeout, until: condition)
        guard arrived else { throw InteropError("timed out after \(timeout) waiting for \(what)") }
    }

    /// Sends `messages`, waits for as many echoes (or a close), and checks they came back unchanged, in order.
    private static func expectEchoes(
        of messages: [WebSocketMessage], socket: WebSocket, inbox: Inbox,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let expected = inbox.messages.count + messages.count
        for message in messages { socket.send(message) }
        try await waitFor(inbox, "\(messages.count) echoes") { $0.messages.count >= expected || $0.close != nil }
        let close = inbox.close.map { "peer close code \($0.0.map(\.description) ?? "none") \"\($0.1)\"" }
        #expect(
            close == nil,
            """
            the connection closed before every echo arrived (no peer close code: our side failed the connection, \
            e.g. with 1009 from its own size limits)
            """, sourceLocation: sourceLocation)
        let received = Array(inbox.messages.suffix(messages.count))
        let same = received == messages
        #expect(
            same, "echoes differ: sent \(summary(messages)), got \(summary(received))", sourceLocation: sourceLocation)
    }

    /// Starts the closing handshake and waits for the peer's close frame.
    private static func close(_ socket: WebSocket, inbox: Inbox) async throws {
        socket.close()
        try await waitFor(inbox, "the close handshake") { $0.close != nil }
    }

    private static func summary(_ messages: [WebSocketMessage]) -> String {
        let parts = messages.prefix(6).map { message -> String in
            switch message {
            case .text(let text): return "text(\(text.utf8.count) B)"
            case .binary(let bytes): return "binary(\(bytes.count) B)"
            }
        }
        return "[" + parts.joined(separator: ", ") + (messages.count > 6 ? ", … \(messages.count) in all]" : "]")
    }

    /// Pseudo-random, incompressible bytes (xorshift; fast even in a debug build).
    private static func noise(count: Int, seed: UInt64) -> [UInt8] {
        var state = seed | 1
        var bytes = [UInt8](repeating: 0, count: count)
        for index in 0..<count {
            state ^= state << 13
            state ^= state >> 7
            state ^= state << 17
            bytes[index] = UInt8(truncatingIfNeeded: state)
        }
        return bytes
    }

    /// About `count` bytes of repetitive JSON-like ASCII text, exactly `count` bytes long.
    private static func jsonText(count: Int) -> String {
        var text = ""
        var index = 0
        while text.utf8.count < count {
            text += "{\"pose\":{\"x\":\(index),\"y\":\(index % 7).5},\"label\":\"frame\"}\n"
            index += 1
        }
        return String(text.utf8.prefix(count)) ?? ""
    }

    @Test(arguments: [true, false])
    func textAndBinaryRoundTrip(compression: Bool) async throws {
        try await Self.withEchoServer { address, group in
            let (socket, inbox) = try await WebSocketTests.connect(
                address, "/", options: Self.options(compression: compression), group: group)
            let messages: [WebSocketMessage] = [
                .text(""), .text("hello"), .text("κόσμε · 😀 · 𝄞"), .text(Self.jsonText(count: 50_000)),
                .binary([]), .binary([0, 1, 2, 0xFF]), .binary(Self.noise(count: 70_000, seed: 1)),
                .binary([UInt8](repeating: 7, count: 100_000)),
            ]
            try await Self.expectEchoes(of: messages, socket: socket, inbox: inbox)
            try await Self.close(socket, inbox: inbox)
        }
    }

    @Test(arguments: [true, false])
    func oneMebibyteTextMessage(compression: Bool) async throws {
        try await Self.withEchoServer { address, group in
            let (socket, inbox) = try await WebSocketTests.connect(
                address, "/", options: Self.options(compression: compression), group: group)
            let text = Self.jsonText(count: 1 << 20)
            #expect(text.utf8.count == 1 << 20)
            try await Self.expectEchoes(of: [.text(text)], socket: socket, inbox: inbox)
            try await Self.close(socket, inbox: inbox)
        }
    }

    /// Exactly 1 MiB (the default `maxMessageBytes`) of incompressible bytes. With compression the peer's deflate
    /// output is a little larger than the message (stored blocks), so the single frame carrying it exceeds 1 MiB
    /// while the message does not.
    @Test(arguments: [true, false])
    func oneMebibyteIncompressibleBinaryMessage(compression: Bool) async throws {
        try await Self.withEchoServer { address, group in
            let (socket, inbox) = try await WebSocketTests.connect(
                address, "/", options: Self.options(compression: compression), group: group)
            try await Self.expectEchoes(
                of: [.binary(Self.noise(count: 1 << 20, seed: 2))], socket: socket, inbox: inbox)
            try await Self.close(socket, inbox: inbox)
        }
    }

    @Test(arguments: [true, false])
    func manyMessagesArriveInOrder(compression: Bool) async throws {
        try await Self.withEchoServer { address, group in
            let (socket, inbox) = try await WebSocketTests.connect(
                address, "/", options: Self.options(compression: compression), group: group)
            let messages: [WebSocketMessage] = (0..<1_000).map { index in
                index % 3 == 2
                    ? .binary(Self.noise(count: index % 300, seed: UInt64(index)))
                    : .text("message \(index) " + String(repeating: "·", count: index % 200))
            }
            try await Self.expectEchoes(of: messages, socket: socket, inbox: inbox)
            try await Self.close(socket, inbox: inbox)
        }
    }

    @Test(arguments: [true, false])
    func cleanCloseHandshake(compression: Bool) async throws {
        try await Self.withEchoServer { address, group in
            let (socket, inbox) = try await WebSocketTests.connect(
                address, "/", options: Self.options(compression: compression), group: group)
            try await Self.expectEchoes(of: [.text("before close")], socket: socket, inbox: inbox)
            socket.close(code: .normal, reason: "done")
            try await Self.waitFor(inbox, "the peer's close frame") { $0.close != nil }
            let close = try #require(inbox.close)
            #expect(close.0 == .normal, "the peer answers our 1000 with 1000 (RFC 6455 §5.5.1)")
        }
    }

    @Test func applicationCloseCodeIsEchoedByThePeer() async throws {
        try await Self.withEchoServer { address, group in
            let (socket, inbox) = try await WebSocketTests.connect(address, "/", group: group)
            socket.close(code: WebSocketCloseCode(rawValue: 4000), reason: "application")
            try await Self.waitFor(inbox, "the peer's close frame") { $0.close != nil }
            let close = try #require(inbox.close)
            #expect(close.0 == WebSocketCloseCode(rawValue: 4000))
        }
    }
}
