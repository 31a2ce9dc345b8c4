import Basics
import HTTPServer
import HTTPWire
import MotionWire
import SessionStore

/// The read-only observers of one session (`GET /v1/sessions/{id}/watch`), live or driven over HTTP: each gets the
/// session's `started` message and current snapshot when it joins, then every event and snapshot the session
/// sends, and is closed when the session ends. Watchers may live on other loops, and on other nodes (PROTOCOL.md §8,
/// fed over the node bus by ``RemoteWatchers``); sending to them is thread-safe.
struct SessionWatchers {
    private var sockets: [WebSocket] = []
    /// The nodes whose watchers follow the session from there; shared by copies (an HTTP session sends through one).
    private var remotes: RemoteWatchers?

    /// Whether nobody watches (the session then encodes nothing for watchers).
    var isEmpty: Bool { sockets.isEmpty && (remotes?.isEmpty ?? true) }

    /// Adds a watcher and tells it which session it follows and where that session is.
    mutating func add(_ watcher: WebSocket, session: SessionCore) {
        sockets.append(watcher)
        let (started, snapshot) = Self.greeting(session)
        watcher.send(.text(String(decoding: started, as: UTF8.self)))
        watcher.send(.text(String(decoding: snapshot, as: UTF8.self)), replacing: "snapshot")
    }

    mutating func remove(_ watcher: WebSocket) { sockets.removeAll { $0 === watcher } }

    /// Adds (or renews the lease of) another node's watchers of the session: a new node is greeted like a watcher.
    mutating func addRemote(_ node: String, session: SessionCore, cluster: ClusterNode) {
        let remotes = self.remotes ?? RemoteWatchers(session: session.id, cluster: cluster)
        self.remotes = remotes
        guard remotes.subscribe(node) else { return }
        let (started, snapshot) = Self.greeting(session)
        remotes.send(started, replacing: nil, to: node)
        remotes.send(snapshot, replacing: "snapshot", to: node)
    }

    /// Removes another node's watchers.
    func removeRemote(_ node: String) { remotes?.unsubscribe(node) }

    /// Sends one message to every watcher; snapshots (`replacing: "snapshot"`) coalesce under backpressure, and
    /// reach other nodes at most ten times a second.
    func send(_ bytes: [UInt8], replacing key: String?) {
        remotes?.send(bytes, replacing: key)
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
        remotes?.end(code: code)
    }

    /// The session moves to another node: the other nodes' watchers are told to look for it there (at `node` when
    /// it is known), and this node's watchers are handed back to follow it.
    /// - Returns: This node's watchers.
    mutating func move(to node: String?) -> [WebSocket] {
        remotes?.moved(to: node)
        defer { sockets.removeAll() }
        return sockets
    }

    /// The `started` message and current snapshot a new watcher gets first.
    private static func greeting(_ session: SessionCore) -> (started: [UInt8], snapshot: [UInt8]) {
        var started: [UInt8] = []
        WireEncoder.encodeStarted(session: session.id.description, exercise: session.engine.exercise, into: &started)
        var snapshot: [UInt8] = []
        WireEncoder.encodeSnapshot(session.latestSnapshot, into: &snapshot)
        return (started, snapshot)
    }
}

/// The nodes whose watchers follow one session held here (PROTOCOL.md §8): each subscribed with `watch` and renews
/// it; what the session sends its watchers goes to each node over the bus (snapshots at most every 100 ms, events
/// all), and a node that stops renewing is dropped after ``lease``.
final class RemoteWatchers: Sendable {
    /// How long a subscription lasts without renewal (watching nodes renew every ``FollowedSessions/renewal``).
    static let lease: UInt64 = 30_000_000_000
    /// The shortest time between two snapshots sent to one node.
    static let snapshotInterval: UInt64 = 100_000_000

    let session: SessionID
    let cluster: ClusterNode
    private let nodes = Locked<[String: (expires: UInt64, lastSnapshot: UInt64)]>([:])

    init(session: SessionID, cluster: ClusterNode) {
        self.session = session
        self.cluster = cluster
    }

    /// Whether no node subscribes (expired subscriptions are dropped).
    var isEmpty: Bool {
        let now = MonotonicClock.nanoseconds()
        return nodes.withLock { nodes in
            nodes = nodes.filter { $0.value.expires > now }
            return nodes.isEmpty
        }
    }

    /// Subscribes `node`, or renews its subscription.
    /// - Returns: Whether it is new.
    func subscribe(_ node: String) -> Bool {
        let expires = MonotonicClock.nanoseconds() + Self.lease
        return nodes.withLock { nodes in
            if nodes[node] != nil {
                nodes[node]?.expires = expires
                return false
            }
            nodes[node] = (expires, 0)
            return true
        }
    }

    func unsubscribe(_ node: String) { _ = nodes.withLock { $0.removeValue(forKey: node) } }

    /// Sends a watcher message to every subscribed node (or to `only`).
    func send(_ bytes: [UInt8], replacing key: String?, to only: String? = nil) {
        let now = MonotonicClock.nanoseconds()
        let snapshot = key == "snapshot"
        let targets = nodes.withLock { nodes -> [String] in
            var targets: [String] = []
            for (node, state) in nodes where only == nil || only == node {
                guard state.expires > now else {
                    nodes[node] = nil
                    continue
                }
                if snapshot {
                    guard only != nil || now - state.lastSnapshot >= Self.snapshotInterval else { continue }
                    nodes[node]?.lastSnapshot = now
                }
                targets.append(node)
            }
            return targets
        }
        guard !targets.isEmpty else { return }
        let message = ClusterMessage.watched(session, snapshot: snapshot, text: String(decoding: bytes, as: UTF8.self))
        for node in targets { cluster.send(message, to: node) }
    }

    /// The session ended: every node closes its watchers with `code`.
    func end(code: WebSocketCloseCode) {
        for node in take() { cluster.send(.ended(session, code: code.rawValue), to: node) }
    }

    /// The session moves (to `holder` when it is known): every node looks for it there.
    func moved(to holder: String?) {
        for node in take() { cluster.send(.moved(session, to: holder), to: node) }
    }

    private func take() -> [String] {
        nodes.withLock { nodes in
            defer { nodes.removeAll() }
            return Array(nodes.keys)
        }
    }
}

/// A session a watcher can follow: a live WebSocket session or one driven over HTTP.
protocol WatchableSession: Actor {
    /// Adds a read-only observer (closed at once if the session has ended; once it is here if it is arriving).
    func addWatcher(_ watcher: WebSocket) async
    /// Removes an observer that closed.
    func removeWatcher(_ watcher: WebSocket)
    /// Adds, or renews, another node's watchers (PROTOCOL.md §8).
    /// - Returns: False when the session has ended or moved on.
    func addRemoteWatcher(node: String) async -> Bool
    /// Removes another node's watchers.
    func removeRemoteWatcher(node: String)
}
