import Foundation
import Glibc
import HTTPServer

/// A TCP relay between a client and a server on loopback that a test can cut: every open connection is torn down
/// at once (no WebSocket close, as when a phone's network drops), and later connections are relayed again.
final class TCPRelay: @unchecked Sendable {
    // Safety: `sockets` is guarded by `lock`; the rest is immutable after init.
    let port: UInt16
    private let listener: Int32
    private let target: UInt16
    private let lock = NSLock()
    private var sockets: Set<Int32> = []
    private var closed = false

    /// Listens on a free loopback port and relays every connection to `127.0.0.1:target`.
    init(to target: UInt16) throws {
        self.target = target
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 16) == 0 else { throw SystemError(call: "bind", code: errno) }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        self.listener = listener
        port = UInt16(bigEndian: address.sin_port)
        Thread { [self] in acceptLoop() }.start()
    }

    /// The relay's `ws://` URL.
    var url: String { "ws://127.0.0.1:\(port)" }

    private func acceptLoop() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else {
                // Closed by this thread only, so no later accept can reach a number another socket has taken.
                Glibc.close(listener)
                return
            }
            guard let upstream = Self.connect(to: target) else {
                Glibc.close(client)
                continue
            }
            lock.withLock {
                sockets.insert(client)
                sockets.insert(upstream)
            }
            Thread { [self] in pump(from: client, to: upstream) }.start()
            Thread { [self] in pump(from: upstream, to: client) }.start()
        }
    }

    /// A blocking connection to `127.0.0.1:port`, or nil.
    private static func connect(to port: UInt16) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            Glibc.close(fd)
            return nil
        }
        return fd
    }

    private func pump(from source: Int32, to destination: Int32) {
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            var offset = 0
            while offset < count {
                let sent = buffer[offset..<count].withUnsafeBytes {
                    send(destination, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL))
                }
                guard sent > 0 else { break }
                offset += sent
            }
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(destination, Int32(SHUT_RDWR))
    }

    /// Tears down every relayed connection: both ends see the stream end, without a WebSocket close.
    func cut() {
        lock.withLock {
            for fd in sockets { shutdown(fd, Int32(SHUT_RDWR)) }
        }
    }

    /// Stops listening (the accept loop then closes the socket) and tears everything down.
    func close() {
        cut()
        shutdown(listener, Int32(SHUT_RDWR))
    }
}
