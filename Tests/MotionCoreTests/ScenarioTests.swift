import MotionCore
import MotionSimulation
import Testing

/// What a scenario's session produced.
struct ScenarioOutcome {
    var clean = 0
    var rejected: [FormFeedbackSet] = []
    var setupIssues: SetupIssueSet = []
    var faultEvents: [FormFeedback] = []
    var summary: SessionSummary

    init(_ scenario: Scenario) throws {
        var engine = try MotionEngine(configuration: scenario.configuration)
        var clean = 0
        var rejected: [FormFeedbackSet] = []
        var issues: SetupIssueSet = []
        var faults: [FormFeedback] = []
        for pose in scenario.simulation.poses() {
            for event in try engine.process(pose) {
                switch event {
                case .repCompleted: clean += 1
                case .repRejected(let rep): rejected.append(rep.faults)
                case .setupChanged(let reported): issues.formUnion(reported)
                case .formFault(let fault): faults.append(fault)
                default: break
                }
            }
        }
        self.clean = clean
        self.rejected = rejected
        self.setupIssues = issues
        self.faultEvents = faults
        self.summary = engine.summary
    }
}

@Suite("Every scenario of every catalog exercise")
struct ScenarioTests {
    static let all: [Scenario] = Exercise.catalog.flatMap { Scenario.scenarios(for: $0) }

    @Test(arguments: all)
    func theEngineReachesTheExpectedOutcome(_ scenario: Scenario) throws {
        let outcome = try ScenarioOutcome(scenario)
        #expect(outcome.clean == scenario.expectedClean, "clean reps")
        #expect(outcome.rejected == scenario.expectedRejected, "rejected reps")
        let expectedIssues: SetupIssueSet = scenario.expectedSetupIssue.map { [$0] } ?? []
        #expect(outcome.setupIssues == expectedIssues, "setup issues")
        #expect(outcome.faultEvents == scenario.expectedRejected.flatMap { Array($0) }, "each fault reported once")
        if !scenario.expectedCleanPerSide.isEmpty {
            #expect(outcome.summary.perSide.mapValues(\.repCount) == scenario.expectedCleanPerSide)
        }
    }
}
