import MotionCore
import Testing

/// The goal of a prescription (docs/protocol.md §5.3): sets of clean reps as the session ran them (a rest between
/// sets, each side of an alternating exercise), or of holds that reached their time.
@Suite struct GoalTests {
    @Test(arguments: [
        (Prescription(reps: 10, sets: 3), 24, Goal(sets: 3, setsDone: 2, repsPerSet: 10), false),
        (Prescription(reps: 10, sets: 3), 30, Goal(sets: 3, setsDone: 3, repsPerSet: 10), true),
        (Prescription(reps: 10, sets: 3), 95, Goal(sets: 3, setsDone: 3, repsPerSet: 10), true),
        (Prescription(reps: 5), 4, Goal(sets: 1, setsDone: 0, repsPerSet: 5), false),
        (Prescription(reps: 5), 5, Goal(sets: 1, setsDone: 1, repsPerSet: 5), true),
        (Prescription(holdSeconds: 30, sets: 2), 1, Goal(sets: 2, setsDone: 1, repsPerSet: 1), false),
        (Prescription(holdSeconds: 30, sets: 2), 2, Goal(sets: 2, setsDone: 2, repsPerSet: 1), true),
        (Prescription(holdSeconds: 30, reps: 2, sets: 2), 3, Goal(sets: 2, setsDone: 1, repsPerSet: 2), false),
        (Prescription(reps: 3, sets: 2), -1, Goal(sets: 2, setsDone: 0, repsPerSet: 3), false),
    ])
    func countsWholeSetsOfCleanRepsWithoutRecordedSets(
        _ prescription: Prescription, _ clean: Int, _ goal: Goal, _ met: Bool
    ) {
        let made = Goal(prescription: prescription, setsDone: nil, repCount: clean)
        #expect(made == goal)
        #expect(made?.met == met)
    }

    @Test(arguments: [Prescription(), Prescription(sets: 3), Prescription(holdSeconds: 10), Prescription(target: 90)])
    func hasNoneWithoutARepGoalOrHeldSets(_ prescription: Prescription) {
        #expect(Goal(prescription: prescription, setsDone: nil, repCount: 12) == nil)
        #expect(Goal(prescription: prescription, reps: Self.reps(count: 12)) == nil)
    }

    @Test func aSummaryReportsItsPrescriptionsGoal() {
        var summary = SessionSummary(exercise: "squat", prescription: Prescription(reps: 2, sets: 2))
        summary.repCount = 3
        #expect(summary.goal == Goal(sets: 2, setsDone: 1, repsPerSet: 2))
        summary.repCount = 4
        #expect(summary.goal?.met == true)
    }

    /// Clean reps 2 s apart (1 s each, 1 s between), from `start`, on `side`, or alternating from the left.
    static func reps(
        count: Int, from start: Double = 0, side: BodySide? = nil, alternating: Bool = false
    ) -> [Rep] {
        (0..<count).map { i in
            let t = start + Double(i) * 2
            let repSide = alternating ? (i % 2 == 0 ? BodySide.left : .right) : side
            return Rep(index: i + 1, peak: 90, trough: 10, start: t, end: t + 1, side: repSide)
        }
    }

    /// `runs` of clean reps, each run a rest (30 s) after the one before.
    static func runs(_ runs: [Int], alternating: Bool = false) -> [Rep] {
        var reps: [Rep] = []
        var start = 0.0
        for count in runs {
            reps += Self.reps(count: count, from: start, alternating: alternating)
            start = (reps.last?.end ?? start) + 30
        }
        return reps
    }

    @Test(arguments: [
        ([7, 3], 1), ([3, 7], 1), ([5, 5], 2), ([10], 2), ([4, 4, 4], 0), ([5, 4, 5], 2), ([12, 5], 2),
        ([9], 1), ([], 0),
    ])
    func countsTheSetsAsTheSessionRanThem(_ runs: [Int], _ done: Int) {
        let goal = Goal(prescription: Prescription(reps: 5, sets: 2), reps: Self.runs(runs))
        #expect(goal?.setsDone == done, "runs \(runs)")
        #expect(goal?.met == (done == 2))
    }

    @Test func sevenThenThreeIsOneSetThoughTenRepsAreTwoSetsOfFive() {
        let reps = Self.runs([7, 3])
        #expect(reps.filter(\.isClean).count == 10)
        #expect(Goal(prescription: Prescription(reps: 5, sets: 2), setsDone: nil, repCount: 10)?.met == true)
        let goal = Goal(prescription: Prescription(reps: 5, sets: 2), reps: reps)
        #expect(goal == Goal(sets: 2, setsDone: 1, repsPerSet: 5))
        #expect(goal?.met == false)
    }

    @Test func aPauseShorterThanARestKeepsTheSetGoing() {
        var reps = Self.reps(count: 3)
        reps += Self.reps(count: 2, from: reps[2].end + SetCount.restSeconds - 0.5)
        #expect(Goal(prescription: Prescription(reps: 5), reps: reps)?.met == true)
        var rested = Self.reps(count: 3)
        rested += Self.reps(count: 2, from: rested[2].end + SetCount.restSeconds)
        #expect(Goal(prescription: Prescription(reps: 5), reps: rested)?.met == false, "a rest of exactly 10 s")
    }

    @Test func rejectedRepsCountForNothingButKeepTheRunGoing() {
        // Clean, rejected, clean … a pause of 5 s after each: the rejected reps keep the pauses short.
        var reps: [Rep] = []
        for i in 0..<10 {
            let start = Double(i) * 6
            let faults: FormFeedbackSet = i % 2 == 1 ? [.keepTrunkUpright] : []
            reps.append(Rep(index: i + 1, peak: 90, trough: 10, start: start, end: start + 1, faults: faults))
        }
        #expect(Goal(prescription: Prescription(reps: 5), reps: reps)?.setsDone == 1)
        #expect(Goal(prescription: Prescription(reps: 6), reps: reps)?.setsDone == 0)
    }

    @Test func anAlternatingSetNeedsItsRepsOnEachSide() {
        let prescription = Prescription(reps: 5, sets: 2)
        // 10 alternating reps: 5 left and 5 right, one set; 20 in a row: two.
        #expect(Goal(prescription: prescription, reps: Self.runs([10], alternating: true))?.setsDone == 1)
        #expect(Goal(prescription: prescription, reps: Self.runs([20], alternating: true))?.met == true)
        // 9 left and 1 right: ten clean reps, no set.
        let mixed = Self.reps(count: 9, side: .left) + Self.reps(count: 1, from: 18, side: .right)
        #expect(Goal(prescription: Prescription(reps: 5), reps: mixed)?.setsDone == 0)
        #expect(Goal(prescription: Prescription(reps: 5), setsDone: nil, repCount: 10)?.setsDone == 1, "whole count")
        // 5 left, a rest, 5 right: the rest ends the first set unfinished.
        let apart = Self.reps(count: 5, side: .left) + Self.reps(count: 5, from: 60, side: .right)
        #expect(Goal(prescription: Prescription(reps: 5), reps: apart)?.setsDone == 0)
    }

    @Test func theCountReportsProgressAndEachPrescribedSetOnce() {
        var count = SetCount(goal: 2, sets: 2)
        var completed: [Int?] = []
        for rep in Self.reps(count: 7) { completed.append(count.record(rep)) }
        #expect(completed == [nil, 1, nil, 2, nil, nil, nil])
        #expect(count.done == 2)
        #expect(count.extra == 3, "clean reps past the last set")
        #expect(count.progress == SetProgress(number: 2, of: 2, reps: 5, goal: 2))
        #expect(count.progress.isComplete)
        var partial = SetCount(goal: 3, sets: 2)
        for rep in Self.reps(count: 4) { partial.record(rep) }
        #expect(partial.progress == SetProgress(number: 2, of: 2, reps: 1, goal: 3))
        partial.record(Rep(index: 5, peak: 90, trough: 10, start: 100, end: 101))
        #expect(partial.progress == SetProgress(number: 2, of: 2, reps: 1, goal: 3), "after a rest the set restarts")
    }

    @Test func aSummaryCountsItsRepsSetBySet() {
        var summary = SessionSummary(exercise: "squat", prescription: Prescription(reps: 5, sets: 2))
        summary.reps = Self.runs([7, 3])
        summary.repCount = 10
        #expect(summary.goal == Goal(sets: 2, setsDone: 1, repsPerSet: 5))
    }
}
