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

    /// Makes `holder` the session's holder, replacing any other.
    func insert(_ holder: LiveSession, id: SessionID, tokenDigest: [UInt8], connected: Bool) {
        sessions.withLock { $0[id] = Entry(holder: holder, tokenDigest: tokenDigest, connected: connected) }
    }

    /// Removes the session if `holder` still holds it.
    func remove(_ id: SessionID, holder: LiveSession) {
        sessions.withLock { sessions in
            if sessions[id]?.holder === holder { sessions[id] = nil }
        }
    }

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

/// The live sessions a previous process left in the store (it stopped, or died), found when this one starts: each
/// stays resumable until its window has passed since its last write, then is abandoned (``MotionServer``'s sweep).
/// A resume claims its session here, so two resumes of one stored session never both restore it.
final class OrphanedSessions: Sendable {
    private let entries = Locked<[SessionID: LiveSessionEntry]>([:])

    /// Adds the store's live sessions.
    func load(_ found: [LiveSessionEntry]) {
        entries.withLock { entries in
            for entry in found { entries[entry.id] = entry }
        }
    }

    /// What ``claim(_:tenant:tokenDigest:)`` found.
    enum Claim {
        /// The session, now taken out for restoring.
        case claimed(LiveSessionEntry)
        /// The session is here, but the token is not its own: it stays.
        case wrongToken
        /// No such session of this tenant here.
        case none
    }

    /// Takes the session `id` of `tenant` out for restoring it, if `tokenDigest` is its token's.
    func claim(_ id: SessionID, tenant: String, tokenDigest: [UInt8]) -> Claim {
        entries.withLock { entries in
            guard let entry = entries[id], entry.tenant == tenant else { return .none }
            guard let expected = entry.tokenDigest, ResumeToken.matches(tokenDigest, expected) else {
                return .wrongToken
            }
            entries[id] = nil
            return .claimed(entry)
        }
    }

    /// Puts back a session a resume claimed but could not restore (a store failure): it stays resumable.
    func putBack(_ entry: LiveSessionEntry) { entries.withLock { $0[entry.id] = entry } }

    /// Takes out the sessions last written before `cutoff` (Unix milliseconds): their window has passed.
    func takeExpired(writtenBefore cutoff: Int64) -> [LiveSessionEntry] {
        entries.withLock { entries in
            let expired = entries.values.filter { $0.updatedAt < cutoff }
            for entry in expired { entries[entry.id] = nil }
            return expired
        }
    }

    /// The earliest last write among the sessions, Unix milliseconds; nil when there are none.
    var oldestWrite: Int64? { entries.withLock { $0.values.map(\.updatedAt).min() } }
}
