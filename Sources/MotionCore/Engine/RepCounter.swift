/// The repetition and hold state machine, driven by the smoothed value (see ``Thresholds``).
///
///     waitingForStart ──value ≤ rest, setup fine──▶ resting ──value ≥ enter──▶ inRep ──value ≤ exit──▶ resting
///                                                      │                         (counted if long and wide enough)
///                                                      └──hold kind, value ≥ enter──▶ holding ──held long enough──▶
///                                                           waitingForRelease ──value ≤ exit──▶ resting
struct RepCounter: Sendable {
    enum Phase: Equatable, Sendable {
        case waitingForStart
        case resting(trough: Double, lastLow: Double)
        case inRep(start: Double, trough: Double, peak: Double)
        case holding(start: Double, trough: Double, peak: Double, held: Double, lastSample: Double)
        case waitingForRelease
    }

    enum Step: Equatable, Sendable {
        case none
        case repStarted
        case holdStarted
        case holdBroken
        case completed(peak: Double, trough: Double, start: Double, end: Double)
        /// An attempt too short, too small or too long to count.
        case dropped
    }

    let kind: Exercise.Kind
    let thresholds: Thresholds
    /// Hold time only accrues between samples at most this far apart.
    let maxGap: Double
    private(set) var phase = Phase.waitingForStart

    init(kind: Exercise.Kind, thresholds: Thresholds, maxGap: Double) {
        self.kind = kind
        self.thresholds = thresholds
        self.maxGap = maxGap
    }

    /// Whether a rep or hold is under way.
    var isInAttempt: Bool {
        switch phase {
        case .inRep, .holding: true
        default: false
        }
    }

    /// Whether the start position has been reached since the last reset.
    var hasStarted: Bool { phase != .waitingForStart }

    /// 0…1 while holding, nil otherwise.
    var holdProgress: Double? {
        guard case .holding(_, _, _, let held, _) = phase else { return nil }
        return min(1, held / thresholds.holdSeconds)
    }

    mutating func reset() { phase = .waitingForStart }

    /// Advances with the smoothed value `value` seen at `t`.
    /// - Parameter mayStart: Whether the start position may be accepted now (placement is fine).
    mutating func update(_ value: Double, at t: Double, mayStart: Bool) -> Step {
        let th = thresholds
        switch phase {
        case .waitingForStart:
            if mayStart, value <= th.rest { phase = .resting(trough: value, lastLow: t) }
            return .none
        case .waitingForRelease:
            if value <= th.exit { phase = .resting(trough: value, lastLow: t) }
            return .none
        case .resting(var trough, var lastLow):
            if value <= th.exit {
                lastLow = t
                trough = min(trough, value)
            }
            guard value >= th.enter else {
                phase = .resting(trough: trough, lastLow: lastLow)
                return .none
            }
            if kind == .hold {
                phase = .holding(start: t, trough: trough, peak: value, held: 0, lastSample: t)
                return .holdStarted
            }
            phase = .inRep(start: lastLow, trough: trough, peak: value)
            return .repStarted
        case .inRep(let start, let trough, var peak):
            peak = max(peak, value)
            if t - start > th.maxDuration {
                phase = .waitingForRelease
                return .dropped
            }
            guard value <= th.exit else {
                phase = .inRep(start: start, trough: trough, peak: peak)
                return .none
            }
            phase = .resting(trough: value, lastLow: t)
            let counts = t - start >= th.minDuration && peak - trough >= th.minAmplitude
            return counts ? .completed(peak: peak, trough: trough, start: start, end: t) : .dropped
        case .holding(let start, let trough, var peak, var held, let lastSample):
            if value < th.enter - th.holdTolerance {
                phase = .resting(trough: value, lastLow: t)
                return .holdBroken
            }
            if t - lastSample <= maxGap { held += t - lastSample }
            peak = max(peak, value)
            if held >= th.holdSeconds {
                phase = .waitingForRelease
                return .completed(peak: peak, trough: trough, start: start, end: t)
            }
            phase = .holding(start: start, trough: trough, peak: peak, held: held, lastSample: t)
            return .none
        }
    }
}
