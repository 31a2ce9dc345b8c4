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
        #expect(progress == SetProgress(number: 2, of: 2, reps: 4, goal: 3), "the last set, done, and one more")
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

    /// The events and engine after `runs` of clean elbow flexions, a 30 s rest at the start position between runs.
    static func runs(_ runs: [Int], reps: Int, sets: Int) throws -> (events: [MotionEvent], engine: MotionEngine) {
        var configuration = SessionConfiguration(exercise: .elbowFlexion, side: .right)
        configuration.prescription = Prescription(reps: reps, sets: sets)
        var engine = try MotionEngine(configuration: configuration)
        var events: [MotionEvent] = []
        var start = 0.0
        for (index, count) in runs.enumerated() {
            var simulation = Simulation(
                exercise: .elbowFlexion, side: .right, reps: Array(repeating: SimulatedRep(peak: 130), count: count))
            simulation.startTime = start
            if index > 0 { simulation.leadIn = 30 }
            for pose in simulation.poses() { events += try engine.process(pose) }
            start += simulation.duration + 1 / simulation.frameRate
        }
        return (events, engine)
    }

    @Test func sevenRepsThenARestThenThreeAreOneSetOfTwoPrescribed() throws {
        let (events, engine) = try Self.runs([7, 3], reps: 5, sets: 2)
        let summary = engine.summary
        #expect(summary.repCount == 10, "ten clean reps: two sets of five by the whole count")
        #expect(Goal(prescription: summary.prescription, setsDone: nil, repCount: summary.repCount)?.met == true)
        #expect(summary.goal == Goal(sets: 2, setsDone: 1, repsPerSet: 5))
        #expect(summary.goal?.met == false)
        #expect(events.filter { if case .setCompleted = $0 { true } else { false } } == [.setCompleted(number: 1)])
        #expect(engine.snapshot().set == SetProgress(number: 2, of: 2, reps: 3, goal: 5))
        #expect(engine.snapshot().set?.isComplete == false)
    }

    @Test func fiveRepsThenARestThenFiveAreBothSets() throws {
        let (events, engine) = try Self.runs([5, 5], reps: 5, sets: 2)
        #expect(engine.summary.goal?.met == true)
        #expect(
            events.filter { if case .setCompleted = $0 { true } else { false } }
                == [.setCompleted(number: 1), .setCompleted(number: 2)])
        #expect(engine.snapshot().set?.isComplete == true)
    }

    @Test func aSavedEngineCountsItsSetsAgainFromItsReps() throws {
        let (_, engine) = try Self.runs([7, 3], reps: 5, sets: 2)
        var configuration = SessionConfiguration(exercise: .elbowFlexion, side: .right)
        configuration.prescription = Prescription(reps: 5, sets: 2)
        let restored = try MotionEngine(configuration: configuration, restoring: engine.savedState())
        #expect(restored.snapshot().set == engine.snapshot().set)
        #expect(restored.summary.goal == engine.summary.goal)
    }

    @Test func anAlternatingSetNeedsTheGoalOnEachSide() throws {
        func run(_ sides: [BodySide]) throws -> MotionEngine {
            let simulation = Simulation(
                exercise: .standingHipFlexion, side: .left, reps: sides.map { SimulatedRep(peak: 80, side: $0) })
            var configuration = SessionConfiguration(exercise: .standingHipFlexion)
            configuration.prescription = Prescription(reps: 3)
            var engine = try MotionEngine(configuration: configuration)
            for pose in simulation.poses() { _ = try engine.process(pose) }
            return engine
        }
        let oneSided = try run([.left, .left, .left, .left, .left, .right])
        #expect(oneSided.summary.repCount == 6, "six clean reps: a set of three twice over by the whole count")
        #expect(oneSided.summary.perSide[.left]?.repCount == 5)
        #expect(oneSided.summary.goal?.met == false, "one right rep of three")
        #expect(oneSided.snapshot().set == SetProgress(number: 1, of: 1, reps: 1, goal: 3))
        let both = try run([.left, .right, .left, .right, .left, .right])
        #expect(both.summary.goal?.met == true)
        #expect(both.snapshot().set?.isComplete == true)
    }
}
