import Basics
import HTTPServer
import HTTPWire
import MotionCore
import SessionStore

/// The sessions this node's watchers follow on other nodes (docs/protocol.md §8): by session, the node that holds it and
/// the watchers here. The holder sends what its watchers get over the node bus (``RemoteWatchers``); this node hands
/// it to its watchers, renews the subscription every ``renewal``, and ends it when the last watcher leaves. While a
/// watcher here asked for poses or motion (``WatchOptions``), every `watch` goes with a `poses` or `motion` wish, and
/// the last such watcher to leave withdraws it.
final class FollowedSessions: Sendable {
    /// How often subscriptions are renewed (well inside ``RemoteWatchers/lease``).
    static let renewal: Duration = .seconds(10)

    private struct Followed {
        var tenant: String
        var holder: String
        var sockets: [WebSocket]
        /// What the holder greeted this node with (`started`, then each latest snapshot) and its last `connection`
        /// message, so that a watcher joining the subscription later is greeted as the first was.
        var started: String?
        var snapshot: String?
        var connection: String?

        /// The streams its watchers asked for.
        var wants: WatchOptions {
            var wants = WatchOptions()
            for socket in sockets {
                for stream in socket.watchOptions.streams { wants[stream] = true }
            }
            return wants
        }

        /// Keeps what a later watcher needs to be told first.
        mutating func remember(_ text: String, kind: WatchedKind) {
            switch kind {
            case .snapshot: snapshot = text
            case .pose, .motion: break
            case .message:
                if text.hasPrefix(#"{"type":"started""#) {
                    started = text
                } else if text.hasPrefix(#"{"type":"connection""#) {
                    connection = text
                }
            }
        }

        /// Greets a watcher joining the subscription: the session's `started`, its latest snapshot, and whether its
        /// client is away (as a watcher on the holder's node is told).
        func greet(_ socket: WebSocket) {
            guard let started else { return }
            socket.send(.text(started))
            if let snapshot { socket.send(.text(snapshot), replacing: WatchedKind.snapshot.replacing) }
            if let connection, connection.hasSuffix("false}") { socket.send(.text(connection)) }
        }
    }

    /// Wishes that a leaving watcher ends: the session's subscription and the streams no watcher left wants.
    private typealias Withdrawal = (followed: Followed, streams: [WatchedStream])

    private let sessions = Locked<[SessionID: Followed]>([:])

    /// Adds watchers of session `id`, which `holder` runs; the first ones subscribe this node there, the first to
    /// ask for poses or motion asks for them.
    func add(_ sockets: [WebSocket], to id: SessionID, tenant: String, holder: String, cluster: ClusterNode) {
        let (subscribe, asked) = sessions.withLock { sessions -> (Bool, [WatchedStream]) in
            if var followed = sessions[id], followed.holder == holder {
                let wanted = followed.wants
                // Greeted under the lock, so that nothing the holder sends comes before.
                for socket in sockets { followed.greet(socket) }
                followed.sockets += sockets
                sessions[id] = followed
                return (false, followed.wants.streams.filter { !wanted[$0] })
            }
            let earlier = sessions[id]?.sockets ?? []
            let followed = Followed(tenant: tenant, holder: holder, sockets: earlier + sockets)
            sessions[id] = followed
            return (true, followed.wants.streams)
        }
        if subscribe { cluster.send(.watch(id, tenant: tenant), to: holder) }
        for stream in asked { cluster.send(.wish(id, stream: stream, tenant: tenant, wanted: true), to: holder) }
    }

    /// Removes a watcher that closed; the last one ends the subscription, the last that asked for poses or motion
    /// that wish.
    func remove(_ socket: WebSocket, from id: SessionID, cluster: ClusterNode) {
        let (ended, withdrawn) = sessions.withLock { sessions -> (Followed?, Withdrawal?) in
            guard var followed = sessions[id] else { return (nil, nil) }
            let wanted = followed.wants
            followed.sockets.removeAll { $0 === socket }
            if !followed.sockets.isEmpty {
                sessions[id] = followed
                let left = followed.wants
                return (nil, (followed, wanted.streams.filter { !left[$0] }))
            }
            sessions[id] = nil
            return (followed, nil)
        }
        if let ended { cluster.send(.unwatch(id, tenant: ended.tenant), to: ended.holder) }
        if let withdrawn {
            let (tenant, holder) = (withdrawn.followed.tenant, withdrawn.followed.holder)
            for stream in withdrawn.streams {
                cluster.send(.wish(id, stream: stream, tenant: tenant, wanted: false), to: holder)
            }
        }
    }

    /// Hands a message from the holder to the watchers: poses and motion only to those that asked for them.
    func deliver(_ id: SessionID, text: String, kind: WatchedKind) {
        let sockets = sessions.withLock { sessions -> [WebSocket] in
            sessions[id]?.remember(text, kind: kind)
            return sessions[id]?.sockets ?? []
        }
        for socket in sockets where kind.stream.map({ socket.watchOptions[$0] }) ?? true {
            socket.send(.text(text), replacing: kind.replacing)
        }
    }

    /// The session ended: its watchers are closed with `code`.
    func end(_ id: SessionID, code: WebSocketCloseCode) {
        for socket in take(id)?.sockets ?? [] { socket.close(code: code, reason: "session ended") }
    }

    /// Takes the watchers of a session whose holder changed, to follow it again.
    func take(_ id: SessionID) -> (tenant: String, sockets: [WebSocket])? {
        sessions.withLock { $0.removeValue(forKey: id) }.map { ($0.tenant, $0.sockets) }
    }

    /// Renews every subscription with its holder, and the wishes for poses and motion.
    func renew(cluster: ClusterNode) {
        for (id, followed) in sessions.withLock({ $0 }) {
            cluster.send(.watch(id, tenant: followed.tenant), to: followed.holder)
            for stream in followed.wants.streams {
                cluster.send(.wish(id, stream: stream, tenant: followed.tenant, wanted: true), to: followed.holder)
            }
        }
    }

    var count: Int { sessions.withLock { $0.count } }
}

extension AppContext {
    /// The session in progress on this node that a watcher of `tenant` may follow: live, or driven over HTTP.
    func watchedSession(_ id: SessionID, tenant: String) -> (any WatchableSession)? {
        live.session(id, tenant: tenant) ?? httpSessions.session(id, tenant: tenant)
    }

    /// The live node, other than this one, that holds session `id` of `tenant` now; nil when none does (it ended,
    /// waits for a resume after its node died, or is unknown).
    /// - Throws: The store's error when it cannot say (never taken for "no such session").
    func remoteHolder(of id: SessionID, tenant: String) async throws -> String? {
        let point = try await timed("watch") { try await store.resumePoint(id: id, tenant: tenant) }
        let alive = try await liveNodes()
        guard let point, point.session.status == .live, let holder = point.holder, holder != cluster.id,
            alive.contains(holder)
        else { return nil }
        return holder
    }

    /// Makes watchers follow session `id` wherever it runs now: here (they join it), on another live node (they
    /// subscribe there), or nowhere (once it has ended, or after a few seconds without a holder: they are closed).
    /// - Parameter previous: The node it was on, which it is leaving.
    func follow(_ id: SessionID, tenant: String, sockets: [WebSocket], awayFrom previous: String) async {
        var sockets = sockets
        for attempt in 0..<40 {
            await waitWhileArriving(id, tenant: tenant)
            if let session = watchedSession(id, tenant: tenant) {
                // All at once: the session cannot end between two of them. Those it could not take (it has just
                // moved on) look again.
                sockets = await session.addWatchers(sockets)
                if sockets.isEmpty { return }
                let deadline = loopClock.deadline(after: .milliseconds(100))
                _ = await live.changes.wait(
                    until: { watchedSession(id, tenant: tenant) !== session },
                    timeout: {
                        [loopClock] in try? await loopClock.sleep(until: deadline)
                    })
                continue
            }
            // A store that cannot say is asked again, like a holder not yet known.
            let holder = try? await remoteHolder(of: id, tenant: tenant)
            // Right after a move the store may still name the node it left: that one is taken only at the end.
            if let holder, holder != previous || attempt >= 20 {
                followed.add(sockets, to: id, tenant: tenant, holder: holder, cluster: cluster)
                return
            }
            let status = await storedStatus(of: id, tenant: tenant)
            if let status, status != .live {
                for socket in sockets {
                    socket.close(code: status == .finished ? .normal : .goingAway, reason: "session ended")
                }
                return
            }
            // Another node's claim arrives in the store, not as a message to this one: the store is read again.
            try? await loopClock.sleep(until: loopClock.deadline(after: .milliseconds(100)))
        }
        for socket in sockets { socket.close(code: .goingAway, reason: "session not found on any node") }
    }

    /// A session's stored status; nil when unknown or when the store fails.
    private func storedStatus(of id: SessionID, tenant: String) async -> SessionStatus? {
        do {
            return try await store.resumePoint(id: id, tenant: tenant)?.session.status
        } catch {
            return nil
        }
    }

    /// A watcher closed: it leaves the session here, or the subscription to the session's node.
    func unwatch(_ socket: WebSocket, of id: SessionID, tenant: String) async {
        if let session = watchedSession(id, tenant: tenant) { await session.removeWatcher(socket) }
        followed.remove(socket, from: id, cluster: cluster)
    }
}
