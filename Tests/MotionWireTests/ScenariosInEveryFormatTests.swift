import MotionCore
import MotionSimulation
import Testing

@testable import MotionWire

/// Every scenario of every catalog exercise (MotionSimulation's ``Scenario``), its poses sent in each input format
/// (docs/protocol.md §4) and decoded as the server decodes a session started with it: the engine must reach the same
/// expected outcome as on the poses themselves. Among them are the two rules that used to misjudge: a frontal trunk
/// lean in shoulder abduction rejects for `keepTrunkUpright` alone (shoulders are judged level against the trunk)
/// while a shrug still gives `keepShouldersLevel`, and a thigh lifting off the chair rejects the seated knee
/// extension with `keepThighStill` (relative rules take their reference at the start position's low point).
@Suite("Every scenario in every input format")
struct ScenariosInEveryFormatTests {
    struct Case: Sendable, CustomStringConvertible {
        var scenario: Scenario
        var format: InputFormat
        var description: String { "\(scenario.name) as \(format.rawValue)" }
    }

    static let cases: [Case] = Exercise.catalog.flatMap { exercise in
        Scenario.scenarios(for: exercise).flatMap { scenario in
            InputFormat.allCases.map { Case(scenario: scenario, format: $0) }
        }
    }

    @Test(arguments: cases)
    func theEngineReachesTheExpectedOutcome(_ test: Case) throws {
        let scenario = test.scenario
        var engine = try MotionEngine(configuration: scenario.configuration)
        var clean = 0
        var rejected: [FormFeedbackSet] = []
        var issues: SetupIssueSet = []
        let decoder = PoseDecoder(format: test.format, mirrored: scenario.simulation.mirrored)
        for pose in scenario.simulation.poses() {
            let decoded = try decoder.decodePose(FormatEncoding.message(pose, format: test.format))
            for event in try engine.process(decoded) {
                switch event {
                case .repCompleted: clean += 1
                case .repRejected(let rep): rejected.append(rep.faults)
                case .setupChanged(let reported): issues.formUnion(reported)
                default: break
                }
            }
        }
        #expect(clean == scenario.expectedClean, "clean reps")
        #expect(rejected == scenario.expectedRejected, "rejected reps")
        #expect(issues == (scenario.expectedSetupIssue.map { [$0] } ?? []), "setup issues")
        if !scenario.expectedCleanPerSide.isEmpty {
            #expect(engine.summary.perSide.mapValues(\.repCount) == scenario.expectedCleanPerSide)
        }
    }
}
