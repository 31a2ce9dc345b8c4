import MotionSimulation
import Testing

@testable import MotionCore

/// The demonstration every exercise shows in the browser (docs/web.md): the engine counts its clean reps, finds
/// the faults it acts, and sees nobody while the figure is out of frame.
@Suite("Demo simulation")
struct DemoSimulationTests {
    @Test(arguments: Exercise.catalog)
    func everyBuiltInCountsItsCleanRepsAndItsActedFaults(exercise: Exercise) throws {
        let simulation = Simulation.demo(of: exercise, side: .right)
        let side: BodySide? = exercise.sidedness == .oneSided ? .right : nil
        var engine = try MotionEngine(configuration: SessionConfiguration(exercise: exercise, side: side))
        var rejected: [FormFeedbackSet] = []
        for pose in simulation.poses() {
            for case .repRejected(let rep) in try engine.process(pose) { rejected.append(FormFeedbackSet(rep.faults)) }
        }
        let acted = simulation.reps.filter { !$0.faults.isEmpty }
        #expect(engine.summary.repCount == simulation.reps.count - acted.count, "clean reps of \(exercise.id)")
        #expect(rejected == acted.map(\.faults), "the acted faults of \(exercise.id)")
        #expect(acted.isEmpty == exercise.possibleFaults.isEmpty, "\(exercise.id) shows a form fault if it has one")
    }

    @Test func loopsFromRestToRestWithAMomentOutOfFrame() throws {
        let simulation = Simulation.demo(of: .squat, side: .left)
        let poses = simulation.poses()
        let first = try #require(poses.first)
        let last = try #require(poses.last)
        #expect(abs(simulation.value(at: first.timestamp).value - simulation.value(at: last.timestamp).value) < 1e-9)
        #expect(poses.contains { $0.isEmpty }, "out of frame for a moment")
        #expect(simulation.actedTimes.count == Simulation.demoReps)
        let times = simulation.actedTimes
        #expect(zip(times, times.dropFirst()).allSatisfy { $0.upperBound < $1.lowerBound })
        #expect(times.last.map { $0.upperBound < simulation.duration - 2 } == true, "acted before the figure leaves")
    }

    @Test func anAlternatingExerciseTakesTurns() {
        let simulation = Simulation.demo(of: .trunkLateralFlexion, side: .left)
        #expect(simulation.reps.map(\.side) == [.left, .right, .left, .right, .left, .right])
    }

    @Test func aHoldExerciseHoldsPastItsTime() {
        let simulation = Simulation.demo(of: .plankHold, side: .right)
        #expect(simulation.reps.count == Simulation.demoReps / 2)
        #expect(simulation.reps.allSatisfy { ($0.holdFor ?? 0) > Exercise.plankHold.thresholds.holdSeconds })
    }
}
