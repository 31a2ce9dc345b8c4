/// Everything that shapes one analysis session. Every field but the exercise has a safe default.
public struct SessionConfiguration: Sendable, Hashable {
    /// The exercise measured.
    public var exercise: Exercise
    /// The working side: required for one-sided exercises; optional for bilateral ones (the engine then
    /// measures whichever side it sees completely).
    public var side: BodySide?
    /// Overrides the exercise's target, degrees.
    public var target: Double?
    /// Overrides the exercise's hold time, seconds.
    public var holdSeconds: Double?
    /// How many clean reps a baseline averages (holds always use the first hold).
    public var baselineReps: Int = 3
    /// Whether the baseline starts with the session.
    public var startsBaseline = false
    /// How long visibility must stay changed before it is reported, seconds.
    public var visibilityDelay = 0.3
    /// How long placement must stay changed before it is reported, seconds.
    public var setupDelay = 0.5
    /// How long a form rule must stay broken before it is reported, seconds.
    public var faultDelay = 0.25
    /// A gap between measurable poses longer than this restarts the smoothing and pauses hold time, seconds.
    public var maxGap = 0.5
    /// Spacing of the stored value series, seconds.
    public var seriesInterval = 0.1
    /// The most samples the stored value series keeps (it halves its resolution when full).
    public var seriesCapacity = 36_000
    /// Placement limits.
    public var setupLimits = SetupLimits()

    /// Creates a configuration.
    /// - Parameters:
    ///   - exercise: The exercise.
    ///   - side: The working side.
    public init(exercise: Exercise, side: BodySide? = nil) {
        self.exercise = exercise
        self.side = side
    }

    /// The exercise with the overrides applied.
    public var effectiveExercise: Exercise {
        var exercise = exercise
        if let target { exercise.target = target }
        if let holdSeconds { exercise.thresholds.holdSeconds = holdSeconds }
        return exercise
    }
}

/// Why a session could not be created.
public enum SessionError: Error, Sendable, Equatable {
    /// A one-sided exercise was started without a side.
    case missingSide(exercise: String)
    /// The exercise or an option is not usable; the strings say why.
    case invalidConfiguration([String])
}

/// Why a pose was refused. A refused pose changes nothing in the session.
public enum PoseError: Error, Sendable, Equatable {
    /// The timestamp is not after the previous pose's (PROTOCOL.md §2).
    case nonIncreasingTime(previous: Double, received: Double)
    /// A timestamp, coordinate, confidence or image size is not a finite number, or the image size is not positive.
    case nonFinite
    /// The session was stopped.
    case notRunning
}
