/// The repetition and hold state machine, driven by the smoothed value (see ``Thresholds``).
///
///     waitingForStart ──value ≤ rest, setup fine──▶ resting ──value ≥ enter──▶ inRep ──value ≤ exit──▶ resting
///                                                      │                         (counted if long and wide enough)
///                                                      └──hold kind, value ≥ enter──▶ holding ──value leaves the
///                                                           tolerance──▶ resting, or waitingForRelease ──value ≤
///                                                           exit──▶ resting
///
/// A hold completes (counts) once held for `holdSeconds` and goes on being timed past it: it ends, reporting the time
/// held (docs/protocol.md §5.4), when the value leaves the tolerance or the session stops (``endHold(at:)``).
///
/// The counter works on oriented values, which rise during a rep whatever the exercise's direction: a `falling`
/// exercise's values and thresholds are negated on the way in (``orient(_:)``) and its peaks on the way out.
struct RepCounter: Sendable {
    enum Phase: Equatable, Sendable {
        case waitingForStart
        case resting(trough: Double, lastLow: Double)
        case inRep(start: Double, trough: Double, peak: Double, peakTime: Double)
        case holding(
            start: Double, trough: Double, peak: Double, peakTime: Double, held: Double, lastSample: Double,
            completed: Bool)
        case waitingForRelease
    }

    /// A finished rep or hold, in the exercise's own values (not oriented).
    struct Completion: Equatable, Sendable {
        var peak: Double
        var trough: Double
        var start: Double
        var end: Double
        var peakTime: Double
    }

    /// A hold that ended: when it began, how long it was held (seconds of pose time, gaps excluded) and whether it
    /// reached `holdSeconds`.
    struct HoldEnd: Equatable, Sendable {
        var start: Double
        var held: Double
        var completed: Bool
    }

    enum Step: Equatable, Sendable {
        case none
        case repStarted
        case holdStarted
        /// The hold ended: the value left the tolerance.
        case holdEnded(HoldEnd)
        case completed(Completion)
        /// An attempt too short, too small or too long to count.
        case dropped
    }

    let kind: Exercise.Kind
    /// +1 for rising exercises, −1 for falling ones.
    let sign: Double
    /// The thresholds, oriented: `rest ≤ exit < enter`.
    let rest: Double
    let enter: Double
    let exit: Double
    let minAmplitude: Double
    let minDuration: Double
    let maxDuration: Double
    let holdSeconds: Double
    let holdTolerance: Double
    /// Hold time only accrues between samples at most this far apart.
    let maxGap: Double
    private(set) var phase = Phase.waitingForStart

    init(kind: Exercise.Kind, direction: Exercise.Direction, thresholds: Thresholds, maxGap: Double) {
        self.kind = kind
        sign = direction.sign
        rest = sign * thresholds.rest
        enter = sign * thresholds.enter
        exit = sign * thresholds.exit
        minAmplitude = thresholds.minAmplitude
        minDuration = thresholds.minDuration
        maxDuration = thresholds.maxDuration
        holdSeconds = thresholds.holdSeconds
        holdTolerance = thresholds.holdTolerance
        self.maxGap = maxGap
    }

    /// The value as the counter sees it: rising during a rep.
    @inline(__always) func orient(_ value: Double) -> Double { sign * value }

    /// Whether a rep or hold is under way.
    var isInAttempt: Bool {
        switch phase {
        case .inRep, .holding: true
        default: false
        }
    }

    /// Whether the start position has been reached since the last reset.
    var hasStarted: Bool { phase != .waitingForStart }

    /// Whether `value` (not oriented) is the lowest point of the start position so far: at or past `rest` before
    /// counting began, at or past the trough while resting. Form rules relative to the start take their reference
    /// here, so a rep is judged against where it began, not where it crossed a threshold.
    func isAtLow(_ value: Double) -> Bool {
        switch phase {
        case .waitingForStart: orient(value) <= rest
        case .resting(let trough, _): orient(value) <= trough
        default: false
        }
    }

    /// Whether the posture may be judged with the value at `value` (not oriented; nil when unmeasured): always
    /// before counting began, so a person who never reaches the start position in the wrong posture is told; while
    /// resting only at or past `rest`, because on the way from the start position to `enter` the body passes
    /// through other postures (standing up from a chair passes through a squat); never during or just after an
    /// attempt.
    func isAtStartPosition(_ value: Double?) -> Bool {
        switch phase {
        case .waitingForStart: true
        case .resting: value.map { orient($0) <= rest } ?? false
        default: false
        }
    }

    /// 0…1 while holding, nil otherwise.
    var holdProgress: Double? {
        guard case .holding(_, _, _, _, let held, _, _) = phase else { return nil }
        return min(1, held / holdSeconds)
    }

    /// Ends a hold under way (the session stops): how long it was held, nil when no hold is under way.
    mutating func endHold() -> HoldEnd? {
        guard case .holding(let start, _, _, _, let held, _, let completed) = phase else { return nil }
        phase = .waitingForRelease
        return HoldEnd(start: start, held: held, completed: completed)
    }

    mutating func reset() { phase = .waitingForStart }

    /// Advances with the smoothed value `input` (not oriented) seen at `t`.
    /// - Parameter mayStart: Whether the start position may be accepted now (placement is fine).
    mutating func update(_ input: Double, at t: Double, mayStart: Bool) -> Step {
        let value = orient(input)
        switch phase {
        case .waitingForStart:
            if mayStart, value <= rest { phase = .resting(trough: value, lastLow: t) }
            return .none
        case .waitingForRelease:
            if value <= exit { phase = .resting(trough: value, lastLow: t) }
            return .none
        case .resting(var trough, var lastLow):
            if value <= exit {
                lastLow = t
                trough = min(trough, value)
            }
            guard value >= enter else {
                phase = .resting(trough: trough, lastLow: lastLow)
                return .none
            }
            if kind == .hold {
                phase = .holding(
                    start: t, trough: trough, peak: value, peakTime: t, held: 0, lastSample: t, completed: false)
                return .holdStarted
            }
            phase = .inRep(start: lastLow, trough: trough, peak: value, peakTime: t)
            return .repStarted
        case .inRep(let start, let trough, var peak, var peakTime):
            if value > peak {
                peak = value
                peakTime = t
            }
            if t - start > maxDuration {
                phase = .waitingForRelease
                return .dropped
            }
            guard value <= exit else {
                phase = .inRep(start: start, trough: trough, peak: peak, peakTime: peakTime)
                return .none
            }
            phase = .resting(trough: value, lastLow: t)
            let counts = t - start >= minDuration && peak - trough >= minAmplitude
            return counts ? .completed(completion(peak, trough, start, t, peakTime)) : .dropped
        case .holding(let start, let trough, var peak, var peakTime, var held, let lastSample, let completed):
            if value < enter - holdTolerance {
                // A hold that counted must be released before the next; one broken early may start again at once.
                phase = completed && value > exit ? .waitingForRelease : .resting(trough: value, lastLow: t)
                return .holdEnded(HoldEnd(start: start, held: held, completed: completed))
            }
            if t - lastSample <= maxGap { held += t - lastSample }
            if value > peak {
                peak = value
                peakTime = t
            }
            let completes = !completed && held >= holdSeconds
            phase = .holding(
                start: start, trough: trough, peak: peak, peakTime: peakTime, held: held, lastSample: t,
                completed: completed || completes)
            return completes ? .completed(completion(peak, trough, start, t, peakTime)) : .none
        }
    }

    private func completion(
        _ peak: Double, _ trough: Double, _ start: Double, _ end: Double, _ peakTime: Double
    )
        -> Completion
    {
        Completion(peak: orient(peak), trough: orient(trough), start: start, end: end, peakTime: peakTime)
    }
}

extension RepCounter {
    func save(to writer: inout EngineStateWriter) {
        switch phase {
        case .waitingForStart:
            writer.write(0)
        case .resting(let trough, let lastLow):
            writer.write(1)
            writer.write(trough)
            writer.write(lastLow)
        case .inRep(let start, let trough, let peak, let peakTime):
            writer.write(2)
            for value in [start, trough, peak, peakTime] { writer.write(value) }
        case .holding(let start, let trough, let peak, let peakTime, let held, let lastSample, let completed):
            writer.write(3)
            for value in [start, trough, peak, peakTime, held, lastSample] { writer.write(value) }
            writer.write(completed)
        case .waitingForRelease:
            writer.write(4)
        }
    }

    /// Restores what ``save(to:)`` wrote; before format version 5 a hold under way had not completed (a completed
    /// hold waited for release).
    mutating func restore(from reader: inout EngineStateReader, version: UInt8) throws(EngineStateError) {
        switch try reader.readCount() {
        case 0:
            phase = .waitingForStart
        case 1:
            phase = .resting(trough: try reader.readDouble(), lastLow: try reader.readDouble())
        case 2:
            phase = .inRep(
                start: try reader.readDouble(), trough: try reader.readDouble(), peak: try reader.readDouble(),
                peakTime: try reader.readDouble())
        case 3:
            guard kind == .hold else { throw .corrupt("a hold in a rep exercise") }
            phase = .holding(
                start: try reader.readDouble(), trough: try reader.readDouble(), peak: try reader.readDouble(),
                peakTime: try reader.readDouble(), held: try reader.readDouble(), lastSample: try reader.readDouble(),
                completed: version >= 5 ? try reader.readBool() : false)
        case 4:
            phase = .waitingForRelease
        default:
            throw .corrupt("an unknown counter phase")
        }
    }
}
