import MotionWire

/// The once-per-session `unknownJoint` answer (docs/protocol.md §3): the first joint name a session's accepted poses
/// carry that is not a joint of docs/protocol.md §1 is told to the client once, and the session goes on.
///
/// Keep one per session, pass ``report`` to every decoding call, and ask ``take()`` after each.
struct UnknownJointNotice {
    /// What the decoder noticed over the session.
    var report = DecodingReport()
    private var told = false

    /// The `unknownJoint` error to tell the client, the first time the session has one; nil before and after.
    mutating func take() -> WireError? {
        guard !told, let name = report.unknownJoint else { return nil }
        told = true
        return WireError.unknownJoint(name)
    }
}
