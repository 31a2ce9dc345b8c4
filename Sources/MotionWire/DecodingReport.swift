/// What the decoders noticed in input they accepted, beside the values they return: the first joint name that is
/// not a joint of docs/protocol.md §1.
///
/// Pass one `inout` to the decoding calls that take it. A decoder fills a field only while it is nil, and only
/// from input it accepts (a refused message or frame leaves the report as it was), so:
/// - a report kept for a whole session names the session's first unknown joint, and its name is allocated once,
///   however many poses repeat it;
/// - a fresh report per message names the first unknown joint of that message.
///
/// When nothing is noticed, reporting costs no allocation.
///
/// ```swift
/// var report = DecodingReport()  // one per session
/// var toldUnknownJoint = false
/// let message = try decoder.decode(bytes, report: &report)
/// if let name = report.unknownJoint, !toldUnknownJoint {
///     toldUnknownJoint = true
///     send(WireError.unknownJoint(name))  // once per session; the pose itself was accepted
/// }
/// ```
public struct DecodingReport: Sendable, Hashable {
    /// The longest name kept, in UTF-8 bytes: a name is cut to this, between two Unicode scalars, so a hostile
    /// member name costs a bounded string.
    public static let maxNameBytes = 64

    /// The first member name of a `points` or `confidence` object in an accepted pose that is not a joint of
    /// docs/protocol.md §1 (names are case-sensitive), e.g. Apple Vision's raw `left_shoulder_1_joint`, `LeftElbow` or
    /// `leftHeel`: unescaped, cut to ``maxNameBytes``. Nil while there has been none. The pose was decoded without
    /// it, as if that joint were not seen.
    public var unknownJoint: String?

    /// Creates a report.
    /// - Parameter unknownJoint: The unknown joint name already known, if any; decoders then leave it as is.
    public init(unknownJoint: String? = nil) {
        self.unknownJoint = unknownJoint
    }
}
