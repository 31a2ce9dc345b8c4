/// Something that happened in a session, produced by the pose that caused it.
public enum MotionEvent: Sendable, Hashable {
    /// A repetition (or completed hold) with clean technique.
    case repCompleted(Rep)
    /// A repetition (or hold) during which a form rule was broken; `rep.faults` says which.
    case repRejected(Rep)
    /// The value reached the hold threshold: the hold clock started.
    case holdStarted
    /// A form rule has been broken for about 0.25 s; reported once per rep and fault.
    case formFault(FormFeedback)
    /// Whether the measured joints are seen changed (debounced).
    case visibilityChanged(Visibility)
    /// The camera placement problems changed (debounced); the empty set means all good.
    case setupChanged(SetupIssueSet)
    /// The baseline measurement finished with this value, in degrees.
    case baselineCompleted(Double)

    /// The wire name of the event (PROTOCOL.md §3).
    public var name: String {
        switch self {
        case .repCompleted: "repCompleted"
        case .repRejected: "repRejected"
        case .holdStarted: "holdStarted"
        case .formFault: "formFault"
        case .visibilityChanged: "visibilityChanged"
        case .setupChanged: "setupChanged"
        case .baselineCompleted: "baselineCompleted"
        }
    }
}

/// Whether the joints an exercise measures are seen.
public struct Visibility: Sendable, Hashable {
    /// The required joints not seen; empty when visible.
    public var missingJoints: JointSet

    /// Creates a visibility value.
    /// - Parameter missingJoints: The required joints not seen.
    public init(missingJoints: JointSet) { self.missingJoints = missingJoints }

    /// Whether every required joint is seen.
    public var isVisible: Bool { missingJoints.isEmpty }
}

/// One repetition, or one completed hold.
public struct Rep: Sendable, Hashable, Codable {
    /// 1-based position among the session's reps, clean and rejected alike, since the last reset.
    public var index: Int
    /// The highest smoothed value during the rep, degrees.
    public var peak: Double
    /// The lowest smoothed value at rest before the rep, degrees.
    public var trough: Double
    /// When the rep left the start position (pose time, seconds).
    public var start: Double
    /// When the rep returned (or the hold completed).
    public var end: Double
    /// Form faults during the rep, in vocabulary order.
    public var faults: FormFeedbackSet

    /// Creates a rep.
    /// - Parameters:
    ///   - index: 1-based position.
    ///   - peak: Highest value.
    ///   - trough: Lowest value before it.
    ///   - start: Start time.
    ///   - end: End time.
    ///   - faults: Faults during the rep.
    public init(index: Int, peak: Double, trough: Double, start: Double, end: Double, faults: FormFeedbackSet = []) {
        self.index = index
        self.peak = peak
        self.trough = trough
        self.start = start
        self.end = end
        self.faults = faults
    }

    /// Seconds from start to end.
    public var duration: Double { end - start }
    /// Peak minus trough, degrees.
    public var range: Double { peak - trough }
    /// Whether no form rule was broken.
    public var isClean: Bool { faults.isEmpty }
}
