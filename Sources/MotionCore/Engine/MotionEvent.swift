/// Something that happened in a session, produced by the pose that caused it.
public enum MotionEvent: Sendable, Hashable {
    /// A repetition (or completed hold) with clean technique.
    case repCompleted(Rep)
    /// A repetition (or hold) during which a form rule was broken; `rep.faults` says which.
    case repRejected(Rep)
    /// The value reached the hold threshold: the hold clock started.
    case holdStarted
    /// A hold ended — the value left the tolerance, or the session stopped — with the time it was held
    /// (docs/protocol.md §5.4).
    case holdEnded(Hold)
    /// A form rule has been broken for about 0.25 s; reported once per rep and fault.
    case formFault(FormFeedback)
    /// Whether the measured joints are seen changed (debounced).
    case visibilityChanged(Visibility)
    /// The camera placement problems changed (debounced); the empty set means all good.
    case setupChanged(SetupIssueSet)
    /// The baseline measurement finished with this value, in the exercise's unit.
    case baselineCompleted(Double)
    /// Set `number` (1-based) reached its prescribed rep goal (``Prescription/reps``).
    case setCompleted(number: Int)

    /// The wire name of the event (docs/protocol.md §3).
    public var name: String {
        switch self {
        case .repCompleted: "repCompleted"
        case .repRejected: "repRejected"
        case .holdStarted: "holdStarted"
        case .holdEnded: "holdEnded"
        case .formFault: "formFault"
        case .visibilityChanged: "visibilityChanged"
        case .setupChanged: "setupChanged"
        case .baselineCompleted: "baselineCompleted"
        case .setCompleted: "setCompleted"
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

/// One attempt at a hold, from when the value reached the hold threshold until it left the tolerance or the session
/// stopped (docs/protocol.md §5.4): a plank held for two minutes reads 120 s, however short the prescribed hold.
public struct Hold: Sendable, Hashable {
    /// When the hold began (pose time, seconds).
    public var start: Double
    /// How long it was held, seconds of pose time (gaps in the poses longer than the engine's `maxGap` excluded).
    public var held: Double
    /// Whether it reached the exercise's hold time (and so counted as a rep).
    public var completed: Bool

    /// Creates a hold record.
    public init(start: Double, held: Double, completed: Bool) {
        self.start = start
        self.held = held
        self.completed = completed
    }
}

/// One repetition, or one completed hold.
public struct Rep: Sendable, Hashable {
    /// 1-based position among the session's reps, clean and rejected alike, since the last reset.
    public var index: Int
    /// The furthest smoothed value from rest during the rep: the highest for a rising exercise, the lowest for a
    /// falling one.
    public var peak: Double
    /// The smoothed value at the start position before the rep: its lowest for a rising exercise, its highest for
    /// a falling one.
    public var trough: Double
    /// When the rep left the start position (pose time, seconds).
    public var start: Double
    /// When the rep returned (or the hold completed).
    public var end: Double
    /// Seconds from ``start`` to the peak; nil for reps stored before it was recorded.
    public var timeToPeak: Double?
    /// The side that did the rep, for `alternating` exercises; nil otherwise.
    public var side: BodySide?
    /// Form faults during the rep, in vocabulary order.
    public var faults: FormFeedbackSet
    /// How the rep moved according to the phone's motion sensors (docs/protocol.md §3.3); nil without motion samples
    /// over the rep. The engine never sets it: the session that feeds a ``MotionAnalyzer`` attaches it
    /// (``MotionEngine/setMotion(_:ofRep:)``).
    public var motion: RepMotion?

    /// Creates a rep.
    /// - Parameters:
    ///   - index: 1-based position.
    ///   - peak: Furthest value from rest.
    ///   - trough: Start-position value before it.
    ///   - start: Start time.
    ///   - end: End time.
    ///   - timeToPeak: Seconds from start to the peak.
    ///   - side: The side, for alternating exercises.
    ///   - faults: Faults during the rep.
    ///   - motion: How the rep moved by the motion sensors, if known.
    public init(
        index: Int, peak: Double, trough: Double, start: Double, end: Double, timeToPeak: Double? = nil,
        side: BodySide? = nil, faults: FormFeedbackSet = [], motion: RepMotion? = nil
    ) {
        self.index = index
        self.peak = peak
        self.trough = trough
        self.start = start
        self.end = end
        self.timeToPeak = timeToPeak
        self.side = side
        self.faults = faults
        self.motion = motion
    }

    /// Seconds from start to end.
    public var duration: Double { end - start }
    /// How far the rep moved: the distance between peak and trough.
    public var range: Double { abs(peak - trough) }
    /// Whether no form rule was broken.
    public var isClean: Bool { faults.isEmpty }
}
