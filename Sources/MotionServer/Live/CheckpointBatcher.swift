import HTTPServer
import SessionStore

/// Gathers the checkpoints of many sessions for a moment and hands them to the store together
/// (``SessionStore/checkpoint(_:)``): one commit for a batch instead of one per session, so thousands of live
/// sessions checkpointing every few seconds cost the store thread little.
///
/// The first checkpoint after a batch was taken starts the next one; it is written ``window`` later with whatever
/// arrived meanwhile, one checkpoint per session (a session's newer checkpoint replaces its older one in the batch).
/// Every checkpoint's returned task is its batch's, so a session's next write (its final summary) is chained after
/// it, and a batch waits for each member's previous write (its creation) before it is written.
///
/// The window is measured on the server's ``LoopClock``, from the checkpoint that started the batch: on a
/// ``ManualClock`` a test ends it exactly, with the loops' checkpoint timers, by moving the clock.
final class CheckpointBatcher: Sendable {
    private struct Batch {
        var items:
            [(
                checkpoint: SessionCheckpoint, previous: Task<Void, Never>?,
                then: (@Sendable (_ stored: Bool) -> Void)?
            )] = []
        /// Where each session's checkpoint is in `items`.
        var positions: [SessionID: Int] = [:]
        var write: Task<Void, Never>?
    }

    private let window: Duration
    private let clock: LoopClock
    private let pending = Locked(Batch())

    /// Creates a batcher.
    /// - Parameters:
    ///   - window: How long a batch gathers checkpoints before it is written.
    ///   - clock: What the window is measured on (the event loops' clock).
    init(window: Duration, clock: LoopClock = .monotonic) {
        self.window = window
        self.clock = clock
    }

    /// Writes the gathering batch now instead of at the end of its window (shutdown).
    func flush() { pending.withLock { $0.write?.cancel() } }

    /// Adds a checkpoint to the gathering batch, starting one (with `writes`) when none is.
    /// - Parameters:
    ///   - checkpoint: The session's summary so far.
    ///   - previous: The session's previous write, which the batch waits for.
    ///   - writes: Tracks the batch's write, so shutdown waits for it.
    ///   - then: Told after the batch's write whether this checkpoint was stored (a newer checkpoint of the same
    ///     session in the batch takes the place of an older one, and of its `then`).
    ///   - write: Writes a gathered batch (never throws: failures are the caller's to count and log) and answers the
    ///     sessions whose checkpoint it could not store.
    /// - Returns: The batch's write task, to chain the session's next write after it.
    func add(
        _ checkpoint: SessionCheckpoint, after previous: Task<Void, Never>?, writes: StoreWrites,
        then: (@Sendable (_ stored: Bool) -> Void)? = nil,
        write: @escaping @Sendable ([SessionCheckpoint]) async -> Set<SessionID>
    ) -> Task<Void, Never> {
        pending.withLock { batch in
            if let position = batch.positions[checkpoint.id] {
                // The session's checkpoint is already in this batch (its timer fired again before the batch was
                // taken, e.g. on an overloaded machine): the newer summary replaces it. Its previous write is then
                // this very batch, which must not wait for itself; the first checkpoint's previous write stands.
                batch.items[position].checkpoint = checkpoint
                batch.items[position].then = then
            } else {
                batch.positions[checkpoint.id] = batch.items.count
                batch.items.append((checkpoint, previous, then))
            }
            if let task = batch.write { return task }
            // The deadline is taken now, not when the task starts: a clock moved meanwhile counts.
            let deadline = clock.deadline(after: window)
            let task = writes.run(after: nil) { [self] in
                try? await clock.sleep(until: deadline)
                let items = pending.withLock { batch in
                    defer { batch = Batch() }
                    return batch.items
                }
                for item in items { await item.previous?.value }
                let refused = await write(items.map(\.checkpoint))
                for item in items { item.then?(!refused.contains(item.checkpoint.id)) }
            }
            batch.write = task
            return task
        }
    }
}
