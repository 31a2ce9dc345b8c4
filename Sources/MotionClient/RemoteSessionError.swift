/// Why a ``RemoteMotionSession`` failed or refused a call. Every failure of the connection ends as one of these,
/// from ``RemoteMotionSession/connect()``, ``RemoteMotionSession/stop()`` and the calls after it, never as a hang.
public enum RemoteSessionError: Error, Equatable, Sendable {
    /// The server URL is not `ws://…` or `wss://…` with a host.
    case invalidServer(String)
    /// No connection could be opened (refused, timed out, not a WebSocket server, TLS refused): the transport's
    /// error.
    case connectionFailed(TransportError)
    /// The server refused the session with an `error` message (`unknownExercise`, `missingSide`, …).
    case refused(code: String, message: String)
    /// The server refused to resume the session after a drop (`unknownSession`, `invalidResume`, `resumeExpired`).
    case resumeRefused(code: String, message: String)
    /// The server sent what this protocol does not allow: not JSON, a binary message, an unknown first answer.
    case protocolViolation(String)
    /// The connection closed for good: the server's close code (nil when it sent none) and reason.
    case closed(code: Int?, reason: String)
    /// The server did not answer in time (`start`, `resume` or `stop`).
    case timedOut
    /// The connection dropped and could not be resumed within the configured attempts.
    case reconnectFailed(attempts: Int)
}
