/// What happens to a ``RemoteMotionSession``'s connection, for an app that shows it (``RemoteMotionSession/connectionEvents()``).
public enum ConnectionEvent: Sendable, Equatable {
    /// The session started on the server (`started`).
    case started(session: String)
    /// The connection dropped; the session will be resumed.
    case disconnected(code: Int?)
    /// The session was resumed on a new connection (`resumed`); frames after `t` were sent again.
    case resumed(t: Double?, resent: Int)
    /// The send queue was full: its `count` oldest entries, up to the pose at `through`, were dropped to keep the
    /// newest. The server never analyses them, so the summary may differ from a session that kept everything.
    case framesDropped(count: Int, through: Double?)
    /// The server refused one message and the session goes on (`invalidPose`, `nonIncreasingTime`, …).
    case serverError(code: String, message: String)
    /// The session failed for good.
    case failed(RemoteSessionError)
}
