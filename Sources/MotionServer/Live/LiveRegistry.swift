import Basics
import HTTPServer
import SessionStore

/// The live WebSocket sessions of this node, by id: for watchers, for `resume` (which finds a session's holder and
/// its token digest here), and for REST's `connected`.
///
/// A session's holder is the ``LiveSession`` actor that runs it now; a resume moves the session to the new
/// connection's actor, which then takes its place here. Removal names the holder, so an actor that gave its session
/// away never removes its successor.
final class LiveRegistry: Sendable {
    /// One session's holder.
    struct Entry {
        /// The actor that runs the session.
        var holder: LiveSession
        /// SHA-256 of the session's resume token.
        var tokenDigest: [UInt8]
        /// Whether a client is attached (false while the session waits for a resume).
        var connected: Bool
    }

    private let sessions = Locked<[SessionID: Entry]>([:])
    /// The sessions a resume here is taking from another node right now: watchers asking for them wait.
    private let arriving = Locked<Set<SessionID>>([])
    /// Notified on every change of holder and of ``isArriving(_:)``: what waits for a session to arrive or move
    /// waits on it.
    let changes = ChangeSignal()

    /// Makes `holder` the session's holder, replacing any other.
    func insert(_ holder: LiveSession, id: SessionID, tokenDigest: [UInt8], connected: Bool) {
        sessions.withLock { $0[id] = Entry(holder: holder, tokenDigest: tokenDigest, connected: connected) }
        changes.notify()
    }

    /// The holders of the sessions started or resumed with the patient code `codeID` (docs/protocol.md §6.1).
    func holders(ofCode codeID: String) -> [LiveSession] {
        sessions.withLock { sessions in
            sessions.values.compactMap { $0.holder.caller.codeID == codeID ? $0.holder : nil }
        }
    }

    /// Removes the session if `holder` still holds it.
    func remove(_ id: SessionID, holder: LiveSession) {
        sessions.withLock { sessions in
            if sessions[id]?.holder === holder { sessions[id] = nil }
        }
        changes.notify()
    }

    /// Marks a session as on its way here from another node (or no longer).
    func setArriving(_ id: SessionID, _ isArriving: Bool) {
        _ = arriving.withLock { isArriving ? $0.insert(id).inserted : $0.remove(id) != nil }
        changes.notify()
    }

    /// Whether a resume here is taking the session from another node right now.
    func isArriving(_ id: SessionID) -> Bool { arriving.withLock { $0.contains(id) } }

    /// Records whether the session's client is attached, if `holder` still holds it.
    func setConnected(_ connected: Bool, id: SessionID, holder: LiveSession) {
        sessions.withLock { sessions in
            if sessions[id]?.holder === holder { sessions[id]?.connected = connected }
        }
    }

    /// The session `id` if it belongs to `tenant` (another tenant's session is as unknown as a missing one).
    func entry(_ id: SessionID, tenant: String) -> Entry? {
        sessions.withLock { $0[id] }.flatMap { $0.holder.tenant == tenant ? $0 : nil }
    }

    /// The live session `id` if it belongs to `tenant`, for watchers.
    func session(_ id: SessionID, tenant: String) -> LiveSession? { entry(id, tenant: tenant)?.holder }

    /// Whether the session's client is attached; nil when this node does not hold it.
    func isConnected(_ id: SessionID) -> Bool? { sessions.withLock { $0[id]?.connected } }

    var count: Int { sessions.withLock { $0.count } }
}
