import HTTPWire
public import MotionClient
public import NetCore
import WebSocketClient
import WebSocketCore

/// ``MotionTransport`` on Linux: the project's WebSocket client (`ws://`, and `wss://` with OpenSSL), on an event loop
/// (epoll) of its own. What the server's tests, `motion-load` and a Linux app give a ``RemoteMotionSession``.
///
/// ```swift
/// let session = try RemoteMotionSession(
///     server: "ws://127.0.0.1:8080", transport: EventLoopTransport(), exercise: .elbowFlexion, side: .right)
/// ```
public struct EventLoopTransport: MotionTransport {
    /// The loop every connection of the process runs on, unless given another (one thread, started on first use).
    private static let shared: EventLoopGroup? = try? EventLoopGroup(loops: 1, name: "motion-client")

    private let group: EventLoopGroup?

    /// A transport on the process's client loop (one thread, shared by every session).
    public init() { group = Self.shared }

    /// A transport whose connections run on the loops of `group`, in turn.
    /// - Parameter group: The loops.
    public init(group: EventLoopGroup) { self.group = group }

    /// Opens a connection with ``WebSocketClient`` (permessage-deflate offered).
    /// - Parameter request: Where, with what headers, TLS trust and timeout.
    /// - Returns: The open connection.
    /// - Throws: ``TransportError``; `system` when the process's client loop could not be started.
    public func connect(_ request: TransportRequest) async throws(TransportError) -> any TransportConnection {
        guard let group else { throw .system("cannot start the client's event loop") }
        var options = WebSocketClient.Options()
        options.timeout = request.timeout
        for (name, value) in request.headers { options.headers.add(name: name, value: value) }
        let address = request.address
        if address.isSecure {
            do {
                options.tls = try TLSContext.client(
                    certificateAuthorityFile: request.certificateAuthorityFile, verifiesPeer: request.verifiesPeer)
            } catch {
                throw .tlsFailed("\(error)")
            }
        }
        do {
            let socket = try await WebSocketClient.connect(
                host: address.host, port: address.port, path: address.path, options: options, on: group.next())
            return EventLoopConnection(socket)
        } catch {
            throw TransportError(error)
        }
    }
}

/// A ``WebSocket`` as a ``TransportConnection``: callbacks on its loop, sends queued on the loop in call order.
final class EventLoopConnection: TransportConnection {
    private let socket: WebSocket

    init(_ socket: WebSocket) { self.socket = socket }

    func start(
        onMessage: @escaping @Sendable (TransportMessage) -> Void,
        onClose: @escaping @Sendable (_ code: Int?, _ reason: String) -> Void
    ) async {
        let socket = socket
        await withCheckedContinuation { (installed: CheckedContinuation<Void, Never>) in
            socket.loop.execute {
                socket.onMessage = { view in
                    onMessage(
                        view.isText
                            ? .text(String(decoding: view.bytes, as: UTF8.self)) : .binary(Array(view.bytes)))
                }
                socket.onClose = { code, reason in onClose(code.map { Int($0.rawValue) }, reason) }
                installed.resume()
            }
        }
    }

    func send(_ message: TransportMessage) {
        // Always through the loop's queue, even on its thread: a send from a callback then leaves after those queued
        // before it by other threads.
        let socket = socket
        let frame: WebSocketMessage =
            switch message {
            case .text(let text): .text(text)
            case .binary(let bytes): .binary(bytes)
            }
        socket.loop.execute { socket.send(frame) }
    }

    func close(code: Int, reason: String) {
        socket.close(code: WebSocketCloseCode(rawValue: UInt16(clamping: code)), reason: reason)
    }
}

extension TransportError {
    /// The transport's form of the WebSocket client's error.
    init(_ error: WebSocketClient.ConnectError) {
        switch error {
        case .invalidHost(let host): self = .invalidHost(host)
        case .system(let system): self = .system("\(system)")
        case .handshakeRefused(let status, let reason): self = .handshakeRefused(status: status, reason: reason)
        case .timedOut: self = .timedOut
        case .closed: self = .closed
        case .tlsFailed(let reason): self = .tlsFailed(reason)
        }
    }
}
