public import MotionCore

/// One session as a FHIR R4 `Observation` says it (docs/fhir.md): what ``FHIREncoder`` writes, taken from the
/// session's summary and what the server knows about it.
///
/// ```swift
/// let observation = FHIRObservation(
///     summary: session.summary, metadata: metadata, entry: "urn:uuid:…", exercise: coding, unit: .degrees,
///     kind: .rep)
/// ```
public struct FHIRObservation: Sendable, Hashable {
    /// A code of a code system, with its display.
    public struct Coding: Sendable, Hashable {
        /// The code system's URI.
        public var system: String
        /// The code.
        public var code: String
        /// The display, nil for none.
        public var display: String?

        /// Creates a coding.
        /// - Parameters:
        ///   - system: The code system's URI.
        ///   - code: The code.
        ///   - display: The display.
        public init(system: String, code: String, display: String?) {
            self.system = system
            self.code = code
            self.display = display
        }
    }

    /// The session id (`Observation.id` and `identifier`).
    public var id: String
    /// The entry's `fullUrl`, a `urn:uuid:` URI of its own.
    public var entry: String
    /// Where the session stands: `live` is `preliminary`, `finished` and `abandoned` are `final`.
    public var status: SummaryMetadata.Status
    /// When the session started, Unix seconds (server clock).
    public var startedAt: Double
    /// When it ended, Unix seconds; nil while live.
    public var endedAt: Double?
    /// The exercise: a built-in one in ``FHIRSystem/exercises``, a custom one in its tenant's system.
    public var exercise: Coding
    /// The unit of the exercise's values; nil when the definition could not be read (no value component is then
    /// written for best and mean peak).
    public var unit: Measurement.Unit?
    /// The subject, nil or empty for none.
    public var subject: String?
    /// The working side of a one-sided exercise.
    public var side: BodySide?
    /// Clean repetitions (completed holds).
    public var cleanReps: Int
    /// Rejected repetitions.
    public var rejectedReps: Int
    /// The best value, nil before any.
    public var best: Double?
    /// The clean repetitions' mean peak, nil without one.
    public var meanPeak: Double?
    /// Seconds from the first pose to the last, nil before any pose.
    public var duration: Double?
    /// Alternating exercises: each side's counts and best; empty otherwise.
    public var perSide: [BodySide: SideTally]
    /// Hold exercises: the seconds held in each attempt, in order; nil when the summary reports no hold times (a
    /// rep exercise).
    public var holds: [Double]?
    /// The programme item the session was started for (its `basedOn`), nil for none.
    public var programme: ProgrammeLink?

    /// Creates an observation from its parts.
    /// - Parameters:
    ///   - id: The session id.
    ///   - entry: The entry's `fullUrl`.
    ///   - status: Where the session stands.
    ///   - startedAt: Start time, Unix seconds.
    ///   - endedAt: End time, Unix seconds; nil while live.
    ///   - exercise: The exercise's coding.
    ///   - unit: The unit of the exercise's values.
    ///   - subject: The subject.
    ///   - side: The working side.
    ///   - cleanReps: Clean repetitions.
    ///   - rejectedReps: Rejected repetitions.
    ///   - best: The best value.
    ///   - meanPeak: The clean repetitions' mean peak.
    ///   - duration: Seconds of exercise.
    ///   - perSide: Each side's tally (alternating exercises).
    ///   - holds: The seconds held in each hold attempt (hold exercises).
    ///   - programme: The programme item the session was started for.
    public init(
        id: String, entry: String, status: SummaryMetadata.Status, startedAt: Double, endedAt: Double? = nil,
        exercise: Coding, unit: Measurement.Unit?, subject: String? = nil, side: BodySide? = nil, cleanReps: Int = 0,
        rejectedReps: Int = 0, best: Double? = nil, meanPeak: Double? = nil, duration: Double? = nil,
        perSide: [BodySide: SideTally] = [:], holds: [Double]? = nil, programme: ProgrammeLink? = nil
    ) {
        self.id = id
        self.entry = entry
        self.status = status
        self.startedAt = startedAt
        self.endedAt = endedAt
        self.exercise = exercise
        self.unit = unit
        self.subject = subject
        self.side = side
        self.cleanReps = cleanReps
        self.rejectedReps = rejectedReps
        self.best = best
        self.meanPeak = meanPeak
        self.duration = duration
        self.perSide = perSide
        self.holds = holds
        self.programme = programme
    }

    /// The observation of a stored session: its counts, best, the clean reps' mean peak, duration, side, per-side
    /// tallies and hold times from `summary`, and its times, status and programme item from `metadata`.
    ///
    /// The hold times are the summary's `holds` (docs/protocol.md §5.4) for a hold exercise, none at all for a rep
    /// exercise; for an exercise of unknown kind, the summary's holds when it has any.
    /// - Parameters:
    ///   - summary: The session's summary.
    ///   - metadata: Its id, subject, status and server times.
    ///   - entry: The entry's `fullUrl`.
    ///   - exercise: The exercise's coding.
    ///   - unit: The unit of the exercise's values, nil when unknown.
    ///   - kind: Whether the exercise counts reps or holds, nil when unknown.
    public init(
        summary: SessionSummary, metadata: SummaryMetadata, entry: String, exercise: Coding, unit: Measurement.Unit?,
        kind: Exercise.Kind?
    ) {
        let held = summary.holds.map(\.held)
        let holds: [Double]? =
            switch kind {
            case .hold: held
            case .rep: nil
            case nil: held.isEmpty ? nil : held
            }
        let cleanPeaks = summary.reps.filter(\.isClean).map(\.peak)
        self.init(
            id: metadata.id, entry: entry, status: metadata.status, startedAt: metadata.startedAt,
            endedAt: metadata.endedAt, exercise: exercise, unit: unit, subject: metadata.subject, side: summary.side,
            cleanReps: summary.repCount, rejectedReps: summary.rejectedCount, best: summary.best,
            meanPeak: cleanPeaks.isEmpty ? nil : cleanPeaks.reduce(0, +) / Double(cleanPeaks.count),
            duration: summary.firstTimestamp == nil ? nil : summary.duration, perSide: summary.perSide,
            holds: holds, programme: metadata.programme)
    }
}
