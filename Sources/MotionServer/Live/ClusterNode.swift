import Basics
import HTTPServer
import HTTPWire
import SessionStore

/// This node among the nodes that share its store (docs/protocol.md §8), and what it says to them.
///
/// Who holds a live session is in the store (``SessionStore/claim(id:tenant:from:)``); which nodes are alive too
/// (``SessionStore/liveNodes(heartbeatSince:)``). The nodes talk over the store's bus (``PostgresNodeBus``, one
/// line of text per message) when one needs another to act: a node that a client resumes a session on asks the
/// holder to let it go (`release`), and the holder answers once the session's whole state is stored (`released`).
/// With an embedded store there is no bus and no other node: every holder other than this node is dead.
final class ClusterNode: Sendable {
    /// This node's id in the store: the holder of the sessions it runs.
    let id: String
    /// This node's name for people (`--node`).
    let name: String
    /// How long a node may go without a heartbeat before it is dead.
    let deadAfter: Duration
    private let bus = Locked<PostgresNodeBus?>(nil)

    /// The sessions holders said they let go of, with when (monotonic nanoseconds), for the resumes that asked.
    private let releases = Locked<[SessionID: UInt64]>([:])
    /// Notified with each answer in ``releases``.
    private let answers = ChangeSignal()

    init(id: String, name: String, deadAfter: Duration) {
        self.id = id
        self.name = name
        self.deadAfter = deadAfter
    }

    /// Connects the node to the others.
    func attach(_ bus: PostgresNodeBus) { self.bus.withLock { $0 = bus } }

    /// Disconnects: deregisters the node, so its sessions are claimable by the others at once.
    func leave() async {
        guard let bus = bus.withLock({ $0 }) else { return }
        await bus.stop()
    }

    /// Whether other nodes may share the store (a shared store, whose bus this node joined).
    var hasPeers: Bool { bus.withLock { $0 } != nil }

    /// Whether the node is registered with the others (always with an embedded store, which has no others).
    var isRegistered: Bool { bus.withLock { $0 }?.isRegistered ?? true }

    /// Sends a message to another node (nothing without a bus: there are no others).
    func send(_ message: ClusterMessage, to node: String) {
        bus.withLock { $0 }?.send(message.text, to: node)
    }

    /// Asks `holder` to let go of session `id` and waits for its answer.
    /// - Returns: Whether it answered within `timeout` (it released the session, or did not have it).
    func askToRelease(_ id: SessionID, tenant: String, from holder: String, timeout: Duration) async -> Bool {
        guard bus.withLock({ $0 }) != nil else { return false }
        let asked = MonotonicClock.nanoseconds()
        send(.release(id, tenant: tenant), to: holder)
        return await answers.wait(
            until: { releases.withLock { $0[id] }.map { $0 >= asked } ?? false },
            timeout: {
                try? await Task.sleep(for: timeout)
            })
    }

    /// A holder answered that session `id` is let go.
    func released(_ id: SessionID) {
        let now = MonotonicClock.nanoseconds()
        releases.withLock { releases in
            // Answers older than any wait are dropped, so the table stays small.
            if releases.count > 1_000 { releases = releases.filter { now - $0.value < 60_000_000_000 } }
            releases[id] = now
        }
        answers.notify()
    }
}

/// What nodes say to each other: one line of text, its first word the kind, the session's id the second.
enum ClusterMessage: Equatable {
    /// Let go of this session (a client resumed it on the sender).
    case release(SessionID, tenant: String)
    /// The session is let go: its state is stored and this node no longer holds it.
    case released(SessionID)
    /// The sender's watchers follow this session: send them what it sends its watchers (renewed every few seconds).
    case watch(SessionID, tenant: String)
    /// The sender's watchers of this session are gone.
    case unwatch(SessionID, tenant: String)
    /// The sender's watchers of this session want its poses or its motion samples too (`wanted`: sent with every
    /// `watch`, lapsing like it), or no longer do; the first word names the stream (`poses`, `motion`). A node that
    /// does not know this message still serves the `watch` without that stream.
    case wish(SessionID, stream: WatchedStream, tenant: String, wanted: Bool)
    /// A message for the watchers of this session, as they receive it, and how it coalesces with newer ones.
    case watched(SessionID, kind: WatchedKind, text: String)
    /// The session ended: close its watchers with this code.
    case ended(SessionID, code: UInt16)
    /// The session is not here (it moved, or never was): look for it at this node when named, else look it up.
    case moved(SessionID, to: String?)

    /// The message as sent.
    var text: String {
        switch self {
        case .release(let id, let tenant): "release \(id) \(tenant)"
        case .released(let id): "released \(id)"
        case .watch(let id, let tenant): "watch \(id) \(tenant)"
        case .unwatch(let id, let tenant): "unwatch \(id) \(tenant)"
        case .wish(let id, let stream, let tenant, let wanted): "\(stream.rawValue) \(id) \(wanted ? 1 : 0) \(tenant)"
        case .watched(let id, let kind, let text): "watched \(id) \(kind.rawValue) \(text)"
        case .ended(let id, let code): "ended \(id) \(code)"
        case .moved(let id, let node): node.map { "moved \(id) \($0)" } ?? "moved \(id)"
        }
    }

    /// Reads a message; nil for one this node does not know.
    init?(_ text: String) {
        let words = text.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
        guard words.count >= 2, let id = SessionID(String(words[1])) else { return nil }
        let rest = words.count > 2 ? text[words[2].startIndex...] : ""
        if let stream = WatchedStream(rawValue: String(words[0])) {
            guard words.count == 4, words[2] == "1" || words[2] == "0", !words[3].isEmpty else { return nil }
            self = .wish(id, stream: stream, tenant: String(words[3]), wanted: words[2] == "1")
            return
        }
        switch (words[0], words.count) {
        case ("release", 3...) where !rest.isEmpty: self = .release(id, tenant: String(rest))
        case ("released", 2): self = .released(id)
        case ("watch", 3...) where !rest.isEmpty: self = .watch(id, tenant: String(rest))
        case ("unwatch", 3...) where !rest.isEmpty: self = .unwatch(id, tenant: String(rest))
        case ("watched", 4):
            guard let kind = WatchedKind(rawValue: String(words[2])) else { return nil }
            self = .watched(id, kind: kind, text: String(words[3]))
        case ("ended", 3):
            guard let code = UInt16(words[2]), code >= 1000 else { return nil }
            self = .ended(id, code: code)
        case ("moved", 2): self = .moved(id, to: nil)
        case ("moved", 3) where !words[2].isEmpty: self = .moved(id, to: String(words[2]))
        default: return nil
        }
    }
}

/// How a message for watchers coalesces (docs/protocol.md §8: the `watched` message names it): kept whatever follows
/// (events), or replaced by a newer one of its kind not yet written to a watcher (snapshots, poses, motion samples).
enum WatchedKind: String, Sendable {
    case message = "-"
    case snapshot = "s"
    case pose = "p"
    case motion = "m"

    /// The kind of a message sent with coalescing key `key`.
    init(replacing key: String?) {
        switch key {
        case "snapshot": self = .snapshot
        case "pose": self = .pose
        case "motion": self = .motion
        default: self = .message
        }
    }

    /// The coalescing key watchers are sent it with.
    var replacing: String? {
        switch self {
        case .message: nil
        case .snapshot: "snapshot"
        case .pose: "pose"
        case .motion: "motion"
        }
    }

    /// The stream a watcher must have asked for to get it; nil for what every watcher gets.
    var stream: WatchedStream? {
        switch self {
        case .message, .snapshot: nil
        case .pose: .poses
        case .motion: .motion
        }
    }
}

extension AppContext {
    /// Acts on a message from another node (on the bus's thread: the work goes to a task).
    func receive(_ message: PostgresNodeBus.Message) {
        guard let decoded = ClusterMessage(message.text) else {
            return logger.log(.warning, "unknown message from a node", ["from": message.from])
        }
        switch decoded {
        case .release(let id, let tenant):
            Task {
                await self.letGo(id, tenant: tenant, to: message.from)
                self.cluster.send(.released(id), to: message.from)
            }
        case .released(let id):
            cluster.released(id)
        case .watch(let id, let tenant):
            Task { await self.addRemoteWatcher(of: id, tenant: tenant, node: message.from) }
        case .unwatch(let id, let tenant):
            if let session = watchedSession(id, tenant: tenant) {
                Task { await session.removeRemoteWatcher(node: message.from) }
            }
        case .wish(let id, let stream, let tenant, let wanted):
            Task { await self.setRemoteWish(stream, of: id, tenant: tenant, node: message.from, wanted: wanted) }
        case .watched(let id, let kind, let text):
            followed.deliver(id, text: text, kind: kind)
        case .ended(let id, let code):
            followed.end(id, code: WebSocketCloseCode(rawValue: code))
        case .moved(let id, let holder):
            guard let (tenant, sockets) = followed.take(id) else { return }
            if let holder, holder != cluster.id {
                followed.add(sockets, to: id, tenant: tenant, holder: holder, cluster: cluster)
            } else {
                Task { await self.follow(id, tenant: tenant, sockets: sockets, awayFrom: message.from) }
            }
        }
    }

    /// Subscribes another node's watchers to a session here; a session not here (any more) sends them looking.
    private func addRemoteWatcher(of id: SessionID, tenant: String, node: String) async {
        await waitWhileArriving(id, tenant: tenant)
        var added = false
        if let session = watchedSession(id, tenant: tenant) {
            added = await session.addRemoteWatcher(node: node, wants: WatchOptions())
        }
        if !added { cluster.send(.moved(id, to: nil), to: node) }
    }

    /// Starts or stops sending a session's poses or motion samples to another node's watchers. Wanting them
    /// subscribes the node as `watch` does, whichever of the two arrives first; a session not here is left to the
    /// `watch` that came with it to answer.
    private func setRemoteWish(
        _ stream: WatchedStream, of id: SessionID, tenant: String, node: String, wanted: Bool
    ) async {
        await waitWhileArriving(id, tenant: tenant)
        guard let session = watchedSession(id, tenant: tenant) else { return }
        if wanted {
            var wants = WatchOptions()
            wants[stream] = true
            _ = await session.addRemoteWatcher(node: node, wants: wants)
        } else {
            await session.stopRemote(stream, node: node)
        }
    }

    /// Waits, at most 5 s, while a resume here is taking the session from another node and has not claimed it yet
    /// (once claimed, the session's actor takes watchers in until it has arrived); woken by the registry's changes.
    func waitWhileArriving(_ id: SessionID, tenant: String) async {
        let (clock, deadline) = (loopClock, loopClock.deadline(after: .seconds(5)))
        _ = await live.changes.wait(
            until: { !live.isArriving(id) || watchedSession(id, tenant: tenant) != nil },
            timeout: {
                try? await clock.sleep(until: deadline)
            })
    }

    /// The nodes alive now, this one among them.
    func liveNodes() async throws -> Set<String> {
        let cutoff = clock() - cluster.deadAfter.milliseconds
        return try await store.liveNodes(heartbeatSince: cutoff)
    }

    /// Lets another node have a session this node holds: takes it from its connection (closed with 4001 if still
    /// open), stores its whole state as a checkpoint, and releases it in the store. A session this node does not
    /// run is released in the store if it names this node.
    func letGo(_ id: SessionID, tenant: String, to asker: String) async {
        do {
            if var core = await drop(id, tenant: tenant, movingTo: asker) {
                let (summary, engineState) = core.takeCheckpoint()
                let checkpoint = SessionCheckpoint(id: id, tenant: tenant, summary: summary, engineState: engineState)
                let refused = try await timed("checkpoint", writes: true) { try await store.checkpoint([checkpoint]) }
                if let error = refused[id] {
                    logger.log(.warning, "a session let go was not checkpointed", ["id": "\(id)", "error": "\(error)"])
                }
            }
            _ = try await timed("release", writes: true) { try await store.release(id: id, tenant: tenant) }
        } catch {
            metrics.storeFailed("release")
            logger.log(.error, "cannot let a session go", ["id": "\(id)", "error": "\(error)"])
        }
    }
}

extension AppContext {
    /// Takes a session this node runs from its connection (closed with 4001 if still open) and its watchers (closed
    /// with 1001), once its last write is done: another node has it, or is about to.
    /// - Returns: The session, or nil when this node does not run it.
    func drop(_ id: SessionID, tenant: String, movingTo next: String? = nil) async -> SessionCore? {
        guard let entry = live.entry(id, tenant: tenant), let handover = await entry.holder.handOver() else {
            return nil
        }
        live.remove(id, holder: entry.holder)
        metrics.sessionClosed()
        var watchers = handover.watchers
        let sockets = watchers.move(to: next)
        if !sockets.isEmpty {
            // This node's watchers follow the session to its next holder.
            if let next {
                followed.add(sockets, to: id, tenant: tenant, holder: next, cluster: cluster)
            } else {
                Task { await self.follow(id, tenant: tenant, sockets: sockets, awayFrom: cluster.id) }
            }
        }
        await handover.lastWrite?.value
        return handover.core
    }
}

extension Duration {
    /// Whole milliseconds.
    var milliseconds: Int64 { components.seconds * 1000 + components.attoseconds / 1_000_000_000_000_000 }
}
