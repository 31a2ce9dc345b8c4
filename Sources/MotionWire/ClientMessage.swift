public import MotionCore

/// A message from a client over WebSocket (PROTOCOL.md §3), decoded by ``MessageDecoder``.
public enum ClientMessage: Sendable, Equatable {
    /// `start`: must be the first message.
    case start(StartRequest)
    /// `pose`: one frame, converted to pixels with y down and anatomical sides.
    case pose(Pose)
    /// `poses`: a batch of frames, in order.
    case poses([Pose])
    /// `reset`: best, counts and the current rep start over.
    case reset
    /// `baseline`: start or restart the baseline measurement.
    case baseline
    /// `stop`: finish the session.
    case stop
}
