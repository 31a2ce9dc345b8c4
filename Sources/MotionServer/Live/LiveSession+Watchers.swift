import HTTPServer

/// Watchers (docs/protocol.md §8): admitted as the session's phase says, and heard through its audience.
extension LiveSession: WatchableSession {
    /// Adds read-only observers that receive this session's events and snapshots from now on.
    /// - Returns: Those that must look for the session elsewhere: it moved on, or never came.
    func addWatchers(_ sockets: [WebSocket]) async -> [WebSocket] {
        analysis.audience.admit(sockets, as: state.admission, session: analysis.core)
    }

    func removeWatcher(_ watcher: WebSocket) { analysis.audience.watchers.remove(watcher) }

    func addRemoteWatcher(node: String, wants: WatchOptions) async -> Bool {
        analysis.audience.admitRemote(
            node, wants: wants, as: state.admission, session: analysis.core, cluster: context.cluster)
    }

    func removeRemoteWatcher(node: String) { analysis.audience.watchers.removeRemote(node) }

    func stopRemote(_ stream: WatchedStream, node: String) { analysis.audience.stopRemote(stream, node: node) }
}
