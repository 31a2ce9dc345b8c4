/// Whether a session met the goal of its prescription (docs/protocol.md §5.3): its clean reps reach `reps` in each of
/// `sets` sets; for holds, `sets` holds of at least `holdSeconds` (each counted as a clean rep when it reaches that
/// time).
///
/// ```swift
/// Goal(prescription: Prescription(reps: 10, sets: 3), repCount: 24)
/// // sets 3, setsDone 2, repsPerSet 10, met false
/// ```
public struct Goal: Sendable, Hashable {
    /// The sets prescribed.
    public var sets: Int
    /// The sets completed: whole multiples of ``repsPerSet`` among the clean reps, at most ``sets``.
    public var setsDone: Int
    /// The clean reps (or holds) of a set.
    public var repsPerSet: Int
    /// Whether every set was completed.
    public var met: Bool { setsDone >= sets }

    /// Creates a goal from its parts.
    /// - Parameters:
    ///   - sets: The sets prescribed.
    ///   - setsDone: The sets completed.
    ///   - repsPerSet: The reps of a set.
    public init(sets: Int, setsDone: Int, repsPerSet: Int) {
        self.sets = sets
        self.setsDone = setsDone
        self.repsPerSet = repsPerSet
    }

    /// The goal of an effective prescription after `repCount` clean reps, or nil when it sets none: a goal needs
    /// `reps`, or, for a hold (`holdSeconds` in effect), `sets` (one hold a set). `sets` defaults to 1.
    /// - Parameters:
    ///   - prescription: The prescription in effect (``SessionSummary/prescription``).
    ///   - repCount: The clean reps (holds that reached their time) since the last reset.
    public init?(prescription: Prescription, repCount: Int) {
        let perSet: Int
        if let reps = prescription.reps {
            perSet = reps
        } else if prescription.holdSeconds != nil, prescription.sets != nil {
            perSet = 1
        } else {
            return nil
        }
        guard perSet > 0 else { return nil }
        let sets = max(prescription.sets ?? 1, 1)
        self.init(sets: sets, setsDone: min(sets, max(repCount, 0) / perSet), repsPerSet: perSet)
    }
}

extension SessionSummary {
    /// The goal of the session's prescription and how far it got (nil when the prescription sets none).
    public var goal: Goal? { Goal(prescription: prescription, repCount: repCount) }
}
