/// Whether a session met the goal of its prescription (docs/protocol.md §5.3): `sets` sets of `reps` clean reps each,
/// counted as the session ran them (``SetCount``: a set is done without a rest, an alternating one on each side); for
/// holds, `sets` holds of at least `holdSeconds` (each counted as a clean rep when it reaches that time).
///
/// ```swift
/// Goal(prescription: Prescription(reps: 5, sets: 2), reps: sevenThenARestThenThree)
/// // sets 2, setsDone 1, repsPerSet 5, met false
/// ```
public struct Goal: Sendable, Hashable {
    /// The sets prescribed.
    public var sets: Int
    /// The sets completed as the session ran them (``SetCount``), at most ``sets``.
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

    /// The goal of an effective prescription after `reps`, or nil when it sets none: a goal needs `reps`, or, for a
    /// hold (`holdSeconds` in effect), `sets` (one hold a set). `sets` defaults to 1.
    /// - Parameters:
    ///   - prescription: The prescription in effect (``SessionSummary/prescription``).
    ///   - reps: The reps since the last reset, clean and rejected, in order (``SessionSummary/reps``).
    /// - Complexity: O(*n*) in the reps.
    public init?(prescription: Prescription, reps: [Rep]) {
        guard let perSet = Self.perSet(prescription) else { return nil }
        var count = SetCount(goal: perSet, sets: prescription.sets ?? 1)
        for rep in reps { count.record(rep) }
        self.init(sets: count.sets, setsDone: count.done, repsPerSet: perSet)
    }

    /// The goal of an effective prescription from the sets a store counted when the session was written, or, for a
    /// session stored before they were counted, from its clean reps taken as whole sets; nil when it sets none.
    /// - Parameters:
    ///   - prescription: The prescription in effect.
    ///   - setsDone: The sets done as the session ran them, if recorded.
    ///   - repCount: The clean reps, for a session without `setsDone`.
    public init?(prescription: Prescription, setsDone: Int?, repCount: Int) {
        guard let perSet = Self.perSet(prescription) else { return nil }
        let sets = max(prescription.sets ?? 1, 1)
        self.init(sets: sets, setsDone: min(sets, max(setsDone ?? max(repCount, 0) / perSet, 0)), repsPerSet: perSet)
    }

    /// The clean reps (holds) of a set the prescription asks for, nil when it asks none.
    private static func perSet(_ prescription: Prescription) -> Int? {
        let perSet: Int
        if let reps = prescription.reps {
            perSet = reps
        } else if prescription.holdSeconds != nil, prescription.sets != nil {
            perSet = 1
        } else {
            return nil
        }
        return perSet > 0 ? perSet : nil
    }
}

extension SessionSummary {
    /// The goal of the session's prescription and how far it got, set by set (nil when the prescription sets none).
    /// A summary read without its reps (only its counts) takes its clean reps as whole sets.
    public var goal: Goal? {
        reps.isEmpty
            ? Goal(prescription: prescription, setsDone: nil, repCount: repCount)
            : Goal(prescription: prescription, reps: reps)
    }
}
