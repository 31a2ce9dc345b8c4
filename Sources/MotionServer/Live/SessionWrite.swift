import HTTPServer
import MotionCore
import SessionStore

/// A write a live or HTTP session makes to the store over its life.
enum SessionWrite: Sendable {
    /// The new session, status `live` (or already finished, for a one-shot analysis).
    case create(StoredSession)
    /// The summary so far, every checkpoint interval.
    case checkpoint(SessionSummary)
    /// The final summary.
    case finish(SessionSummary, status: SessionStatus, endedAt: Int64)

    /// Its name in the store metrics.
    var operation: String {
        switch self {
        case .create: "create"
        case .checkpoint: "checkpoint"
        case .finish: "finish"
        }
    }
}

extension AppContext {
    /// Queues `write` of session `id` after `previous`, so one session's writes reach the store in order, timed into
    /// the store metrics. A failure is counted and logged, never thrown: a session does not stop for its store.
    /// - Parameters:
    ///   - write: What to write.
    ///   - id: The session.
    ///   - tenant: Its tenant.
    ///   - previous: The session's previous write, if any.
    ///   - then: Runs after the write, whether it succeeded or not.
    /// - Returns: The write, to chain the session's next one after it.
    func store(
        _ write: SessionWrite, id: SessionID, tenant: String, after previous: Task<Void, Never>?,
        then: (@Sendable () -> Void)? = nil
    ) -> Task<Void, Never> {
        writes.run(after: previous) { [self] in
            do {
                try await timed(write.operation) {
                    switch write {
                    case .create(let record): try await store.create(record)
                    case .checkpoint(let summary): try await store.checkpoint(id: id, tenant: tenant, summary: summary)
                    case .finish(let summary, let status, let endedAt):
                        try await store.finish(
                            id: id, tenant: tenant, summary: summary, status: status, endedAt: endedAt)
                    }
                }
            } catch {
                metrics.storeFailed(write.operation)
                let level: LogLevel = if case .checkpoint = write { .warning } else { .error }
                logger.log(
                    level, "cannot store the session (\(write.operation))", ["id": "\(id)", "error": "\(error)"])
            }
            then?()
        }
    }
}
