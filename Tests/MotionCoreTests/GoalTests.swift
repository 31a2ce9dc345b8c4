import MotionCore
import Testing

/// The goal of a prescription (docs/protocol.md §5.3): sets of clean reps, or of holds that reached their time.
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
    func countsWholeSetsOfCleanReps(_ prescription: Prescription, _ clean: Int, _ goal: Goal, _ met: Bool) {
        let made = Goal(prescription: prescription, repCount: clean)
        #expect(made == goal)
        #expect(made?.met == met)
    }

    @Test(arguments: [Prescription(), Prescription(sets: 3), Prescription(holdSeconds: 10), Prescription(target: 90)])
    func hasNoneWithoutARepGoalOrHeldSets(_ prescription: Prescription) {
        #expect(Goal(prescription: prescription, repCount: 12) == nil)
    }

    @Test func aSummaryReportsItsPrescriptionsGoal() {
        var summary = SessionSummary(exercise: "squat", prescription: Prescription(reps: 2, sets: 2))
        summary.repCount = 3
        #expect(summary.goal == Goal(sets: 2, setsDone: 1, repsPerSet: 2))
        summary.repCount = 4
        #expect(summary.goal?.met == true)
    }
}
