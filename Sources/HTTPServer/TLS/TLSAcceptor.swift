import Glibc
import HTTPWire

/// The TLS handshake of one accepted connection, on its loop, before HTTP begins: non-blocking, driven by socket
/// readiness, bounded by ``HTTPServerConfiguration/headTimeout`` (a client that stalls, or trickles, its handshake is
/// closed then). Once done, the connection becomes an ``HTTPConnection`` over the TLS stream.
///
/// A client that speaks plain HTTP to the TLS port is answered in plain HTTP, `400` saying so (as nginx does), and
/// closed; bytes that are neither are left to OpenSSL, which refuses them, and the connection closes.
final class TLSAcceptor: EventLoopHandler, ServerConnection, @unchecked Sendable {
    // Safety: used only on `loop`'s thread after `start()`, like the HTTP connection it becomes.
    private enum Phase {
        /// No byte seen yet: the first one says TLS or plain HTTP.
        case waiting
        case handshaking(TLSStream)
        /// Answering plain HTTP: the response has been written, the write side shut; input is dropped until the
        /// client closes or the lingering time ends.
        case refusing
        case finished
    }

    let fd: Int32
    let loop: EventLoop
    private let server: ServerContext
    private let context: TLSContext
    private let remote: SocketAddress?
    /// What the connection holds of the server's connection bounds until it closes.
    private let slot: ConnectionAdmission.Slot
    private var phase = Phase.waiting
    private var timer: LoopTimer?
    private var discarded = 0

    init(
        fd: Int32, loop: EventLoop, server: ServerContext, context: TLSContext, remote: SocketAddress?,
        slot: ConnectionAdmission.Slot
    ) {
        self.fd = fd
        self.loop = loop
        self.server = server
        self.context = context
        self.remote = remote
        self.slot = slot
    }

    func start() {
        do {
            try loop.register(fd, for: [.readable, .readHangup], handler: self)
        } catch {
            server.logger.log(.warning, "cannot register connection", ["error": "\(error)"])
            return finish(registered: false)
        }
        server.registry(for: loop).insert(self)
        timer = loop.schedule(after: server.configuration.headTimeout) { [self] in
            if case .refusing = phase {
                finish()
            } else {
                server.logger.log(.info, "TLS handshake timed out", ["remote": remote?.description ?? "-"])
                finish()
            }
        }
    }

    func handle(_ events: IOEvents) {
        switch phase {
        case .waiting:
            if events.contains(.error) || events.contains(.hangup) { return finish() }
            inspectFirstByte()
        case .handshaking(let stream):
            if events.contains(.error) { return finish() }
            advance(stream)
        case .refusing:
            discardInput()
        case .finished:
            break
        }
    }

    /// TLS begins with a handshake record (content type 22, RFC 8446 §5.1); an HTTP request with a method's
    /// capital letter.
    private func inspectFirstByte() {
        var first: UInt8 = 0
        let count = recv(fd, &first, 1, Int32(MSG_PEEK))
        if count == 0 { return finish() }
        guard count == 1 else {
            let error = errno
            if error == EAGAIN || error == EWOULDBLOCK || error == EINTR { return }
            return finish()
        }
        if first >= UInt8(ascii: "A") && first <= UInt8(ascii: "Z") { return refusePlainHTTP() }
        guard let stream = context.makeStream(fd: fd) else {
            server.logger.log(.error, "cannot create a TLS connection")
            return finish()
        }
        phase = .handshaking(stream)
        advance(stream)
    }

    private func advance(_ stream: TLSStream) {
        switch stream.handshake() {
        case .done:
            loop.cancel(timer)
            timer = nil
            phase = .finished
            loop.deregister(fd)
            server.registry(for: loop).remove(self)
            // The fields are built only when they are written (a handshake is a hot path too).
            if server.logger.level <= .debug {
                server.logger.log(
                    .debug, "TLS handshake",
                    [
                        "version": stream.protocolVersion, "alpn": stream.applicationProtocol ?? "-",
                        "resumed": "\(stream.resumedSession)", "remote": remote?.description ?? "-",
                    ])
            }
            HTTPConnection(
                transport: Transport(fd: fd, tls: stream), loop: loop, server: server, remote: remote, slot: slot
            )
            .start()
        case .wantsRead:
            loop.modify(fd, for: [.readable, .readHangup])
        case .wantsWrite:
            loop.modify(fd, for: [.writable])
        case .failed(let reason):
            server.logger.log(.info, "TLS handshake failed", ["reason": reason, "remote": remote?.description ?? "-"])
            finish()
        }
    }

    /// Answers `400` in plain HTTP and closes after a short lingering time, so the answer is read, not reset.
    private func refusePlainHTTP() {
        phase = .refusing
        discardInput()
        guard case .refusing = phase else { return }
        server.metrics.responded(400)
        server.logger.log(.info, "plain HTTP on the TLS port", ["remote": remote?.description ?? "-"])
        var response = server.configuration.errorRenderer.response(
            for: HTTPError(
                .badRequest, code: "plainHTTPOnTLSPort",
                message: "this port speaks HTTPS: the plain HTTP request was sent to the HTTPS port"))
        response.headers.replaceOrAdd(name: "Connection", value: "close")
        var bytes: [UInt8] = []
        let body: [UInt8]
        if case .bytes(let content) = response.body { body = content } else { body = [] }
        try? HTTPResponseWriter.write(
            HTTPResponseHead(status: response.status, headers: response.headers), body: body,
            date: server.date(for: loop), into: &bytes)
        // A few hundred bytes into an empty send buffer: taken whole, or the client is gone.
        _ = bytes.withUnsafeBytes { Socket.send(fd, $0) }
        Glibc.shutdown(fd, Int32(SHUT_WR))
        loop.cancel(timer)
        timer = loop.schedule(after: server.configuration.lingeringTimeout) { [self] in finish() }
    }

    private func discardInput() {
        let buffer = loop.readBuffer
        while true {
            switch Socket.receive(fd, into: buffer.bytes) {
            case .transferred(let count):
                discarded += count
                if discarded > server.configuration.maxLingeringBytes { return finish() }
            case .wouldBlock:
                return
            case .endOfStream, .failed:
                return finish()
            }
        }
    }

    private func finish(registered: Bool = true) {
        if case .finished = phase { return }
        phase = .finished
        loop.cancel(timer)
        timer = nil
        if registered {
            loop.deregister(fd)
            server.registry(for: loop).remove(self)
        }
        // Counted first: whoever sees the socket close sees the count without it.
        server.closed(slot)
        Glibc.close(fd)
    }

    // MARK: ServerConnection

    func drain() { finish() }

    func closeNow() { finish() }
}
