/// An exercise the engine can measure: data, not code.
///
/// An entry names what is measured (``Measurement``) and which way a repetition goes (``Direction``), how
/// repetitions or holds are recognised (``Thresholds``), the form rules that apply, the camera view and the start
/// posture it needs. The built-in entries are ``Exercise/catalog``; a clinician's own are decoded from JSON
/// (docs/protocol.md §5.1) and checked with ``problems``.
public struct Exercise: Sendable, Hashable, Identifiable {
    /// The camera view an exercise needs.
    public enum View: String, Sendable, Hashable, CaseIterable {
        /// The camera faces the person.
        case frontal
        /// The camera sees the person from the side.
        case sagittal
    }

    /// What completes a repetition.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// Out and back: the value moves past `enter` and returns past `exit`.
        case rep
        /// The value is held past `enter` for a time.
        case hold
    }

    /// Which sides a session measures.
    public enum Sidedness: String, Sendable, Hashable, CaseIterable {
        /// One side at a time; a session names it.
        case oneSided
        /// Both sides move together; the engine measures whichever side it sees best unless one is named.
        case bilateral
        /// Left and right take turns (marching): both are measured and their reps counted apart.
        case alternating
    }

    /// Which way the value moves from the start position.
    ///
    /// A `falling` exercise is a `rising` one seen upside down: it starts at or above `rest`, a rep begins when the
    /// value falls to `enter` and ends when it rises back to `exit`, its peak is the lowest value reached, its best
    /// the lowest of the session, and a `falling` hold must stay at or below `enter`.
    public enum Direction: String, Sendable, Hashable, CaseIterable {
        /// A rep goes up from rest (elbow flexion).
        case rising
        /// A rep goes down from rest (sit-to-stand measured as knee flexion from seated).
        case falling

        /// +1 rising, −1 falling: the factor that turns a value into one that rises during a rep.
        @inlinable public var sign: Double { self == .rising ? 1 : -1 }
    }

    /// The posture an exercise starts in; a pose at rest in another posture is the setup issue `wrongPosture`.
    public enum Posture: String, Sendable, Hashable, CaseIterable {
        /// On the feet, thighs near vertical.
        case standing
        /// On a chair: trunk upright, thighs near horizontal.
        case seated
        /// On the back, front or side: the trunk near horizontal.
        case lying
    }

    /// Stable identifier, e.g. `elbowFlexion`: letters, digits, `-` and `_`, 1…64 characters.
    public var id: String
    /// A short English name for lists; clients may translate built-in entries by `id`.
    public var name: String
    /// The camera view the exercise needs.
    public var view: View
    /// Repetitions or holds.
    public var kind: Kind
    /// Which sides are measured.
    public var sidedness: Sidedness
    /// The posture the exercise starts in, nil when any will do.
    public var posture: Posture?
    /// The measured quantity.
    public var measurement: Measurement
    /// Which way a rep moves the value.
    public var direction: Direction
    /// How repetitions or holds are recognised.
    public var thresholds: Thresholds
    /// The value a person aims for, in the measurement's unit (a normal range of docs/clinical.md; never a pass mark).
    public var target: Double
    /// Form rules that apply.
    public var rules: [FormRule]
    /// Smoothing of the measured value.
    public var smoothing: Smoothing
    /// The definition's version: 1 for a new entry, one more with every change (a session keeps the version it
    /// used).
    public var version: Int
    /// Whether the entry is one of the built-in ``catalog``.
    public var isBuiltin: Bool

    /// Creates an exercise.
    /// - Parameters:
    ///   - id: Stable identifier.
    ///   - name: Short English name.
    ///   - view: The camera view needed.
    ///   - kind: Repetitions or holds.
    ///   - sidedness: Which sides are measured.
    ///   - posture: The start posture, nil for any.
    ///   - measurement: The measured quantity.
    ///   - direction: Which way a rep moves the value.
    ///   - thresholds: Recognition thresholds.
    ///   - target: The aim, in the measurement's unit.
    ///   - rules: Form rules.
    ///   - smoothing: Smoothing parameters.
    ///   - version: The definition's version.
    ///   - isBuiltin: Whether it is a catalog entry.
    public init(
        id: String, name: String, view: View, kind: Kind, sidedness: Sidedness, posture: Posture? = nil,
        measurement: Measurement, direction: Direction = .rising, thresholds: Thresholds, target: Double,
        rules: [FormRule] = [], smoothing: Smoothing = Smoothing(), version: Int = 1, isBuiltin: Bool = false
    ) {
        self.id = id
        self.name = name
        self.view = view
        self.kind = kind
        self.sidedness = sidedness
        self.posture = posture
        self.measurement = measurement
        self.direction = direction
        self.thresholds = thresholds
        self.target = target
        self.rules = rules
        self.smoothing = smoothing
        self.version = version
        self.isBuiltin = isBuiltin
    }

    /// The form faults this exercise can report, in vocabulary order.
    public var possibleFaults: [FormFeedback] { Array(FormFeedbackSet(rules.map(\.fault))) }

    /// The unit of ``target``, the thresholds and the measured value.
    public var unit: Measurement.Unit { measurement.unit }
}

/// How the engine recognises a repetition or a hold in the smoothed value (the measurement's unit, seconds).
///
/// A rep is a hysteresis cycle: for a `rising` exercise it begins when the value rises to `enter` and ends when it
/// falls back to `exit`, so jitter around either threshold never counts twice; counting starts only after the
/// value has been at or below `rest` (the start position). A `falling` exercise mirrors every comparison
/// (``Exercise/Direction``).
public struct Thresholds: Sendable, Hashable {
    /// The start position: at or below (rising), at or above (falling).
    public var rest: Double
    /// Reaching this begins a rep; for holds, the value to hold.
    public var enter: Double
    /// Returning to this ends a rep (between `rest` and `enter`: the hysteresis band).
    public var exit: Double
    /// The least movement from the start of a rep to its peak for the rep to count.
    public var minAmplitude: Double
    /// The shortest rep that counts, in seconds.
    public var minDuration: Double
    /// The longest rep that counts, in seconds; longer attempts are dropped.
    public var maxDuration: Double
    /// Hold exercises: how long to hold, in seconds.
    public var holdSeconds: Double
    /// Hold exercises: how far back past `enter` the value may go without ending the hold.
    public var holdTolerance: Double

    /// Creates thresholds.
    /// - Parameters:
    ///   - rest: Start position.
    ///   - enter: Rep begins (hold threshold for holds).
    ///   - exit: Rep ends.
    ///   - minAmplitude: Least movement from start to peak.
    ///   - minDuration: Shortest rep, seconds.
    ///   - maxDuration: Longest rep, seconds.
    ///   - holdSeconds: Hold time, seconds.
    ///   - holdTolerance: Allowed give past `enter` while holding.
    public init(
        rest: Double, enter: Double, exit: Double, minAmplitude: Double, minDuration: Double = 0.5,
        maxDuration: Double = 20, holdSeconds: Double = 5, holdTolerance: Double = 5
    ) {
        self.rest = rest
        self.enter = enter
        self.exit = exit
        self.minAmplitude = minAmplitude
        self.minDuration = minDuration
        self.maxDuration = maxDuration
        self.holdSeconds = holdSeconds
        self.holdTolerance = holdTolerance
    }
}

/// A form rule: a measured quantity that must stay within a limit while a rep or hold is under way.
public struct FormRule: Sendable, Hashable {
    /// The fault reported when the rule is broken.
    public var fault: FormFeedback
    /// What the rule watches.
    public var measurement: Measurement
    /// The largest allowed value (or change from the start position, with `relativeToStart`), in the
    /// measurement's unit.
    public var limit: Double
    /// Whether `limit` bounds the change since the start position (either way) rather than the value itself.
    public var relativeToStart: Bool

    /// Creates a rule.
    /// - Parameters:
    ///   - fault: The fault reported.
    ///   - measurement: What is watched.
    ///   - limit: Largest allowed value or change.
    ///   - relativeToStart: Whether the limit bounds the change since the start position.
    public init(fault: FormFeedback, measurement: Measurement, limit: Double, relativeToStart: Bool = false) {
        self.fault = fault
        self.measurement = measurement
        self.limit = limit
        self.relativeToStart = relativeToStart
    }
}

/// Parameters of the One Euro filter that smooths the measured value (Casiez et al., CHI 2012).
public struct Smoothing: Sendable, Hashable {
    /// Cut-off frequency at rest, Hz: lower removes more jitter when still.
    public var minCutoff: Double
    /// How fast the cut-off rises with speed: higher follows fast moves (and peaks) more closely.
    public var beta: Double
    /// Cut-off for the speed estimate, Hz.
    public var derivativeCutoff: Double

    /// Creates smoothing parameters.
    /// - Parameters:
    ///   - minCutoff: Cut-off at rest, Hz.
    ///   - beta: Speed coefficient.
    ///   - derivativeCutoff: Cut-off of the speed estimate, Hz.
    public init(minCutoff: Double = 1.5, beta: Double = 0.02, derivativeCutoff: Double = 1.0) {
        self.minCutoff = minCutoff
        self.beta = beta
        self.derivativeCutoff = derivativeCutoff
    }
}
