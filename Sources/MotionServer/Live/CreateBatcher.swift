import Basics
import SessionStore

/// Writes new sessions as a database's group commit does: a create is written at once when none is being written,
/// and the creates that arrive meanwhile go together in the next batch (``SessionStore/create(_:)-([StoredSession])``),
/// so a burst of starts costs one commit per batch instead of one per session, and an idle server adds no delay.
///
/// Unlike checkpoints (``CheckpointBatcher``) creates wait for no window: a session's create is the write its later
/// ones wait for, and a resume on another node reads it.
final class CreateBatcher: Sendable {
    private struct State {
        var waiting: [(session: StoredSession, done: CheckedContinuation<Bool, Never>)] = []
        /// Whether a batch is being written now (its writer takes the next one when it is done).
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

    /// Writes `session`, with the sessions waiting when its batch is taken.
    /// - Parameters:
    ///   - session: The new session.
    ///   - write: Writes a batch (never throws: failures are the caller's to count and log) and answers the sessions
    ///     it could not store. The first create of a burst gives the one its batches are written with.
    /// - Returns: Whether `session` was stored.
    func create(
        _ session: StoredSession, write: @escaping @Sendable ([StoredSession]) async -> Set<SessionID>
    ) async -> Bool {
        await withCheckedContinuation { continuation in
            let startsWriting = state.withLock { state in
                state.waiting.append((session, continuation))
                defer { state.writing = true }
                return !state.writing
            }
            if startsWriting { Task { await writeWaiting(write) } }
        }
    }

    /// How many sessions wait for the batch being written to end (for tests).
    var waitingCount: Int { state.withLock { $0.waiting.count } }

    /// Writes the waiting sessions in batches until none is left.
    private func writeWaiting(_ write: @Sendable ([StoredSession]) async -> Set<SessionID>) async {
        while true {
            let batch = state.withLock { state in
                let batch = state.waiting.prefix(maximumBatch)
                state.waiting.removeFirst(batch.count)
                if batch.isEmpty { state.writing = false }
                return batch
            }
            if batch.isEmpty { return }
            let refused = await write(batch.map(\.session))
            for item in batch { item.done.resume(returning: !refused.contains(item.session.id)) }
        }
    }
}
