import MotionWire

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

    /// Ends the session's analysis (``SessionCore/end(metrics:)``) and tells what that gave — a hold under way
    /// ending — to the client and every watcher, ahead of the summary.
    /// - Parameters:
    ///   - audience: The session's client and watchers.
    ///   - metrics: Where the events are counted.
    /// - Returns: The session, ended, from which the final summary is taken.
    func end(telling audience: inout SessionAudience, metrics: ServerMetrics) -> SessionCore {
        for (t, event) in core.end(metrics: metrics) {
            audience.tellAll { WireEncoder.encodeEvent(event, at: t, into: &$0) }
        }
        return core
    }
}
