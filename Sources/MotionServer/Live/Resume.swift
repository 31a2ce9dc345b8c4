import HTTPServer
import HTTPWire
import MotionCore
import MotionWire
import SessionStore

extension WebSocketCloseCode {
    /// 4001: the session was resumed on another connection (PROTOCOL.md §3.1).
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
    /// Finds the session a `resume` names and takes it for `holder` (PROTOCOL.md §3.1).
    ///
    /// Three places may have it, tried in order: this node's registry (the session is held by a connection's actor,
    /// attached or detached: it is handed over), the sessions a previous process left live (claimed, then restored
    /// from the store's last checkpoint), and otherwise the store alone, which says why it cannot be resumed. The
    /// token is checked before anything about the session's state is told. Holders can change while this runs (two
    /// resumes at once, an expiry): a holder that has nothing to hand over any more is looked up again.
    /// - Parameters:
    ///   - request: The `resume` message.
    ///   - tenant: The connection's tenant.
    ///   - holder: The actor of the connection that sent it.
    /// - Returns: The session.
    /// - Throws: `unknownSession` (malformed id, no such session, another tenant's), `invalidResume` (wrong token),
    ///   `resumeExpired` (ended, past its window, or its state does not restore), `storeUnavailable`.
    func takeOver(
        _ request: ResumeRequest, tenant: String, for holder: LiveSession
    ) async throws(WireError) -> TakenSession {
        let unknown = WireError(code: .unknownSession, message: "no session \(request.session) to resume")
        let wrongToken = WireError(code: .invalidResume, message: "the resume token is not this session's")
        let expired = WireError(code: .resumeExpired, message: "the session has ended and cannot be resumed")
        guard let id = SessionID(request.session) else { throw unknown }
        let digest = ResumeToken.digest(of: request.token)
        for _ in 0..<8 {
            if let entry = live.entry(id, tenant: tenant) {
                guard ResumeToken.matches(digest, entry.tokenDigest) else { throw wrongToken }
                guard entry.holder !== holder else { throw expired }
                if let handover = await entry.holder.handOver() {
                    return TakenSession(
                        handover: handover, heldUpTo: handover.core.engine.summary.lastTimestamp, source: "memory")
                }
                continue
            }
            switch orphans.claim(id, tenant: tenant, tokenDigest: digest) {
            case .wrongToken: throw wrongToken
            case .claimed(let orphan):
                // Held here from now on, so a second resume waits for this one instead of restoring it again.
                live.insert(holder, id: id, tokenDigest: digest, connected: false)
                do throws(WireError) {
                    return try await restore(id, tenant: tenant, tokenDigest: digest)
                } catch {
                    live.remove(id, holder: holder)
                    if error.code == .storeUnavailable { orphans.putBack(orphan) }
                    throw error
                }
            case .none:
                break
            }
            // Neither held nor left by a previous process: the store tells which error it is.
            let point = try await resumePoint(id, tenant: tenant)
            guard let point else { throw unknown }
            guard let expected = point.resumption?.tokenDigest, ResumeToken.matches(digest, expected) else {
                throw wrongToken
            }
            throw expired
        }
        throw expired
    }

    /// Rebuilds a session left by a previous process from the store: its `start`, its exercise at the version it
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
            _ = try? await store.abandon(id: id, tenant: tenant)
            throw WireError(code: .resumeExpired, message: "the session cannot be restored: \(error.message)")
        }
    }

    /// The exercise a stored session began with: the built-in one, or the tenant's custom exercise at the version the
    /// session recorded.
    private func exercise(of session: StoredSession, tenant: String) async throws(WireError) -> Exercise {
        if let builtin = Exercise.named(session.exercise) { return builtin }
        let version = session.summary.exerciseVersion
        let record = try await storeCall {
            try await store.exercise(id: session.exercise, tenant: tenant, version: version)
        }
        guard let record else {
            throw WireError(code: .unknownExercise, message: "exercise \(session.exercise) v\(version) is gone")
        }
        return try ExerciseLibrary.decode(record)
    }

    private func resumePoint(_ id: SessionID, tenant: String) async throws(WireError) -> ResumePoint? {
        try await storeCall { try await store.resumePoint(id: id, tenant: tenant) }
    }

    /// A store call for a resume, timed; a failure is counted, logged and answered `storeUnavailable`.
    private func storeCall<T: Sendable>(_ call: () async throws -> T) async throws(WireError) -> T {
        do {
            return try await timed("resume", call)
        } catch {
            metrics.storeFailed("resume")
            logger.log(.error, "store call failed", ["operation": "resume", "error": "\(error)"])
            throw WireError(code: .storeUnavailable, message: "the session store is unavailable; try again")
        }
    }
}
