import HTTPServer
import HTTPWire
import MotionWire
import SessionStore

/// The read-only observers of one session (`GET /v1/sessions/{id}/watch`), live or driven over HTTP: each gets the
/// session's `started` message and current snapshot when it joins, then every event and snapshot the session
/// sends, and is closed when the session ends. Watchers may live on other loops; sending to them is thread-safe.
struct SessionWatchers {
    private var sockets: [WebSocket] = []

    /// Whether nobody watches (the session then encodes nothing for watchers).
    var isEmpty: Bool { sockets.isEmpty }

    /// Adds a watcher and tells it which session it follows and where that session is.
    mutating func add(_ watcher: WebSocket, session: SessionCore) {
        sockets.append(watcher)
        var bytes: [UInt8] = []
        WireEncoder.encodeStarted(session: session.id.description, exercise: session.engine.exercise, into: &bytes)
        watcher.send(.text(String(decoding: bytes, as: UTF8.self)))
        bytes.removeAll(keepingCapacity: true)
        WireEncoder.encodeSnapshot(session.latestSnapshot, into: &bytes)
        watcher.send(.text(String(decoding: bytes, as: UTF8.self)), replacing: "snapshot")
    }

    mutating func remove(_ watcher: WebSocket) { sockets.removeAll { $0 === watcher } }

    /// Sends one message to every watcher; snapshots (`replacing: "snapshot"`) coalesce under backpressure.
    func send(_ bytes: [UInt8], replacing key: String?) {
        guard !sockets.isEmpty else { return }
        let text = String(decoding: bytes, as: UTF8.self)
        for watcher in sockets { watcher.send(.text(text), replacing: key) }
    }

    /// Closes every watcher: the session has ended.
    /// - Parameter status: How the session ended: watchers of a finished session are closed with 1000, those of an
    ///   abandoned one (its client vanished or went idle, or the server is shutting down) with 1001.
    mutating func closeAll(status: SessionStatus) {
        closeAll(code: status == .finished ? .normal : .goingAway, reason: "session ended")
    }

    /// Closes every watcher with `code`.
    mutating func closeAll(code: WebSocketCloseCode, reason: String) {
        for watcher in sockets { watcher.close(code: code, reason: reason) }
        sockets.removeAll()
    }
}

/// A session a watcher can follow: a live WebSocket session or one driven over HTTP.
protocol WatchableSession: Actor {
    /// Adds a read-only observer (closed at once if the session has ended).
    func addWatcher(_ watcher: WebSocket)
    /// Removes an observer that closed.
    func removeWatcher(_ watcher: WebSocket)
}
