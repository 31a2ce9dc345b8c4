public import MotionCore

/// A message from a client over WebSocket (docs/protocol.md §3), decoded by ``MessageDecoder``.
public enum ClientMessage: Sendable, Equatable {
    /// `start`: must be the first message (or `resume`).
    case start(StartRequest)
    /// `resume`: instead of `start`, continues a session whose connection dropped (docs/protocol.md §3.1).
    case resume(ResumeRequest)
    /// `pose`: one frame, converted to pixels with y down and anatomical sides.
    case pose(Pose)
    /// `poses`: a batch of frames, in order, each judged alone (docs/protocol.md §3): its pose, or the error that
    /// refused it, ``ErrorCode/invalidPose`` (``ErrorCode/invalidMessage`` for a repeated `type`), its message naming
    /// the frame, e.g. `frames[3]: t is required`.
    /// The element's index is the frame's `batchIndex` (``WireEncoder/encodeError(_:frame:batchIndex:into:)``).
    case poses([Result<Pose, WireError>])
    /// `motion`: the phone's motion samples (docs/protocol.md §3.3), in order, each judged alone as the frames of `poses`
    /// are: its sample, or the error that refused it (``ErrorCode/invalidMessage``, its message naming the sample,
    /// e.g. `samples[3]: must be [t, ax, ay, az] or [t, ax, ay, az, rx, ry, rz]`); the element's index is the
    /// sample's `batchIndex`. See ``MotionDecoder``.
    case motion([Result<MotionSample, WireError>])
    /// `reset`: best, counts and the current rep start over.
    case reset
    /// `baseline`: start or restart the baseline measurement.
    case baseline
    /// `stop`: finish the session.
    case stop
}
