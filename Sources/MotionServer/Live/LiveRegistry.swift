import HTTPServer
import SessionStore

/// The live WebSocket sessions of this node, by id, for watchers.
final class LiveRegistry: Sendable {
    private let sessions = Locked<[SessionID: LiveSession]>([:])

    func insert(_ session: LiveSession, id: SessionID) { sessions.withLock { $0[id] = session } }

    func remove(_ id: SessionID) { _ = sessions.withLock { $0.removeValue(forKey: id) } }

    /// The live session `id` if it belongs to `tenant` (another tenant's session is as unknown as a missing one).
    func session(_ id: SessionID, tenant: String) -> LiveSession? {
        sessions.withLock { $0[id] }.flatMap { $0.tenant == tenant ? $0 : nil }
    }

    var count: Int { sessions.withLock { $0.count } }
}
