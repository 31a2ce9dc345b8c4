/// A session on its way from one ``LiveSession`` to the next (docs/protocol.md §3.1): the session, its watchers, and its
/// last store write, which the next one's writes follow.
struct Handover: Sendable {
    var core: SessionCore
    var watchers: SessionWatchers
    var lastWrite: Task<Void, Never>?
}

/// The session a ``LiveSession`` runs, changed in place through the reference.
final class RunningSession {
    var core: SessionCore
    init(_ core: SessionCore) { self.core = core }
}
