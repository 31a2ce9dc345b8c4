import MotionCore
import MotionSimulation
import Testing

@Suite("Prescriptions: targets that move the thresholds, rep goals and sets")
struct PrescriptionTests {
    @Test func aLowTargetMovesEntryAndExitInProportion() throws {
        let exercise = Prescription(target: 50).apply(to: .shoulderAbduction)
        // rest 30, enter 70, exit 45, target 180, minAmplitude 45: the span 150 becomes 20.
        #expect(exercise.target == 50)
        #expect(exercise.thresholds.rest == 30)
        #expect(abs(exercise.thresholds.enter - (30 + 40 * 20 / 150)) < 1e-9)
        #expect(abs(exercise.thresholds.exit - 32) < 1e-9)
        #expect(abs(exercise.thresholds.minAmplitude - 6) < 1e-9)
        #expect(exercise.problems.isEmpty)
    }

    @Test func givenThresholdsAreKeptAndTheOthersFollowTheTarget() throws {
        let exercise = Prescription(target: 100, enter: 80).apply(to: .elbowFlexion)
        // rest 30, enter 60, exit 40, target 150: the span 120 becomes 70.
        #expect(exercise.thresholds.enter == 80)
        #expect(abs(exercise.thresholds.exit - (30 + 10 * 70.0 / 120)) < 1e-9)
        let restMoved = Prescription(rest: 50).apply(to: .elbowFlexion)
        // The span from the new rest to the unchanged target, 100 of 120.
        #expect(abs(restMoved.thresholds.enter - (50 + 30 * 100.0 / 120)) < 1e-9)
        #expect(Prescription().apply(to: .elbowFlexion) == .elbowFlexion)
    }

    @Test func aPatientWhoReaches55DegreesHasRepsCountedOnlyWithThePrescription() throws {
        var simulation = Simulation(
            exercise: .shoulderAbduction, side: .right, reps: Array(repeating: SimulatedRep(peak: 55), count: 4))
        simulation.noise = 1
        simulation.restValue = 15
        let (unprescribed, _) = try run(simulation)
        #expect(reps(unprescribed).isEmpty)
        let (events, engine) = try run(simulation) { $0.prescription.target = 50 }
        #expect(reps(events).count == 4)
        #expect(reps(events).allSatisfy { $0.isClean })
        #expect(engine.summary.prescription.target == 50)
        #expect(engine.summary.prescription.enter == engine.exercise.thresholds.enter)
    }

    @Test func prescriptionsThatBreakTheThresholdsAreRefused() {
        var configuration = SessionConfiguration(exercise: .elbowFlexion, side: .left)
        configuration.prescription = Prescription(enter: 35, exit: 45)
        #expect(throws: SessionError.self) { try MotionEngine(configuration: configuration) }
        configuration.prescription = Prescription(target: 10)
        #expect(throws: SessionError.self) { try MotionEngine(configuration: configuration) }
        configuration.prescription = Prescription(reps: 0)
        #expect(throws: SessionError.invalidConfiguration(["reps must be ≥ 1"])) {
            try MotionEngine(configuration: configuration)
        }
    }

    @Test func setsCompleteAtTheRepGoalAndProgressIsInTheSnapshot() throws {
        let simulation = Simulation(
            exercise: .elbowFlexion, side: .right, reps: Array(repeating: SimulatedRep(peak: 130), count: 7))
        let (events, engine) = try run(simulation) {
            $0.prescription.reps = 3
            $0.prescription.sets = 2
        }
        let sets = events.compactMap { if case .setCompleted(let number) = $0.event { number } else { nil } }
        #expect(sets == [1, 2])
        // Each set's completion follows the rep that completed it, at the same pose.
        let third = try #require(
            events.filter { if case .repCompleted = $0.event { true } else { false } }.dropFirst(2).first)
        #expect(events.contains { $0.t == third.t && $0.event == .setCompleted(number: 1) })
        let progress = try #require(engine.snapshot().set)
        #expect(progress == SetProgress(number: 2, of: 2, reps: 4, goal: 3))
        #expect(progress.isComplete)
        #expect(engine.summary.prescription.reps == 3)
        #expect(engine.summary.prescription.sets == 2)
        var reset = engine
        reset.reset()
        #expect(reset.snapshot().set == SetProgress(number: 1, of: 2, reps: 0, goal: 3))
    }

    @Test func withoutARepGoalThereIsNoSetProgress() throws {
        let (_, engine) = try run(Simulation(exercise: .elbowFlexion, side: .right, reps: [.init(peak: 120)]))
        #expect(engine.snapshot().set == nil)
        #expect(engine.summary.prescription.reps == nil)
        #expect(engine.summary.prescription.target == Exercise.elbowFlexion.target)
    }
}
