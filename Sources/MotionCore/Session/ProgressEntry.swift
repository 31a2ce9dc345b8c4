/// One session of a subject's progress (docs/protocol.md §5.2, `GET /v1/subjects/{subject}/progress`): when it was,
/// what, and how it went. The stores read it, the server writes it as it is: times in Unix seconds, as on the wire.
public struct ProgressEntry: Sendable, Hashable {
    /// The session id.
    public var id: String
    /// When the session started on the server's clock, Unix seconds (to the millisecond).
    public var startedAt: Double
    /// The exercise id.
    public var exercise: String
    /// Live, finished or abandoned.
    public var status: SessionStatus
    /// The furthest value from rest (highest rising, lowest falling), nil before any.
    public var best: Double?
    /// Clean reps.
    public var repCount: Int
    /// Rejected reps.
    public var rejectedCount: Int
    /// The mean peak of the clean reps, nil without any.
    public var meanPeak: Double?
    /// How often each form fault was given in the session, as in its summary.
    public var faultCounts: [FormFeedback: Int]
    /// The target the session counted against: its prescription's, else its exercise's then; nil for a session
    /// stored before the prescription was kept.
    public var target: Double?
    /// The programme item the session was started for, if any (docs/protocol.md §5.3).
    public var programme: ProgrammeLink? = nil
    /// The goal of its prescription and how far it got, if it had one.
    public var goal: Goal? = nil
    /// Whether it was a demonstration.
    public var demo = false

    /// Creates an entry.
    /// - Parameters:
    ///   - id: The session id.
    ///   - startedAt: Its start, Unix seconds.
    ///   - exercise: The exercise id.
    ///   - status: Where it stands.
    ///   - best: The furthest value from rest.
    ///   - repCount: Clean reps.
    ///   - rejectedCount: Rejected reps.
    ///   - meanPeak: The clean reps' mean peak.
    ///   - faultCounts: How often each form fault was given.
    ///   - target: The target in effect.
    public init(
        id: String, startedAt: Double, exercise: String, status: SessionStatus, best: Double?,
        repCount: Int, rejectedCount: Int, meanPeak: Double?, faultCounts: [FormFeedback: Int] = [:],
        target: Double? = nil
    ) {
        self.id = id
        self.startedAt = startedAt
        self.exercise = exercise
        self.status = status
        self.best = best
        self.repCount = repCount
        self.rejectedCount = rejectedCount
        self.meanPeak = meanPeak
        self.faultCounts = faultCounts
        self.target = target
    }
}
