import CNetShim
import Glibc

/// A listening socket on one loop: accepts until the kernel queue is empty and hands each socket to a
/// new ``HTTPConnection`` on the same loop.
final class Listener: EventLoopHandler, @unchecked Sendable {
    // Safety: used only on `loop`'s thread after `start()`.
    let fd: Int32
    let loop: EventLoop
    private let server: ServerContext
    private var isOpen = true

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
        while isOpen {
            let (client, error, peer) = Socket.accept(fd)
            guard client >= 0 else {
                if error == EINTR || error == ECONNABORTED { continue }
                if error == EMFILE || error == ENFILE {
                    server.logger.log(.warning, "out of file descriptors; accept paused")
                }
                return
            }
            guard server.metrics.admit(limit: server.configuration.maxConnections), !server.isDraining else {
                server.metrics.refusedConnection()
                refuse(client)
                continue
            }
            Socket.setNoDelay(client)
            if let tls = server.configuration.tls {
                TLSAcceptor(fd: client, loop: loop, server: server, context: tls, remote: peer).start()
            } else {
                HTTPConnection(transport: .plain(client), loop: loop, server: server, remote: peer).start()
            }
        }
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
        guard isOpen else { return }
        isOpen = false
        loop.deregister(fd)
        Glibc.close(fd)
    }
}
