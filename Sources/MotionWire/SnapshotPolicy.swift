/// When a live session sends `snapshot` messages: `options.snapshots` in `start` (docs/protocol.md §3).
public enum SnapshotPolicy: Sendable, Hashable {
    /// One snapshot per processed pose (`"every"`, the default).
    case every
    /// No snapshots (`"off"`).
    case off
    /// At most one snapshot per this many seconds of pose time (a positive number on the wire).
    case interval(Double)
}
