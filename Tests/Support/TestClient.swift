import Foundation
import Glibc
public import HTTPServer
import HTTPWire

/// A blocking socket client for tests: sends raw bytes, reads raw responses with a timeout; over TLS when given a
/// client context.
public final class TestClient {
    /// The socket; -1 once closed.
    public private(set) var fd: Int32
    /// TLS over the socket, once its handshake is done.
    package private(set) var tls: TLSStream?

    /// Why a TLS handshake failed.
    public struct HandshakeFailed: Error, CustomStringConvertible {
        /// OpenSSL's reason.
        public var description: String
    }

    /// Connects to `address` (from the host `bindTo`, e.g. `127.0.0.2`, when given); reads time out after
    /// `timeoutSeconds`; `receiveBufferSize` fixes the receive buffer; with `tls`, the TLS handshake follows
    /// (verifying `serverName` when the context verifies).
    public init(
        _ address: SocketAddress, timeoutSeconds: Int = 15, receiveBufferSize: Int32? = nil, tls: TLSContext? = nil,
        serverName: String = "localhost", bindTo source: String? = nil
    ) throws {
        fd = try Socket.connect(
            to: address, receiveBufferSize: receiveBufferSize,
            from: try source.map { try SocketAddress(host: $0, port: 0) })
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        if let tls {
            guard let stream = tls.makeStream(fd: fd, serverName: serverName) else {
                throw HandshakeFailed(description: "cannot create a TLS connection")
            }
            if case .failed(let reason) = stream.handshake() { throw HandshakeFailed(description: reason) }
            self.tls = stream
        }
    }

    /// Reads into `buffer` (blocking): the count, 0 at the end of the stream, -1 on error or timeout.
    private func receive(into buffer: UnsafeMutableRawBufferPointer) -> Int {
        guard let tls else { return recv(fd, buffer.baseAddress, buffer.count, 0) }
        switch tls.receive(into: buffer) {
        case .transferred(let count): return count
        case .endOfStream: return 0
        case .wouldBlock, .failed: return -1
        }
    }

    /// Writes from `bytes` (blocking): the count taken, or 0 or less on error.
    private func transmit(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard let tls else { return Glibc.send(fd, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }
        switch tls.send(bytes) {
        case .transferred(let count): return count
        default: return -1
        }
    }

    deinit { close() }

    /// Closes the socket (once: a second `close` of a number the process has since reused for another socket
    /// would close that one).
    public func close() {
        guard fd >= 0 else { return }
        Glibc.close(fd)
        fd = -1
    }

    /// Sends text as UTF-8.
    public func send(_ text: String) { send(Array(text.utf8)) }

    /// Half-closes the connection: the peer reads the end of the stream after what was sent.
    public func shutdownWrite() { _ = shutdown(fd, Int32(SHUT_WR)) }

    /// Sends bytes.
    public func send(_ bytes: [UInt8]) {
        var offset = 0
        while offset < bytes.count {
            let count = bytes[offset...].withUnsafeBytes { transmit($0) }
            guard count > 0 else { return }
            offset += count
        }
    }

    /// Sends bytes a chunk at a time, each once fewer than `outstanding` bytes wait in the socket's send queue (sent
    /// but not acknowledged, or not sent yet), for at most `timeoutSeconds` in all. A flood sent this way arrives
    /// as fast as the peer takes it, without overrunning loopback's queues: a blocking send of megabytes to a busy
    /// receiver can end in lost segments and retransmission timers backed off to minutes.
    /// - Returns: Whether every byte was sent in time.
    @discardableResult
    public func sendPaced(_ bytes: [UInt8], outstanding: Int = 256 * 1024, timeoutSeconds: Double = 60) -> Bool {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        var offset = 0
        while offset < bytes.count {
            var queued: Int32 = 0
            while ioctl(fd, UInt(TIOCOUTQ), &queued) == 0, Int(queued) >= outstanding {
                guard Date() < deadline else { return false }
                usleep(1000)
            }
            let end = min(bytes.count, offset + outstanding / 4)
            let count = bytes[offset..<end].withUnsafeBytes { transmit($0) }
            guard count > 0 else { return false }
            offset += count
        }
        return true
    }

    /// Waits until what the kernel holds for this client to read (`FIONREAD`) has stopped growing: the same count
    /// over five samples 10 ms apart, or `timeoutSeconds`. A peer's flood reaches a client that does not read over
    /// loopback in real time, however a test's manual clock moves: a peer that waits for that delivery to end sees no
    /// progress afterwards.
    /// - Returns: The count it settled at, nil if it kept changing.
    @discardableResult
    public func waitUntilReceiveQueueSettles(timeoutSeconds: Double = 10) -> Int? {
        let deadline = Date().addingTimeInterval(timeoutSeconds)
        var (last, same): (Int32, Int) = (-1, 0)
        while Date() < deadline {
            var available: Int32 = 0
            guard ioctl(fd, UInt(FIONREAD), &available) == 0 else { return nil }
            same = available == last ? same + 1 : 0
            if same == 4 { return Int(available) }
            last = available
            usleep(10_000)
        }
        return nil
    }

    /// Reads until the peer closes or the timeout passes.
    public func readToEnd() -> [UInt8] {
        var all = pending
        pending = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { receive(into: $0) }
            guard count > 0 else { return all }
            all += buffer[0..<count]
        }
    }

    private var pending: [UInt8] = []

    /// Reads one response (Content-Length or chunked framing, or up to close), or nil on timeout/close first.
    public func readResponse(method: String = "GET") -> TestResponse? {
        while true {
            if let (response, used) = TestResponse.parse(pending, method: method) {
                pending.removeFirst(used)
                return response
            }
            var buffer = [UInt8](repeating: 0, count: 65536)
            let count = buffer.withUnsafeMutableBytes { receive(into: $0) }
            guard count > 0 else {
                return pending.isEmpty ? nil : TestResponse.parse(pending, method: method, atEOF: true)?.0
            }
            pending += buffer[0..<count]
        }
    }

    /// Whether the server closed the connection (a read returns 0) within the timeout.
    public func isClosedByPeer() -> Bool {
        var byte: UInt8 = 0
        return withUnsafeMutableBytes(of: &byte) { receive(into: $0) } == 0
    }
}

/// A response read by ``TestClient``.
public struct TestResponse: Sendable {
    /// The status code.
    public var status: Int
    /// The header fields, in order.
    public var headers: [(String, String)]
    /// The body, de-chunked.
    public var body: [UInt8]

    /// The first value of header `name`.
    public func header(_ name: String) -> String? { headers.first { $0.0.lowercased() == name.lowercased() }?.1 }
    /// The body as UTF-8 text.
    public var text: String { String(decoding: body, as: UTF8.self) }

    static func parse(_ bytes: [UInt8], method: String, atEOF: Bool = false) -> (TestResponse, Int)? {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = bytes.indices.first(where: { bytes[$0...].starts(with: separator) }) else { return nil }
        let lines = String(decoding: bytes[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        guard let statusLine = lines.first, statusLine.count >= 12, let status = Int(statusLine.dropFirst(9).prefix(3))
        else { return nil }
        let headers = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = TestResponse(status: status, headers: headers, body: [])
        let bodyStart = end + 4
        if method == "HEAD" || status == 204 || status == 304 || (100..<200).contains(status) {
            return (response, bodyStart)
        }
        if response.header("Transfer-Encoding")?.lowercased() == "chunked" {
            var index = bodyStart
            while true {
                guard let lineEnd = bytes[index...].indices.first(where: { bytes[$0...].starts(with: [13, 10]) })
                else { return nil }
                let sizeText = String(decoding: bytes[index..<lineEnd], as: UTF8.self).split(separator: ";")[0]
                guard let size = Int(sizeText, radix: 16) else { return nil }
                index = lineEnd + 2
                if size == 0 {
                    guard bytes.count >= index + 2 else { return nil }
                    return (response, index + 2)
                }
                guard bytes.count >= index + size + 2 else { return nil }
                response.body += bytes[index..<index + size]
                index += size + 2
            }
        }
        if let length = response.header("Content-Length").flatMap({ Int($0) }) {
            guard bytes.count >= bodyStart + length else { return nil }
            response.body = Array(bytes[bodyStart..<bodyStart + length])
            return (response, bodyStart + length)
        }
        guard atEOF else { return nil }
        response.body = Array(bytes[bodyStart...])
        return (response, bytes.count)
    }
}

extension TestClient {
    /// Reads and drops what arrives until the server ends the connection, by a close or a reset: true then, false
    /// when the read timeout passes first.
    public func waitForClose() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if count > 0 { continue }
            return count == 0 || errno == ECONNRESET
        }
    }

    /// Whether the connection is open with nothing to read, right now (no waiting): what a test checks before a
    /// deadline on a ``ManualClock`` has passed.
    public func isOpenWithNothingToRead() -> Bool {
        var byte: UInt8 = 0
        let count = recv(fd, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)
    }

    /// Reads whatever is available (blocking up to the timeout); empty at close or timeout.
    public func readSome() -> [UInt8] {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { receive(into: $0) }
        return count > 0 ? Array(buffer[0..<count]) : []
    }
}

/// Runs blocking work (a ``TestClient``'s reads) on a thread of its own and waits for it without holding a thread of
/// the concurrency pool: on two cores the pool has two threads, and a test blocked in `recv` on one of them can
/// starve the server tasks it is waiting for.
/// - Parameter work: The blocking work.
/// - Returns: What it returned.
/// - Throws: What it threw.
public func offPool<T: Sendable>(_ work: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread { continuation.resume(with: Result { try work() }) }.start()
    }
}
