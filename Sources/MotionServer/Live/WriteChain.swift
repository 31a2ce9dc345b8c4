import SessionStore

/// One session's store writes in the order they were made: each starts once the one before it has ended, so a
/// checkpoint never overtakes the create and the final summary comes last (docs/protocol.md §3.1). A session that
/// moves to another actor takes its chain along (``Handover/lastWrite``).
struct WriteChain {
    /// The last write queued, which the next one follows.
    private(set) var last: Task<Void, Never>?

    init(after last: Task<Void, Never>? = nil) { self.last = last }

    /// Queues `write` of `session` after the last one (``AppContext/store(_:id:tenant:after:retriesAfterWait:then:)``).
    /// - Parameters:
    ///   - retriesAfterWait: For a final summary: whether it is still retried after `then` was told it was not stored.
    ///   - then: Runs after the write, on the store's side, with whether it was stored.
    mutating func append(
        _ write: SessionWrite, of session: SessionCore, to context: AppContext, retriesAfterWait: Bool = true,
        then: (@Sendable (_ stored: Bool) -> Void)? = nil
    ) {
        last = context.store(
            write, id: session.id, tenant: session.tenant, after: last, retriesAfterWait: retriesAfterWait, then: then)
    }
}
