import Basics
import SessionStore

/// Writes new sessions as a database's group commit does: a create is written at once when none is being written,
/// and the creates that arrive meanwhile go together in the next batch (``SessionStore/create(_:)``), so a burst of
/// starts costs one commit per batch instead of one per session, and an idle server adds no delay.
///
/// No task of its own writes: the caller that finds the store free leads, writing its session with those waiting;
/// when its batch is stored it tells each of them the outcome, and the first to have arrived since leads the next
/// batch. A create thus runs on its caller's executor (a live session's write task, or an HTTP request's), never
/// waiting for a free thread of the global pool.
///
/// Unlike checkpoints (``CheckpointBatcher``) creates wait for no window: a session's create is the write its later
/// ones wait for, and a resume on another node reads it.
final class CreateBatcher: Sendable {
    /// What a waiting create learns: its outcome, or that it leads the next batch.
    private enum Turn {
        case stored(Bool)
        case lead
    }

    private struct State {
        var waiting: [(session: StoredSession, turn: CheckedContinuation<Turn, Never>)] = []
        /// Whether a leader is writing a batch now.
        var writing = false
    }

    private let maximumBatch: Int
    private let state = Locked(State())

    /// Creates a batcher.
    /// - Parameter maximumBatch: The most sessions one batch holds (one transaction's size).
    init(maximumBatch: Int = 100) {
        precondition(maximumBatch > 0, "a batch holds at least one session")
        self.maximumBatch = maximumBatch
    }

    /// How many sessions wait for the batch being written to end (for tests).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Writes `session`: at once when no batch is being written, otherwise with the sessions waiting when the
    /// batch being written ends.
    /// - Parameters:
    ///   - session: The new session.
    ///   - write: Writes a batch (never throws: failures are the caller's to count and log) and answers the sessions
    ///     it could not store. A batch is written with its leader's.
    /// - Returns: Whether `session` was stored.
    func create(
        _ session: StoredSession, write: @Sendable ([StoredSession]) async -> Set<SessionID>
    ) async -> Bool {
        let turn = await withCheckedContinuation { (turn: CheckedContinuation<Turn, Never>) in
            let leads = state.withLock { state in
                if state.writing {
                    state.waiting.append((session, turn))
                    return false
                }
                state.writing = true
                return true
            }
            if leads { turn.resume(returning: .lead) }
        }
        switch turn {
        case .stored(let stored): return stored
        case .lead: return await lead(session, write: write)
        }
    }

    /// Writes `session` with the sessions waiting (up to a batch), tells them how it went, and hands the lead to the
    /// first session waiting then, if any.
    /// - Returns: Whether `session` was stored.
    private func lead(
        _ session: StoredSession, write: @Sendable ([StoredSession]) async -> Set<SessionID>
    ) async -> Bool {
        let followers = state.withLock { state in
            let taken = state.waiting.prefix(maximumBatch - 1)
            state.waiting.removeFirst(taken.count)
            return taken
        }
        let refused = await write([session] + followers.map(\.session))
        for follower in followers { follower.turn.resume(returning: .stored(!refused.contains(follower.session.id))) }
        let next: CheckedContinuation<Turn, Never>? = state.withLock { state in
            if state.waiting.isEmpty {
                state.writing = false
                return nil
            }
            return state.waiting.removeFirst().turn
        }
        next?.resume(returning: .lead)
        return !refused.contains(session.id)
    }
}
