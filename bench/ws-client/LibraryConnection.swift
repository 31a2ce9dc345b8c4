import NetCore
import WebSocketClient
import WebSocketCore

/// The library engine: `WebSocketClient` and `WebSocket`, the project's own client (modules WebSocketClient and
/// WebSocketCore).
final class LibraryConnection: Connection, @unchecked Sendable {
    // Safety: like every Connection, used only on its worker's loop thread; the connect task only hops there.
    private var socket: WebSocket?

    override func start() {
        let worker = worker
        var options = WebSocketClient.Options()
        options.tls = worker.options.target?.tls
        options.compression = worker.options.compression
        if !worker.options.compression { options.configuration.compression = nil }
        Task {
            do {
                let socket = try await WebSocketClient.connect(
                    host: worker.options.host, port: worker.options.port, path: worker.options.path,
                    options: options, on: worker.loop)
                worker.loop.execute { self.adopt(socket) }
            } catch {
                worker.loop.execute { worker.failed(self, "\(error)") }
            }
        }
    }

    private func adopt(_ socket: WebSocket) {
        self.socket = socket
        isOpen = true
        socket.onMessage = { [weak self] message in
            guard let self else { return }
            worker.message(self, length: message.bytes.count, text: message.isText)
        }
        socket.onClose = { [weak self] code, reason in
            guard let self else { return }
            if isOpen { worker.lost(self, "closed: \(code.map { "\($0.rawValue)" } ?? "no code") \(reason)") }
            isOpen = false
            worker.finished(self)
        }
        worker.opened(self)
    }

    override func send(_ count: Int) {
        guard isOpen, let socket else { return }
        for _ in 0..<count { socket.sendText(utf8: worker.payload) }
    }

    override func close() {
        guard isOpen, let socket else { return }
        isOpen = false
        socket.close()
    }
}
