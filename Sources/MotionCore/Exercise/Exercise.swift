/// An exercise the engine can measure: data, not code.
///
/// An entry names what is measured (``Measurement``), how repetitions or holds are recognised (``Thresholds``),
/// the form rules that apply, and the camera view it needs. Adding an exercise means adding a value to
/// ``Exercise/catalog`` or decoding one from JSON.
public struct Exercise: Sendable, Hashable, Codable, Identifiable {
    /// The camera view an exercise needs.
    public enum View: String, Sendable, Hashable, Codable {
        /// The camera faces the person.
        case frontal
        /// The camera sees the person from the side.
        case sagittal
    }

    /// What completes a repetition.
    public enum Kind: String, Sendable, Hashable, Codable {
        /// Out and back: the value rises past a threshold and returns.
        case rep
        /// The value is held at or above a threshold for a time.
        case hold
    }

    /// Whether a session must say which side works.
    public enum Sidedness: String, Sendable, Hashable, Codable {
        /// One side at a time; a session names it.
        case oneSided
        /// Both sides move together; the engine measures whichever side it sees best unless one is named.
        case bilateral
    }

    /// Stable identifier, e.g. `elbowFlexion`.
    public var id: String
    /// A short English name for lists; clients may translate by `id`.
    public var name: String
    /// The camera view the exercise needs.
    public var view: View
    /// Repetitions or holds.
    public var kind: Kind
    /// Whether a side must be named.
    public var sidedness: Sidedness
    /// The measured quantity.
    public var measurement: Measurement
    /// How repetitions or holds are recognised.
    public var thresholds: Thresholds
    /// The value a person aims for, in degrees (a normal range from CLINICAL.md, never a pass mark).
    public var target: Double
    /// Form rules that apply.
    public var rules: [FormRule]
    /// Smoothing of the measured value.
    public var smoothing: Smoothing

    /// Creates an exercise.
    /// - Parameters:
    ///   - id: Stable identifier.
    ///   - name: Short English name.
    ///   - view: The camera view needed.
    ///   - kind: Repetitions or holds.
    ///   - sidedness: Whether a side must be named.
    ///   - measurement: The measured quantity.
    ///   - thresholds: Recognition thresholds.
    ///   - target: The aim in degrees.
    ///   - rules: Form rules.
    ///   - smoothing: Smoothing parameters.
    public init(
        id: String, name: String, view: View, kind: Kind, sidedness: Sidedness, measurement: Measurement,
        thresholds: Thresholds, target: Double, rules: [FormRule] = [], smoothing: Smoothing = Smoothing()
    ) {
        self.id = id
        self.name = name
        self.view = view
        self.kind = kind
        self.sidedness = sidedness
        self.measurement = measurement
        self.thresholds = thresholds
        self.target = target
        self.rules = rules
        self.smoothing = smoothing
    }

    private enum CodingKeys: String, CodingKey {
        case id, name, view, kind, sidedness, measurement, thresholds, target, rules, smoothing
    }

    /// Decodes an exercise; `rules` default to none, `smoothing` and `sidedness` (`oneSided`) to their defaults.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` for a missing required field or a wrong type.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try c.decode(String.self, forKey: .id), name: try c.decode(String.self, forKey: .name),
            view: try c.decode(View.self, forKey: .view), kind: try c.decode(Kind.self, forKey: .kind),
            sidedness: try c.decodeIfPresent(Sidedness.self, forKey: .sidedness) ?? .oneSided,
            measurement: try c.decode(Measurement.self, forKey: .measurement),
            thresholds: try c.decode(Thresholds.self, forKey: .thresholds),
            target: try c.decode(Double.self, forKey: .target),
            rules: try c.decodeIfPresent([FormRule].self, forKey: .rules) ?? [],
            smoothing: try c.decodeIfPresent(Smoothing.self, forKey: .smoothing) ?? Smoothing())
    }

    /// The form faults this exercise can report.
    public var possibleFaults: [FormFeedback] { Array(FormFeedbackSet(rules.map(\.fault))) }

    /// Problems that make the entry unusable, empty when it is sound.
    ///
    /// Checks the hysteresis order `rest ≤ exit < enter`, positive durations and hold time, and smoothing
    /// parameters. Entries decoded from JSON should be validated before use; ``MotionSession`` refuses invalid ones.
    public var validationErrors: [String] {
        var errors: [String] = []
        let t = thresholds
        if !(t.rest <= t.exit) { errors.append("thresholds.rest must not exceed thresholds.exit") }
        if !(t.exit < t.enter) { errors.append("thresholds.exit must be below thresholds.enter") }
        if !(t.minAmplitude >= 0) { errors.append("thresholds.minAmplitude must be ≥ 0") }
        if !(t.minDuration >= 0 && t.minDuration < t.maxDuration) {
            errors.append("thresholds.minDuration must be ≥ 0 and below maxDuration")
        }
        if kind == .hold, !(t.holdSeconds > 0) { errors.append("thresholds.holdSeconds must be > 0 for a hold") }
        if !(t.holdTolerance >= 0) { errors.append("thresholds.holdTolerance must be ≥ 0") }
        if !(smoothing.minCutoff > 0 && smoothing.derivativeCutoff > 0 && smoothing.beta >= 0) {
            errors.append("smoothing cut-offs must be > 0 and beta ≥ 0")
        }
        for rule in rules where !(rule.limit > 0) { errors.append("rule \(rule.fault.rawValue): limit must be > 0") }
        let numbers = [t.rest, t.exit, t.enter, t.minAmplitude, t.minDuration, t.maxDuration, t.holdSeconds, target]
        if numbers.contains(where: { !$0.isFinite }) { errors.append("every number must be finite") }
        return errors
    }
}

/// How the engine recognises a repetition or a hold in the smoothed value (degrees, seconds).
///
/// A rep is a hysteresis cycle: it begins when the value rises to `enter` and ends when it falls back to `exit`,
/// so jitter around either threshold never counts twice. Counting starts only after the value has been at or
/// below `rest` (the start position).
public struct Thresholds: Sendable, Hashable, Codable {
    /// At or below: the start position.
    public var rest: Double
    /// Rising to this begins a rep; for holds, the value to hold at or above.
    public var enter: Double
    /// Falling back to this ends a rep (below `enter`: the hysteresis band).
    public var exit: Double
    /// The least rise from the trough before the rep to its peak for a rep to count.
    public var minAmplitude: Double
    /// The shortest rep that counts, in seconds.
    public var minDuration: Double
    /// The longest rep that counts, in seconds; longer attempts are dropped.
    public var maxDuration: Double
    /// Hold exercises: how long to hold, in seconds.
    public var holdSeconds: Double
    /// Hold exercises: how far below `enter` the value may dip without ending the hold.
    public var holdTolerance: Double

    private enum CodingKeys: String, CodingKey {
        case rest, enter, exit, minAmplitude, minDuration, maxDuration, holdSeconds, holdTolerance
    }

    /// Decodes thresholds; the durations and hold fields may be left out for their defaults.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` for a missing `rest`, `enter`, `exit` or `minAmplitude`, or a wrong type.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let defaults = Thresholds(rest: 0, enter: 0, exit: 0, minAmplitude: 0)
        self.init(
            rest: try c.decode(Double.self, forKey: .rest), enter: try c.decode(Double.self, forKey: .enter),
            exit: try c.decode(Double.self, forKey: .exit),
            minAmplitude: try c.decode(Double.self, forKey: .minAmplitude),
            minDuration: try c.decodeIfPresent(Double.self, forKey: .minDuration) ?? defaults.minDuration,
            maxDuration: try c.decodeIfPresent(Double.self, forKey: .maxDuration) ?? defaults.maxDuration,
            holdSeconds: try c.decodeIfPresent(Double.self, forKey: .holdSeconds) ?? defaults.holdSeconds,
            holdTolerance: try c.decodeIfPresent(Double.self, forKey: .holdTolerance) ?? defaults.holdTolerance)
    }

    /// Creates thresholds.
    /// - Parameters:
    ///   - rest: Start position, at or below.
    ///   - enter: Rep begins (hold threshold for holds).
    ///   - exit: Rep ends.
    ///   - minAmplitude: Least rise from trough to peak.
    ///   - minDuration: Shortest rep, seconds.
    ///   - maxDuration: Longest rep, seconds.
    ///   - holdSeconds: Hold time, seconds.
    ///   - holdTolerance: Allowed dip below `enter` while holding.
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
public struct FormRule: Sendable, Hashable, Codable {
    /// The fault reported when the rule is broken.
    public var fault: FormFeedback
    /// What the rule watches.
    public var measurement: Measurement
    /// The largest allowed value (or drift, with `relativeToStart`), in degrees.
    public var limit: Double
    /// Whether `limit` bounds the change since the start position rather than the value itself.
    public var relativeToStart: Bool

    private enum CodingKeys: String, CodingKey {
        case fault, measurement, limit, relativeToStart
    }

    /// Decodes a rule; `relativeToStart` defaults to false.
    /// - Parameter decoder: The decoder.
    /// - Throws: `DecodingError` for a missing field or a wrong type.
    public init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            fault: try c.decode(FormFeedback.self, forKey: .fault),
            measurement: try c.decode(Measurement.self, forKey: .measurement),
            limit: try c.decode(Double.self, forKey: .limit),
            relativeToStart: try c.decodeIfPresent(Bool.self, forKey: .relativeToStart) ?? false)
    }

    /// Creates a rule.
    /// - Parameters:
    ///   - fault: The fault reported.
    ///   - measurement: What is watched.
    ///   - limit: Largest allowed value or drift, degrees.
    ///   - relativeToStart: Whether the limit bounds the drift from the start position.
    public init(fault: FormFeedback, measurement: Measurement, limit: Double, relativeToStart: Bool = false) {
        self.fault = fault
        self.measurement = measurement
        self.limit = limit
        self.relativeToStart = relativeToStart
    }
}

/// Parameters of the One Euro filter that smooths the measured value (Casiez et al., CHI 2012).
public struct Smoothing: Sendable, Hashable, Codable {
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
