/// Everything a screen needs about a session, as of the last processed pose.
public struct MotionSnapshot: Sendable, Hashable {
    /// The timestamp of the last processed pose, nil before the first.
    public var timestamp: Double?
    /// The smoothed current measurement in the exercise's unit, nil when it cannot be measured in the last pose.
    /// For an alternating exercise, the value of the side furthest from rest.
    public var value: Double?
    /// The furthest smoothed value from rest since the last reset (once counting began): the highest for a rising
    /// exercise, the lowest for a falling one; nil before any.
    public var best: Double?
    /// Clean reps since the last reset.
    public var repCount: Int
    /// Rejected reps since the last reset.
    public var rejectedCount: Int
    /// The most recent rep, clean or rejected.
    public var lastRep: Rep?
    /// 0…1 while holding, nil otherwise.
    public var holdProgress: Double?
    /// The lowest confidence among the measured joints in the last pose, nil without confidences.
    public var confidence: Double?
    /// Camera placement problems (debounced).
    public var setupIssues: SetupIssueSet
    /// Whether the measured joints are seen (debounced).
    public var isVisible: Bool
    /// The measured joints not seen (debounced).
    public var missingJoints: JointSet
    /// Whether the session is processing poses.
    public var isRunning: Bool
    /// The baseline measurement, nil when none is running or done.
    public var baseline: BaselineStatus?
    /// Alternating exercises: the side ``value`` belongs to; nil otherwise.
    public var side: BodySide?
    /// Progress through the prescribed sets, nil when no rep goal was prescribed.
    public var set: SetProgress?
    /// How much the phone moves over the last seconds (docs/protocol.md §3.3 `snapshot.motion`); nil without motion
    /// samples. The engine never sets it: the session that feeds a ``MotionAnalyzer`` does.
    public var motion: MotionLevel? = nil

    /// Creates a snapshot from its parts: what a client rebuilds from a server's `snapshot` message.
    /// - Parameters: One per property, with the same meaning; `isVisible` defaults to `missingJoints` being empty.
    public init(
        timestamp: Double? = nil, value: Double? = nil, best: Double? = nil, repCount: Int = 0, rejectedCount: Int = 0,
        lastRep: Rep? = nil, holdProgress: Double? = nil, confidence: Double? = nil, setupIssues: SetupIssueSet = [],
        isVisible: Bool? = nil, missingJoints: JointSet = [], isRunning: Bool = true, baseline: BaselineStatus? = nil,
        side: BodySide? = nil, set: SetProgress? = nil, motion: MotionLevel? = nil
    ) {
        self.timestamp = timestamp
        self.value = value
        self.best = best
        self.repCount = repCount
        self.rejectedCount = rejectedCount
        self.lastRep = lastRep
        self.holdProgress = holdProgress
        self.confidence = confidence
        self.setupIssues = setupIssues
        self.isVisible = isVisible ?? missingJoints.isEmpty
        self.missingJoints = missingJoints
        self.isRunning = isRunning
        self.baseline = baseline
        self.side = side
        self.set = set
        self.motion = motion
    }
}

/// Progress through prescribed sets of reps (``Prescription/reps`` × ``Prescription/sets``).
public struct SetProgress: Sendable, Hashable {
    /// The set under way, 1-based; once every set is done, the last one.
    public var number: Int
    /// How many sets were prescribed (1 when only a rep goal was).
    public var of: Int
    /// Clean reps in this set.
    public var reps: Int
    /// Clean reps per set, the goal.
    public var goal: Int

    /// Creates a progress value.
    /// - Parameters:
    ///   - number: The set under way.
    ///   - of: Sets prescribed.
    ///   - reps: Clean reps in it.
    ///   - goal: Reps per set.
    public init(number: Int, of: Int, reps: Int, goal: Int) {
        self.number = number
        self.of = of
        self.reps = reps
        self.goal = goal
    }

    /// Whether every prescribed set has reached its goal.
    public var isComplete: Bool { number == of && reps >= goal }
}

/// Progress of a baseline measurement.
public struct BaselineStatus: Sendable, Hashable {
    /// 0…1.
    public var progress: Double
    /// The baseline in degrees once done.
    public var value: Double?

    /// Creates a status.
    /// - Parameters:
    ///   - progress: 0…1.
    ///   - value: The result once done.
    public init(progress: Double, value: Double?) {
        self.progress = progress
        self.value = value
    }
}
