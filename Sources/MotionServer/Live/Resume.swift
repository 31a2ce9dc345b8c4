import HTTPServer
import HTTPWire
import MotionCore
import MotionWire
import SessionStore

extension WebSocketCloseCode {
    /// 4001: the session was resumed on another connection (docs/protocol.md §3.1).
    static let takenOver = WebSocketCloseCode(rawValue: 4001)
}

/// A session a `resume` took, and from where.
struct TakenSession {
    /// The session, for the new connection's actor.
    var handover: Handover
    /// The timestamp of the last pose its state covers (`resumed.t`), nil for none.
    var heldUpTo: Double?
    /// `memory` (this process held it) or `store` (restored from its last checkpoint), for the metrics.
    var source: String
}

extension AppContext {
    /// Finds the session a `resume` names and takes it for `holder` (docs/protocol.md §3.1, §8).
    ///
    /// Where it is decides how: held by a connection's actor on this node (attached or detached), it is handed over
    /// from memory; held by another live node, that node is asked to store it and let go, then it is claimed here;
    /// held by nobody, or by a dead node (a previous run of this one, a node killed), it is claimed from the store
    /// (compare and set on its holder, so two resumes never both take it) and restored from its last checkpoint.
    /// The token is checked before anything about the session's state is told. Holders can change while this runs
    /// (two resumes at once, an expiry): each step that finds the session moved looks again.
    /// - Parameters:
    ///   - request: The `resume` message.
    ///   - tenant: The connection's tenant.
    ///   - holder: The actor of the connection that sent it.
    /// - Returns: The session.
    /// - Throws: `unknownSession` (malformed id, no such session, another tenant's), `invalidResume` (wrong token),
    ///   `resumeExpired` (ended, past its window, or its state does not restore), `storeUnavailable` (the store, or
    ///   the node holding the session, does not answer).
    func takeOver(
        _ request: ResumeRequest, tenant: String, for holder: LiveSession
    ) async throws(WireError) -> TakenSession {
        let unknown = WireError(code: .unknownSession, message: "no session \(request.session) to resume")
        let wrongToken = WireError(code: .invalidResume, message: "the resume token is not this session's")
        let expired = WireError(code: .resumeExpired, message: "the session has ended and cannot be resumed")
        guard let id = SessionID(request.session) else { throw unknown }
        let digest = ResumeToken.digest(of: request.token)
        var arriving = false
        defer { if arriving { live.setArriving(id, false) } }
        for attempt in 0..<16 {
            if let entry = live.entry(id, tenant: tenant) {
                guard ResumeToken.matches(digest, entry.tokenDigest) else { throw wrongToken }
                guard entry.holder !== holder else { throw expired }
                if let handover = await entry.holder.handOver() {
                    return TakenSession(
                        handover: handover, heldUpTo: handover.core.engine.summary.lastTimestamp, source: "memory")
                }
                // Stopped, its summary still being stored (docs/protocol.md §3.1: a stopped session is not resumed).
                if await entry.holder.wasStopped { throw expired }
                continue
            }
            // A client learns its session's id and token only once the session is stored (`started` follows the
            // durable create), so a session not in the store is unknown on every node.
            guard let point = try await resumePoint(id, tenant: tenant) else { throw unknown }
            guard let expected = point.resumption?.tokenDigest, ResumeToken.matches(digest, expected) else {
                throw wrongToken
            }
            guard point.session.status == .live else { throw expired }
            if point.holder == cluster.id {
                // Claimed here by a resume that has not put it in the registry yet: look again once it has, or
                // after a while that doubles (the store is read again then).
                let deadline = loopClock.deadline(after: .milliseconds(10 << min(attempt, 4)))
                _ = await live.changes.wait(
                    until: { live.entry(id, tenant: tenant) != nil },
                    timeout: { [loopClock] in
                        try? await loopClock.sleep(until: deadline)
                    })
                continue
            }
            let alive = try await storeCall("nodes") { try await liveNodes() }
            if let current = point.holder, alive.contains(current) {
                // Another node runs it: it stores the session and lets go, then it is claimed here. Its watchers
                // come here meanwhile, and wait until it has arrived.
                live.setArriving(id, true)
                arriving = true
                guard await cluster.askToRelease(id, tenant: tenant, from: current, timeout: .seconds(3)) else {
                    throw WireError(
                        code: .storeUnavailable, message: "the node holding the session does not answer; try again")
                }
                continue
            }
            // Nobody alive holds it: resumable for the window after its last write.
            guard point.updatedAt + limits.resumeWindow.milliseconds > clock() else {
                // Left to the orphans' sweep if it fails: the answer is the same.
                _ = try? await storeCall("abandon", writes: true) { try await store.abandon(id: id, tenant: tenant) }
                throw expired
            }
            guard
                try await storeCall(
                    "claim", writes: true, { try await store.claim(id: id, tenant: tenant, from: point.holder) })
            else { continue }
            // Held here from now on, so a second resume waits for this one instead of restoring it again.
            live.insert(holder, id: id, tokenDigest: digest, connected: false)
            do throws(WireError) {
                return try await restore(id, tenant: tenant, tokenDigest: digest)
            } catch {
                live.remove(id, holder: holder)
                if error.code == .storeUnavailable {
                    // Claimed here and not restored: let another try have it (a failure is logged, and the claim
                    // lapses with this node's heartbeat if it dies).
                    _ = try? await storeCall("release", writes: true) {
                        try await store.release(id: id, tenant: tenant)
                    }
                }
                throw error
            }
        }
        throw WireError(code: .storeUnavailable, message: "the session kept moving between nodes; try again")
    }

    /// Rebuilds a session claimed from the store: its `start`, its exercise at the version it
    /// began with, and the engine state and series of its last checkpoint. A session that cannot be rebuilt is
    /// abandoned.
    private func restore(
        _ id: SessionID, tenant: String, tokenDigest: [UInt8]
    ) async throws(WireError) -> TakenSession {
        let expired = WireError(code: .resumeExpired, message: "the session has ended and cannot be resumed")
        guard let point = try await resumePoint(id, tenant: tenant), point.session.status == .live,
            let resumption = point.resumption
        else { throw expired }
        do throws(WireError) {
            let start = try StartRequest(decoding: Array(resumption.start.utf8))
            let exercise = try await exercise(of: point.session, tenant: tenant)
            let core = try SessionCore(
                id: id, tenant: tenant, start: start, exercise: exercise, startedAt: point.session.startedAt,
                tokenDigest: tokenDigest, restoring: point.engineState?.state, series: point.session.summary.series,
                motion: point.session.summary.motion)
            metrics.sessionOpened()
            return TakenSession(
                handover: Handover(core: core, watchers: SessionWatchers(), lastWrite: nil),
                heldUpTo: point.engineState?.t, source: "store")
        } catch {
            guard error.code != .storeUnavailable else { throw error }
            logger.log(
                .error, "a stored session could not be restored; abandoned", ["id": "\(id)", "error": "\(error)"])
            _ = try? await storeCall("abandon", writes: true) { try await store.abandon(id: id, tenant: tenant) }
            throw WireError(code: .resumeExpired, message: "the session cannot be restored: \(error.message)")
        }
    }

    /// The exercise a stored session began with: the built-in one, or the tenant's custom exercise at the version the
    /// session recorded.
    private func exercise(of session: StoredSession, tenant: String) async throws(WireError) -> Exercise {
        if let builtin = Exercise.named(session.exercise) { return builtin }
        let version = session.summary.exerciseVersion
        let record = try await storeCall("resume") {
            try await store.exercise(id: session.exercise, tenant: tenant, version: version)
        }
        guard let record else {
            throw WireError(code: .unknownExercise, message: "exercise \(session.exercise) v\(version) is gone")
        }
        return try ExerciseLibrary.decode(record)
    }

    private func resumePoint(_ id: SessionID, tenant: String) async throws(WireError) -> ResumePoint? {
        try await storeCall("resume") { try await store.resumePoint(id: id, tenant: tenant) }
    }

    /// A store call for a resume, timed as `operation`; a failure is counted, logged and answered
    /// `storeUnavailable`.
    private func storeCall<T: Sendable>(
        _ operation: String, writes: Bool = false, _ call: () async throws -> T
    ) async throws(WireError) -> T {
        do {
            return try await timed(operation, writes: writes, call)
        } catch {
            metrics.storeFailed(operation)
            logger.log(.error, "store call failed", ["operation": operation, "error": "\(error)"])
            throw WireError(code: .storeUnavailable, message: "the session store is unavailable; try again")
        }
    }
}
