import HTTPServer
package import MotionCore
package import SessionStore

/// A write a live or HTTP session makes to the store over its life.
package enum SessionWrite: Sendable {
    /// The new session, status `live` (or already finished, for a one-shot analysis).
    case create(StoredSession)
    /// The summary so far and the engine's state at its last pose, every checkpoint interval.
    case checkpoint(SessionSummary, engineState: [UInt8]?)
    /// The final summary.
    case finish(SessionSummary, status: SessionStatus, endedAt: Int64)
    /// Whether a client is attached now (for REST on the other nodes).
    case connection(Bool)

    /// Its name in the store metrics.
    package var operation: String {
        switch self {
        case .create: "create"
        case .checkpoint: "checkpoint"
        case .finish: "finish"
        case .connection: "connection"
        }
    }
}

/// Told of every session write once the store has taken it (`stored`) or failed it, before the session acts on the
/// outcome: what a test waits on instead of polling the REST API. A server has none unless a test gives it one
/// (``MotionServer/init(options:clock:storeObserver:)``).
package typealias StoreWriteObserver = @Sendable (_ write: SessionWrite, _ id: SessionID, _ stored: Bool) -> Void

extension AppContext {
    /// Queues `write` of session `id` after `previous`, so one session's writes reach the store in order, timed into
    /// the store metrics. A failure is counted and logged, never thrown: a session does not stop for its store.
    /// - Parameters:
    ///   - write: What to write.
    ///   - id: The session.
    ///   - tenant: Its tenant.
    ///   - previous: The session's previous write, if any.
    ///   - retriesAfterWait: For a final summary: whether it is still retried once `then` has been told it was not
    ///     stored (``storeFinal(_:id:tenant:retriesAfterWait:then:)``). Not for a session that stays open to be
    ///     stopped again, as an HTTP-driven one does.
    ///   - then: Runs after the write with whether it was stored.
    /// - Returns: The write, to chain the session's next one after it.
    func store(
        _ write: SessionWrite, id: SessionID, tenant: String, after previous: Task<Void, Never>?,
        retriesAfterWait: Bool = true, then: (@Sendable (_ stored: Bool) -> Void)? = nil
    ) -> Task<Void, Never> {
        if case .checkpoint(let summary, let engineState) = write {
            // Checkpoints are gathered and written in batches; `then` learns whether this one was stored.
            let checkpoint = SessionCheckpoint(id: id, tenant: tenant, summary: summary, engineState: engineState)
            return checkpoints.add(checkpoint, after: previous, writes: writes, then: then) { [self] batch in
                await storeCheckpoints(batch)
            }
        }
        if case .create(let session) = write {
            return writes.run(after: previous) { [self] in
                let stored = await storeNew(session)
                then?(stored)
            }
        }
        if case .finish = write {
            return writes.run(after: previous) { [self] in
                await storeFinal(write, id: id, tenant: tenant, retriesAfterWait: retriesAfterWait, then: then)
            }
        }
        return writes.run(after: previous) { [self] in
            do {
                try await timed(write.operation, writes: true) { try await apply(write, id: id, tenant: tenant) }
                storeObserver?(write, id, true)
                then?(true)
            } catch {
                metrics.storeFailed(write.operation)
                logger.log(
                    .error, "cannot store the session (\(write.operation))", ["id": "\(id)", "error": "\(error)"])
                storeObserver?(write, id, false)
                then?(false)
            }
        }
    }
}

extension AppContext {
    /// The first wait before a failed final write is tried again; it doubles up to ``finalRetryMaximum``.
    static let finalRetryFirst: UInt64 = 100_000_000
    /// The longest wait between two tries of a final write: once the store is back, a held summary is stored at
    /// most this long after.
    static let finalRetryMaximum: UInt64 = 1_000_000_000

    /// Writes a session's final summary until it is stored, never only once: a store that fails (a PostgreSQL
    /// restart, a full disk) is tried again, sooner and sooner after each failure up to once a second, and asked to
    /// reconnect at once rather than at the end of its backoff. `then` learns the outcome once: stored, or not
    /// stored after ``LiveLimits/storeWait``. With `retriesAfterWait` the write goes on after that until
    /// ``LiveLimits/resumeWindow`` has passed since the stop, holding the summary (at most
    /// ``LiveLimits/maxHeldFinalWrites`` of them; past it, the write is tried once), and stops early only when the
    /// server drains past its grace period.
    private func storeFinal(
        _ write: SessionWrite, id: SessionID, tenant: String, retriesAfterWait: Bool,
        then: (@Sendable (_ stored: Bool) -> Void)?
    ) async {
        let started = EventLoop.now()
        let storeWait = Self.nanoseconds(limits.storeWait)
        let holdFor = retriesAfterWait ? max(storeWait, Self.nanoseconds(limits.resumeWindow)) : storeWait
        var held = false
        defer { if held { heldFinalWrites.subtract(1, ordering: .relaxed) } }
        var (told, attempts, delay, refused) = (false, 0, Self.finalRetryFirst, false)
        while true {
            attempts += 1
            do {
                try await timed(write.operation, writes: true) { try await apply(write, id: id, tenant: tenant) }
                storeObserver?(write, id, true)
                if attempts > 1 {
                    logger.log(
                        .notice, "stored the session after the store failed",
                        ["id": "\(id)", "attempts": "\(attempts)", "milliseconds": Self.milliseconds(since: started)])
                }
                if !told { then?(true) }
                return
            } catch {
                metrics.storeFailed(write.operation)
                refused = !Self.mayPass(error)
                if attempts == 1 || refused {
                    logger.log(
                        .error,
                        refused
                            ? "cannot store the session (finish)" : "cannot store the session (finish); trying again",
                        ["id": "\(id)", "error": "\(error)"])
                }
                storeObserver?(write, id, false)
            }
            if refused {
                // The store answered, and its answer will not change (another node holds the session, or it ended).
                if !told { then?(false) }
                return
            }
            if attempts == 1 {
                held = heldFinalWrites.add(1, ordering: .relaxed).newValue <= limits.maxHeldFinalWrites
                if !held { heldFinalWrites.subtract(1, ordering: .relaxed) }
            }
            let elapsed = EventLoop.now() - started
            if !told, !held || elapsed >= storeWait {
                told = true
                then?(false)
            }
            guard held, elapsed < holdFor, !isDrainedPastGrace() else {
                // A session kept open for another stop (retriesAfterWait false) is not lost: its client was told.
                guard retriesAfterWait else { return }
                metrics.finalWriteLost()
                logger.log(
                    .error, "session lost: its summary was not stored",
                    [
                        "id": "\(id)", "attempts": "\(attempts)", "milliseconds": Self.milliseconds(since: started),
                        "reason": held ? "store failing" : "\(limits.maxHeldFinalWrites) summaries already held",
                    ])
                return
            }
            try? await Task.sleep(nanoseconds: delay)
            delay = min(delay * 2, Self.finalRetryMaximum)
            await store.expediteReconnection()
        }
    }

    /// Whether a failed write may succeed when tried again: not when the store refused it for what the session is
    /// (ended, held by another node, gone) or has closed.
    private static func mayPass(_ error: any Error) -> Bool {
        switch error as? SessionStoreError {
        case .notLive, .heldElsewhere, .notFound, .invalidEndStatus, .closed: false
        default: true
        }
    }

    private static func milliseconds(since start: UInt64) -> String { "\((EventLoop.now() - start) / 1_000_000)" }

    /// Makes one write now: a final summary or a connection flag (``store(_:id:tenant:after:then:)`` hands creates
    /// and checkpoints to their batchers).
    private func apply(_ write: SessionWrite, id: SessionID, tenant: String) async throws {
        switch write {
        case .create: preconditionFailure("creates are written in batches (CreateBatcher)")
        case .checkpoint: preconditionFailure("checkpoints are written in batches (CheckpointBatcher)")
        case .finish(let summary, let status, let endedAt):
            try await store.finish(id: id, tenant: tenant, summary: summary, status: status, endedAt: endedAt)
        case .connection(let connected):
            try await store.setConnected(connected, id: id, tenant: tenant)
        }
    }

    /// Stores a new session (a live session's start, an HTTP-driven session, a recorded one) with the others that
    /// arrive while the store writes (``CreateBatcher``); a failure is counted and logged, never thrown.
    /// - Parameter session: The session.
    /// - Returns: Whether it was stored.
    func storeNew(_ session: StoredSession) async -> Bool {
        await creates.create(session) { [self] batch in await storeCreates(batch) }
    }

    /// Writes a batch of new sessions in one store call, timed as one `create` operation; a session the store refuses
    /// (its id taken) or a failed batch is counted and logged, never thrown.
    /// - Returns: The sessions not stored.
    private func storeCreates(_ batch: [StoredSession]) async -> Set<SessionID> {
        var refused: Set<SessionID>
        do {
            let refusals = try await timed("create", writes: true) { try await store.create(batch) }
            for (id, error) in refusals {
                logger.log(.error, "cannot store the session (create)", ["id": "\(id)", "error": "\(error)"])
            }
            refused = Set(refusals.keys)
        } catch {
            logger.log(
                .error, "cannot store the sessions (create)", ["count": "\(batch.count)", "error": "\(error)"])
            refused = Set(batch.map(\.id))
        }
        for session in batch {
            let stored = !refused.contains(session.id)
            if !stored { metrics.storeFailed("create") }
            storeObserver?(.create(session), session.id, stored)
        }
        return refused
    }

    /// Writes a batch of checkpoints in one store call, timed as one `checkpoint` operation; a checkpoint the store
    /// refuses (its session ended or vanished meanwhile) or a failed batch is counted and logged, never thrown.
    /// - Returns: The sessions whose checkpoint was not stored.
    private func storeCheckpoints(_ batch: [SessionCheckpoint]) async -> Set<SessionID> {
        do {
            let refused = try await timed("checkpoint", writes: true) { try await store.checkpoint(batch) }
            for (id, error) in refused {
                metrics.storeFailed("checkpoint")
                logger.log(.warning, "cannot store the session (checkpoint)", ["id": "\(id)", "error": "\(error)"])
                if error == .heldElsewhere, let item = batch.first(where: { $0.id == id }) {
                    // Another node took it over (it thought this one dead): this node stops running it.
                    Task { _ = await drop(id, tenant: item.tenant) }
                }
            }
            if let storeObserver {
                for item in batch {
                    storeObserver(
                        .checkpoint(item.summary, engineState: item.engineState), item.id, refused[item.id] == nil)
                }
            }
            return Set(refused.keys)
        } catch {
            for _ in batch { metrics.storeFailed("checkpoint") }
            logger.log(
                .warning, "cannot store the sessions (checkpoint)", ["count": "\(batch.count)", "error": "\(error)"])
            if let storeObserver {
                for item in batch {
                    storeObserver(.checkpoint(item.summary, engineState: item.engineState), item.id, false)
                }
            }
            return Set(batch.map(\.id))
        }
    }
}
