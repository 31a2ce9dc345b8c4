/// The sets of a prescription as a session ran them (docs/programmes.md, "Goals"): a set is `goal` clean reps done
/// without a rest between them; for an alternating exercise, `goal` clean reps of **each** side.
///
/// A rest is a pause of at least ``restSeconds`` from the end of one rep (clean or not) to the start of the next.
/// A run of reps between rests holds as many sets as it has whole `goal`s of clean reps; the clean reps of a set not
/// finished when a rest begins count for nothing. So 2 sets of 5 done as 7, a rest, then 3 are one set, not two; 10
/// in a row without a rest are two; and an alternating set of 5 needs 5 left and 5 right, not 9 left and 1 right.
///
/// The engine counts a live session with it (the snapshot's `set`, `setCompleted`), and a summary's ``Goal`` counts
/// its reps again with it, so the two always agree.
///
/// ```swift
/// var count = SetCount(goal: 5, sets: 2)
/// for rep in reps { count.record(rep) }
/// count.done  // the sets completed
/// ```
public struct SetCount: Sendable, Hashable {
    /// The pause between two reps that is a rest between sets, seconds: 10. Longer than the pauses within a set,
    /// shorter than the rest a prescription gives.
    public static let restSeconds: Double = 10

    /// The clean reps of a set (of each side, for an alternating exercise).
    public let goal: Int
    /// The sets prescribed (1 when only a rep goal was).
    public let sets: Int
    /// The prescribed sets completed so far, at most ``sets``.
    public private(set) var done = 0
    /// Clean reps after the last prescribed set was completed.
    public private(set) var extra = 0
    /// The clean reps of the set under way, of a side (left, right) and of none (bilateral, one-sided, holds).
    private var left = 0
    private var right = 0
    private var unsided = 0
    /// When the last rep ended, nil before the first.
    private var lastEnd: Double?

    /// A count with no rep yet.
    /// - Parameters:
    ///   - goal: The clean reps of a set, at least 1.
    ///   - sets: The sets prescribed, at least 1.
    public init(goal: Int, sets: Int) {
        self.goal = max(goal, 1)
        self.sets = max(sets, 1)
    }

    /// Counts a rep, clean or rejected (a rejected one only keeps the run going). Once every prescribed set is done,
    /// a clean rep is ``extra``.
    /// - Parameter rep: The rep, with its times and, for an alternating exercise, its side.
    /// - Returns: The number of the prescribed set it completes, if it completes one.
    @discardableResult
    public mutating func record(_ rep: Rep) -> Int? {
        if let lastEnd, rep.start - lastEnd >= Self.restSeconds { clearSet() }
        lastEnd = max(lastEnd ?? rep.end, rep.end)
        guard rep.isClean else { return nil }
        guard done < sets else {
            extra += 1
            return nil
        }
        switch rep.side {
        case .left?: left += 1
        case .right?: right += 1
        case nil: unsided += 1
        }
        guard repsInSet >= goal else { return nil }
        done += 1
        clearSet()
        return done
    }

    /// The clean reps of the set under way: of the side with fewer for an alternating exercise.
    public var repsInSet: Int { unsided + min(left, right) }

    /// Progress for the snapshot: the set under way and its clean reps; once every set is done, the last set at its
    /// goal and the clean reps past it (``extra``).
    public var progress: SetProgress {
        guard done < sets else { return SetProgress(number: sets, of: sets, reps: goal + extra, goal: goal) }
        return SetProgress(number: done + 1, of: sets, reps: repsInSet, goal: goal)
    }

    private mutating func clearSet() {
        left = 0
        right = 0
        unsided = 0
    }
}
