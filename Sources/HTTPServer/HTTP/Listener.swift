import CNetShim
import Glibc

/// A listening socket on one loop: accepts until the kernel queue is empty and hands each socket to a new
/// ``HTTPConnection`` (or ``TLSAcceptor``) on the same loop, or refuses it past the server's bounds
/// (``ConnectionAdmission``).
///
/// Accepting is a state, not a retry: out of file descriptors (`EMFILE`, `ENFILE`), the listener stops asking the
/// loop about its socket (under level-triggered epoll the waiting connection would wake it again at once, spinning a
/// core) and tries again after ``retryDelay``; the warning is written at most once per ``warningInterval``, with the
/// number of pauses since the last one.
final class Listener: EventLoopHandler, @unchecked Sendable {
    // Safety: used only on `loop`'s thread after `start()`.
    let fd: Int32
    let loop: EventLoop
    private let server: ServerContext
    private var state = State.accepting
    /// The pauses for want of descriptors not yet reported, and when the last report was written.
    private var unreported = 0
    private var reportedAt: UInt64?

    private enum State {
        /// Registered for readability: every waiting connection is accepted (or refused).
        case accepting
        /// Out of descriptors: not registered for readability until the timer tries again.
        case paused(LoopTimer)
        /// Closed: the server is shutting down.
        case closed
    }

    /// How long a listener out of descriptors waits before it tries again.
    static let retryDelay: Duration = .milliseconds(100)
    /// The least time between two warnings that descriptors ran out.
    static let warningInterval: UInt64 = 1_000_000_000

    init(fd: Int32, loop: EventLoop, server: ServerContext) {
        self.fd = fd
        self.loop = loop
        self.server = server
    }

    func start() {
        loop.execute { [self] in
            do {
                try loop.register(fd, for: .readable, handler: self)
            } catch {
                server.logger.log(.error, "cannot register listener", ["error": "\(error)"])
            }
        }
    }

    func handle(_ events: IOEvents) {
        while case .accepting = state {
            let (client, error, peer) = Socket.accept(fd)
            guard client >= 0 else {
                if error == EINTR || error == ECONNABORTED { continue }
                if error == EMFILE || error == ENFILE { pause() }
                return
            }
            guard !server.isDraining else {
                server.metrics.refusedConnection()
                refuse(client)
                continue
            }
            switch server.admission.admit(peer) {
            case .failure:
                server.metrics.refusedConnection()
                refuse(client)
            case .success(let slot):
                server.metrics.openedConnection()
                Socket.setNoDelay(client)
                Socket.limitUnsent(client, to: server.configuration.budget.kernelUnsentBytes)
                if let tls = server.configuration.tls {
                    TLSAcceptor(fd: client, loop: loop, server: server, context: tls, remote: peer, slot: slot).start()
                } else {
                    HTTPConnection(transport: .plain(client), loop: loop, server: server, remote: peer, slot: slot)
                        .start()
                }
            }
        }
    }

    /// Stops accepting until ``retryDelay`` has passed: the connections waiting stay in the kernel's queue.
    private func pause() {
        loop.modify(fd, for: [])
        state = .paused(loop.schedule(after: Self.retryDelay) { [self] in resume() })
        unreported += 1
        let now = loop.now()
        if let reportedAt, now &- reportedAt < Self.warningInterval { return }
        reportedAt = now
        server.logger.log(
            .warning, "out of file descriptors; accept paused",
            ["pauses": "\(unreported)", "open": "\(server.admission.count)"])
        unreported = 0
    }

    private func resume() {
        guard case .paused = state else { return }
        state = .accepting
        loop.modify(fd, for: .readable)
    }

    /// Answers `503` without reading the request, then closes: cheap, and the loop keeps serving others. On a TLS port
    /// plain text would read as a broken handshake, and a TLS answer costs a handshake, so the connection just closes.
    private func refuse(_ client: Int32) {
        guard server.configuration.tls == nil else {
            Glibc.close(client)
            return
        }
        let response =
            "HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\nRetry-After: 1\r\n\r\n"
        _ = response.utf8CString.withUnsafeBufferPointer { write(client, $0.baseAddress, $0.count - 1) }
        Glibc.close(client)
    }

    func close() {
        if case .paused(let timer) = state { loop.cancel(timer) }
        guard !isClosed else { return }
        state = .closed
        loop.deregister(fd)
        Glibc.close(fd)
    }

    private var isClosed: Bool {
        if case .closed = state { return true }
        return false
    }
}
