import Basics
import HTTPServer
import HTTPWire
import MotionCore
import MotionWire
import SessionStore

/// The read-only observers of one session (`GET /v1/sessions/{id}/watch`), live or driven over HTTP: each gets the
/// session's `started` message and current snapshot when it joins, then every event and snapshot the session
/// sends, and is closed when the session ends. Watchers may live on other loops, and on other nodes (docs/protocol.md §8,
/// fed over the node bus by ``RemoteWatchers``); sending to them is thread-safe.
///
/// Watchers that asked for poses (``WatchOptions``) also get the patient's poses, at most 15 a second
/// (``WatchThrottle``); while none asks, poses are not even encoded. Those that asked for motion get the phone's
/// motion samples the same way, at most 30 a second, in one `motion` message per message of the client's.
struct SessionWatchers {
    /// A watcher on this node and what it asked for.
    private struct Watcher {
        let socket: WebSocket
        let options: WatchOptions
    }

    private var watchers: [Watcher] = []
    /// How many of ``watchers`` asked for poses.
    private var poseWatchers = 0
    /// How many of ``watchers`` asked for motion samples.
    private var motionWatchers = 0
    private var poseThrottle = WatchThrottle.poses
    private var motionThrottle = WatchThrottle.motion
    /// The motion samples admitted since the last ``sendMotion()``.
    private var motion: [MotionSample] = []
    /// The nodes whose watchers follow the session from there; shared by copies (an HTTP session sends through one).
    private var remotes: RemoteWatchers?
    /// How the session ended, for watchers that come after (a watcher handed over as the session moved, one that
    /// asked as it stopped): the `summary` message the others got, when it finished, and the close code.
    private var ending: (summary: [UInt8]?, code: WebSocketCloseCode)?

    /// Whether nobody watches (the session then encodes nothing for watchers).
    var isEmpty: Bool { watchers.isEmpty && (remotes?.isEmpty ?? true) }

    /// Adds a watcher, with the options of its request, and tells it which session it follows and where that
    /// session is. Once the session has ended, the watcher is told how (its last snapshot, the summary when it
    /// finished) and closed as the others were.
    mutating func add(_ watcher: WebSocket, session: SessionCore) {
        let (started, snapshot) = Self.greeting(session)
        watcher.send(.text(String(decoding: started, as: UTF8.self)))
        watcher.send(.text(String(decoding: snapshot, as: UTF8.self)), replacing: "snapshot")
        if let ending {
            if let summary = ending.summary { watcher.send(.text(String(decoding: summary, as: UTF8.self))) }
            return watcher.close(code: ending.code, reason: "session ended")
        }
        let options = watcher.watchOptions
        watchers.append(Watcher(socket: watcher, options: options))
        if options.poses { poseWatchers += 1 }
        if options.motion { motionWatchers += 1 }
    }

    mutating func remove(_ watcher: WebSocket) {
        guard let index = watchers.firstIndex(where: { $0.socket === watcher }) else { return }
        let options = watchers.remove(at: index).options
        if options.poses { poseWatchers -= 1 }
        if options.motion { motionWatchers -= 1 }
    }

    /// Adds (or renews the lease of) another node's watchers of the session: a new node is greeted like a watcher.
    /// - Parameter wants: The streams that node's watchers want too (renewing those wishes); one not asked for is
    ///   left as it was (``stopRemote(_:node:)`` ends it).
    /// Once the session has ended, the node's watchers get the summary (when it finished) and are closed.
    mutating func addRemote(
        _ node: String, wants: WatchOptions = WatchOptions(), session: SessionCore, cluster: ClusterNode
    ) {
        if let ending {
            if let summary = ending.summary {
                let text = String(decoding: summary, as: UTF8.self)
                cluster.send(.watched(session.id, kind: .message, text: text), to: node)
            }
            return cluster.send(.ended(session.id, code: ending.code.rawValue), to: node)
        }
        let remotes = self.remotes ?? RemoteWatchers(session: session.id, cluster: cluster)
        self.remotes = remotes
        guard remotes.subscribe(node, wants: wants) else { return }
        let (started, snapshot) = Self.greeting(session)
        remotes.send(started, replacing: nil, to: node)
        remotes.send(snapshot, replacing: "snapshot", to: node)
    }

    /// Removes another node's watchers.
    func removeRemote(_ node: String) { remotes?.unsubscribe(node) }

    /// Another node's watchers no longer want `stream` (they still get the rest).
    func stopRemote(_ stream: WatchedStream, node: String) { remotes?.stop(stream, node: node) }

    /// Sends one message to every watcher; snapshots (`replacing: "snapshot"`) coalesce under backpressure, and
    /// reach other nodes at most ten times a second.
    func send(_ bytes: [UInt8], replacing key: String?) {
        remotes?.send(bytes, replacing: key)
        guard !watchers.isEmpty else { return }
        let text = String(decoding: bytes, as: UTF8.self)
        for watcher in watchers { watcher.socket.send(.text(text), replacing: key) }
    }

    /// Sends a processed pose as a `pose` message to the watchers that asked for poses, here and on other nodes,
    /// unless the throttle drops it. Nothing is encoded while none asked.
    ///
    /// The message is the pose as a client sends it in the `joints` format (docs/protocol.md §3), after the server's
    /// conversion: image pixels, y down, anatomical sides, coordinates and confidences to one decimal. A pose not yet
    /// written to a slow watcher when the next one comes is replaced by it (`replacing: "pose"`).
    mutating func offer(_ pose: Pose) {
        guard poseWatchers > 0 || remotes?.wants(.poses) == true, poseThrottle.admits(pose.timestamp) else { return }
        var bytes: [UInt8] = []
        WireEncoder.encodePose(pose, decimals: 1, into: &bytes)
        remotes?.send(bytes, replacing: WatchedKind.pose.replacing)
        guard poseWatchers > 0 else { return }
        let text = String(decoding: bytes, as: UTF8.self)
        for watcher in watchers where watcher.options.poses {
            watcher.socket.send(.text(text), replacing: WatchedKind.pose.replacing)
        }
    }

    /// Keeps a motion sample the session took for the watchers that asked for motion, unless the throttle drops it;
    /// ``sendMotion()`` sends those kept. Nothing is kept while none asked.
    mutating func offer(_ sample: MotionSample) {
        guard motionWatchers > 0 || remotes?.wants(.motion) == true, motionThrottle.admits(sample.t) else { return }
        motion.append(sample)
    }

    /// Sends the motion samples kept since the last call as one `motion` message, in the form a client sends it
    /// (docs/protocol.md §3.3), to the watchers that asked for motion, here and on other nodes. A message not yet
    /// written to a slow watcher when the next one comes is replaced by it (`replacing: "motion"`): the watcher
    /// misses those samples, the session never waits for it.
    mutating func sendMotion() {
        guard !motion.isEmpty else { return }
        defer { motion.removeAll(keepingCapacity: true) }
        var bytes: [UInt8] = []
        WireEncoder.encodeMotion(motion, into: &bytes)
        remotes?.send(bytes, replacing: WatchedKind.motion.replacing)
        guard motionWatchers > 0 else { return }
        let text = String(decoding: bytes, as: UTF8.self)
        for watcher in watchers where watcher.options.motion {
            watcher.socket.send(.text(text), replacing: WatchedKind.motion.replacing)
        }
    }

    /// Closes every watcher, here and on other nodes: the session has ended. Watchers that come later are told the
    /// same (``add(_:session:)``).
    /// - Parameters:
    ///   - status: How the session ended: watchers of a finished session are closed with 1000, those of an
    ///     abandoned one (its client vanished or went idle, or the server is shutting down) with 1001.
    ///   - summary: The `summary` message the watchers were sent (after `stop`).
    ///   - stored: Whether the session's end was stored; watchers of one that was not are closed with 1011, as its
    ///     client is (docs/protocol.md §3).
    mutating func closeAll(status: SessionStatus, summary: [UInt8]?, stored: Bool = true) {
        let code: WebSocketCloseCode = !stored ? .internalError : status == .finished ? .normal : .goingAway
        ending = (summary, code)
        for watcher in watchers { watcher.socket.close(code: code, reason: "session ended") }
        watchers.removeAll()
        poseWatchers = 0
        motionWatchers = 0
        remotes?.end(code: code)
    }

    /// The session moves to another node: the other nodes' watchers are told to look for it there (at `node` when
    /// it is known), and this node's watchers are handed back to follow it.
    /// - Returns: This node's watchers.
    mutating func move(to node: String?) -> [WebSocket] {
        remotes?.moved(to: node)
        defer {
            watchers.removeAll()
            poseWatchers = 0
            motionWatchers = 0
        }
        return watchers.map(\.socket)
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

/// The nodes whose watchers follow one session held here (docs/protocol.md §8): each subscribed with `watch` and renews
/// it; what the session sends its watchers goes to each node over the bus (snapshots at most every 100 ms, events
/// all, poses and motion messages each at most every 50 ms to the nodes that asked with `poses` or `motion`), and a
/// node that stops renewing is dropped after ``lease``.
final class RemoteWatchers: Sendable {
    /// How long a subscription (or a wish for poses or motion) lasts without renewal (watching nodes renew every
    /// ``FollowedSessions/renewal``).
    static let lease: UInt64 = 30_000_000_000
    /// The shortest time between two snapshots sent to one node.
    static let snapshotInterval: UInt64 = 100_000_000
    /// The shortest time between two poses, or two motion messages, sent to one node. Poses come at most 15 per
    /// second of the session's time, motion samples 30 (``WatchThrottle``), a phone's motion messages about ten a
    /// second; this bounds the bus when a client streams faster than real time, without thinning a real-time stream
    /// whose arrival jitters.
    static let streamInterval: UInt64 = 50_000_000

    /// One subscribed node: when its subscription and its wishes for poses and motion (0: none) lapse, and when it
    /// was last sent a snapshot, a pose and a motion message.
    private struct Node {
        var expires: UInt64
        var posesExpire: UInt64 = 0
        var motionExpire: UInt64 = 0
        var lastSnapshot: UInt64 = 0
        var lastPose: UInt64 = 0
        var lastMotion: UInt64 = 0

        /// When its wish for `stream` lapses.
        subscript(expiry stream: WatchedStream) -> UInt64 {
            get { stream == .poses ? posesExpire : motionExpire }
            set { if stream == .poses { posesExpire = newValue } else { motionExpire = newValue } }
        }
    }

    let session: SessionID
    let cluster: ClusterNode
    private let nodes = Locked<[String: Node]>([:])

    init(session: SessionID, cluster: ClusterNode) {
        self.session = session
        self.cluster = cluster
    }

    /// Whether no node subscribes (expired subscriptions are dropped).
    var isEmpty: Bool {
        let now = MonotonicClock.nanoseconds()
        return nodes.withLock { nodes in
            if nodes.values.contains(where: { $0.expires <= now }) { nodes = nodes.filter { $0.value.expires > now } }
            return nodes.isEmpty
        }
    }

    /// Whether a subscribed node wants `stream`.
    func wants(_ stream: WatchedStream) -> Bool {
        let now = MonotonicClock.nanoseconds()
        return nodes.withLock { nodes in nodes.values.contains { $0.expires > now && $0[expiry: stream] > now } }
    }

    /// Subscribes `node`, or renews its subscription.
    /// - Parameter wants: The streams it wants too (renewing those wishes); one not asked for is left as it was.
    /// - Returns: Whether it is new.
    func subscribe(_ node: String, wants: WatchOptions = WatchOptions()) -> Bool {
        let expires = MonotonicClock.nanoseconds() + Self.lease
        return nodes.withLock { nodes in
            let isNew = nodes[node] == nil
            var state = nodes[node] ?? Node(expires: expires)
            state.expires = expires
            for stream in wants.streams { state[expiry: stream] = expires }
            nodes[node] = state
            return isNew
        }
    }

    func unsubscribe(_ node: String) { _ = nodes.withLock { $0.removeValue(forKey: node) } }

    /// `node` no longer wants `stream`.
    func stop(_ stream: WatchedStream, node: String) { nodes.withLock { $0[node]?[expiry: stream] = 0 } }

    /// Sends a watcher message to every subscribed node (or to `only`): poses and motion only to the nodes that want
    /// them.
    func send(_ bytes: [UInt8], replacing key: String?, to only: String? = nil) {
        let now = MonotonicClock.nanoseconds()
        let kind = WatchedKind(replacing: key)
        let targets = nodes.withLock { nodes -> [String] in
            var targets: [String] = []
            for (node, state) in nodes where only == nil || only == node {
                guard state.expires > now else {
                    nodes[node] = nil
                    continue
                }
                switch kind {
                case .message: break
                case .snapshot:
                    guard only != nil || now - state.lastSnapshot >= Self.snapshotInterval else { continue }
                    nodes[node]?.lastSnapshot = now
                case .pose:
                    guard state.posesExpire > now, now - state.lastPose >= Self.streamInterval else { continue }
                    nodes[node]?.lastPose = now
                case .motion:
                    guard state.motionExpire > now, now - state.lastMotion >= Self.streamInterval else { continue }
                    nodes[node]?.lastMotion = now
                }
                targets.append(node)
            }
            return targets
        }
        guard !targets.isEmpty else { return }
        let message = ClusterMessage.watched(session, kind: kind, text: String(decoding: bytes, as: UTF8.self))
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
    /// Adds read-only observers, all at once (told how it ended and closed if the session has ended; taken in once
    /// it is here if it is arriving).
    /// - Returns: The observers not taken because the session moved on from this actor: they look for it again.
    func addWatchers(_ sockets: [WebSocket]) async -> [WebSocket]
    /// Removes an observer that closed.
    func removeWatcher(_ watcher: WebSocket)
    /// Adds, or renews, another node's watchers (docs/protocol.md §8).
    /// - Parameter wants: The streams they want too (renewing those wishes); one not asked for is left as it was.
    /// - Returns: False when the session moved on from this actor.
    func addRemoteWatcher(node: String, wants: WatchOptions) async -> Bool
    /// Removes another node's watchers.
    func removeRemoteWatcher(node: String)
    /// Another node's watchers no longer want `stream`.
    func stopRemote(_ stream: WatchedStream, node: String)
}
