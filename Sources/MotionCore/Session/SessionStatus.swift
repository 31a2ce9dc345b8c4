/// Where a stored session is in its life (docs/protocol.md §5: `live`, `finished`, `abandoned`).
///
/// The raw values are the wire and database spellings; never rename them.
public enum SessionStatus: String, Sendable, Hashable, CaseIterable {
    /// Poses are still arriving; the stored summary is the last checkpoint.
    case live
    /// Stopped normally; the stored summary is final.
    case finished
    /// The process that ran it died (or it was given up); the stored summary is the last checkpoint.
    case abandoned
}
