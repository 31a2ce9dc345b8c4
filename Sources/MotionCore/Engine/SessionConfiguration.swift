/// Everything that shapes one analysis session. Every field but the exercise has a safe default.
public struct SessionConfiguration: Sendable, Hashable {
    /// The exercise measured.
    public var exercise: Exercise
    /// The working side: required for one-sided exercises; optional for bilateral ones (the engine then
    /// measures whichever side it sees completely).
    public var side: BodySide?
    /// What the clinician prescribed: target, thresholds and goals that override the exercise's defaults.
    public var prescription = Prescription()
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
    /// How long before a rep starts a form rule broken between reps still counts against that rep, seconds: a
    /// movement starts before its measured value moves (a sit-to-stand leans forward while still seated).
    public var faultApproach = 1.0
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

    /// The exercise with the prescription applied (``Prescription/apply(to:)``).
    public var effectiveExercise: Exercise { prescription.apply(to: exercise) }
}

/// What a clinician prescribes for a session (docs/protocol.md §5.1): every field overrides the exercise's default.
///
/// **The rule for thresholds.** A prescribed `target` or `rest` moves the rep thresholds with it unless they are
/// given: `enter` and `exit` keep their place as fractions of the way from `rest` to `target`, and
/// `minAmplitude` shrinks or grows with that span. Shoulder abduction (rest 30°, enter 70°, exit 45°, target 180°)
/// prescribed to 50° enters at 30 + 40 × 20/150 ≈ 35.3°, exits at 32°, and needs 6° of movement: a patient who
/// reaches 55° has every rep counted.
public struct Prescription: Sendable, Hashable {
    /// The value to aim for, in the exercise's unit.
    public var target: Double?
    /// The start position.
    public var rest: Double?
    /// Where a rep begins (for holds: the value to hold).
    public var enter: Double?
    /// Where a rep ends.
    public var exit: Double?
    /// Hold exercises: seconds to hold.
    public var holdSeconds: Double?
    /// Clean reps per set, the goal.
    public var reps: Int?
    /// Sets of `reps`.
    public var sets: Int?

    /// Creates a prescription; every field left nil keeps the exercise's default.
    /// - Parameters:
    ///   - target: The aim.
    ///   - rest: The start position.
    ///   - enter: Rep begins.
    ///   - exit: Rep ends.
    ///   - holdSeconds: Seconds to hold.
    ///   - reps: Reps per set.
    ///   - sets: Sets.
    public init(
        target: Double? = nil, rest: Double? = nil, enter: Double? = nil, exit: Double? = nil,
        holdSeconds: Double? = nil, reps: Int? = nil, sets: Int? = nil
    ) {
        self.target = target
        self.rest = rest
        self.enter = enter
        self.exit = exit
        self.holdSeconds = holdSeconds
        self.reps = reps
        self.sets = sets
    }

    /// `exercise` with this prescription's target, thresholds and hold time, by the rule above.
    /// - Parameter exercise: The exercise as defined.
    public func apply(to exercise: Exercise) -> Exercise {
        var result = exercise
        let defaults = exercise.thresholds
        let rest = self.rest ?? defaults.rest
        let target = self.target ?? exercise.target
        let span = exercise.target - defaults.rest
        let scale = span != 0 ? (target - rest) / span : 1
        func moved(_ level: Double) -> Double { rest + (level - defaults.rest) * scale }
        result.target = target
        result.thresholds.rest = rest
        result.thresholds.enter = enter ?? moved(defaults.enter)
        result.thresholds.exit = exit ?? moved(defaults.exit)
        if scale.isFinite, scale > 0 { result.thresholds.minAmplitude = defaults.minAmplitude * scale }
        if let holdSeconds { result.thresholds.holdSeconds = holdSeconds }
        return result
    }

    /// The prescription in effect for `exercise` (as ``apply(to:)`` makes it, with the goals): what a summary
    /// stores.
    /// - Parameter exercise: The exercise with this prescription applied.
    public func effective(for exercise: Exercise) -> Prescription {
        Prescription(
            target: exercise.target, rest: exercise.thresholds.rest, enter: exercise.thresholds.enter,
            exit: exercise.thresholds.exit, holdSeconds: exercise.kind == .hold ? exercise.thresholds.holdSeconds : nil,
            reps: reps, sets: sets)
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
    /// The timestamp is not after the previous pose's (docs/protocol.md §2).
    case nonIncreasingTime(previous: Double, received: Double)
    /// A timestamp, coordinate, confidence or image size is not a finite number, or the image size is not positive.
    case nonFinite
    /// The session was stopped.
    case notRunning
}
