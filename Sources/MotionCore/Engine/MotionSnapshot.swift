/// Everything a screen needs about a session, as of the last processed pose.
public struct MotionSnapshot: Sendable, Hashable {
    /// The timestamp of the last processed pose, nil before the first.
    public var timestamp: Double?
    /// The smoothed current measurement in degrees, nil when it cannot be measured in the last pose.
    public var value: Double?
    /// The highest smoothed value since the last reset (once counting began), nil before any.
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
}

/// Progress of a baseline measurement.
public struct BaselineStatus: Sendable, Hashable, Codable {
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
