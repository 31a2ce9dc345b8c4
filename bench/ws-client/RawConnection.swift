import LoadKit

/// The raw engine: `RawWebSocketConnection` from LoadKit, sending pre-masked frames and skipping payloads.
final class RawConnection: Connection, RawWebSocketDelegate {
    private var socket: RawWebSocketConnection?

    override func start() {
        let socket = RawWebSocketConnection(index: index, context: worker.context, delegate: self)
        self.socket = socket
        socket.start()
    }

    override func send(_ count: Int) {
        guard isOpen, let socket else { return }
        let frames = worker.frames
        for _ in 0..<count {
            socket.send(frame: frames[sentFrames & (frames.count - 1)])
            sentFrames &+= 1
        }
    }

    override func close() {
        guard isOpen else { return }
        isOpen = false
        socket?.close()
    }

    func webSocketDidOpen(_ connection: RawWebSocketConnection) {
        isOpen = true
        worker.opened(self)
    }

    func webSocketDidFail(_ connection: RawWebSocketConnection, reason: String) { worker.failed(self, reason) }

    func webSocket(
        _ connection: RawWebSocketConnection, didReceive payload: UnsafeRawBufferPointer, length: Int, text: Bool
    ) {
        worker.message(self, length: length, text: text)
    }

    func webSocketDidClose(_ connection: RawWebSocketConnection, code: Int?, reason: String) {
        isOpen = false
        worker.lost(self, code.map { "server sent close \($0)" } ?? reason)
    }

    func webSocketDidFinish(_ connection: RawWebSocketConnection) {
        isOpen = false
        socket = nil
        worker.finished(self)
    }
}
