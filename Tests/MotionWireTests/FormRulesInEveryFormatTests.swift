import MotionCore
import MotionSimulation
import Testing

@testable import MotionWire

/// The two form rules that used to misjudge, checked on simulated sessions sent in every input format and decoded
/// as the server decodes them.
@Suite("Form rules on simulated sessions in every input format")
struct FormRulesInEveryFormatTests {
    /// The faults of each rep of `simulation` sent in `format`, with the rep counts.
    static func outcome(_ simulation: Simulation, format: InputFormat) throws -> (clean: Int, faults: [FormFeedbackSet])
    {
        let configuration = SessionConfiguration(exercise: simulation.exercise, side: simulation.side)
        var engine = try MotionEngine(configuration: configuration)
        var faults: [FormFeedbackSet] = []
        var clean = 0
        for pose in try FormatEncoding.roundTrip(simulation.poses(), format: format) {
            for event in try engine.process(pose) {
                switch event {
                case .repCompleted: clean += 1
                case .repRejected(let rep): faults.append(rep.faults)
                default: break
                }
            }
        }
        return (clean, faults)
    }

    static func session(_ exercise: Exercise, faults: FormFeedbackSet, side: BodySide = .right) -> Simulation {
        var simulation = Simulation(
            exercise: exercise, side: side,
            reps: [.init(peak: exercise.target * 0.8), .init(peak: exercise.target * 0.8, faults: faults)])
        simulation.noise = 1.5
        simulation.seed = 11
        return simulation
    }

    @Test(arguments: InputFormat.allCases, BodySide.allCases)
    func aTrunkLeanInShoulderAbductionIsOnlyALean(format: InputFormat, side: BodySide) throws {
        let (clean, faults) = try Self.outcome(
            Self.session(.shoulderAbduction, faults: [.keepTrunkUpright], side: side), format: format)
        #expect(clean == 1)
        #expect(faults == [[.keepTrunkUpright]])
    }

    @Test(arguments: InputFormat.allCases, BodySide.allCases)
    func aShrugIsStillCaught(format: InputFormat, side: BodySide) throws {
        let (clean, faults) = try Self.outcome(
            Self.session(.shoulderAbduction, faults: [.keepShouldersLevel], side: side), format: format)
        #expect(clean == 1)
        #expect(faults == [[.keepShouldersLevel]])
    }

    @Test(arguments: InputFormat.allCases, BodySide.allCases)
    func aThighLiftingOffTheChairRejectsTheKneeExtension(format: InputFormat, side: BodySide) throws {
        let (clean, faults) = try Self.outcome(
            Self.session(.kneeExtension, faults: [.keepThighStill], side: side), format: format)
        #expect(clean == 1)
        #expect(faults == [[.keepThighStill]])
    }
}
