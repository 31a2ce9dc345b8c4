import MotionCore
import MotionSimulation

/// Runs one simulated session of each catalog exercise through the engine and prints its events; with `--scenarios`,
/// prints every scenario as a recording instead (``printScenarioRecordings(exercise:)``).
func runDemo(arguments: [String]) throws {
    if arguments.dropFirst().first == "--scenarios" {
        let wanted = arguments.dropFirst(2).first
        if !printScenarioRecordings(exercise: wanted) {
            print(
                "unknown exercise '\(wanted ?? "")'; choose one of: \(Exercise.catalog.map(\.id).joined(separator: ", "))"
            )
        }
        return
    }
    let wanted = arguments.dropFirst().first
    let exercises = Exercise.catalog.filter { wanted == nil || $0.id == wanted }
    guard !exercises.isEmpty else {
        print(
            "unknown exercise '\(wanted ?? "")'; choose one of: \(Exercise.catalog.map(\.id).joined(separator: ", "))")
        return
    }
    for exercise in exercises {
        let peak = Scenario.typicalPeak(for: exercise)
        let fault = exercise.possibleFaults.first
        var simulation = Simulation(
            exercise: exercise, side: .right,
            reps: [
                SimulatedRep(peak: peak), SimulatedRep(peak: peak - 0.05 * (peak - exercise.thresholds.rest)),
                SimulatedRep(peak: peak, faults: fault.map { [$0] } ?? []),
            ])
        simulation.noise = 1.0
        simulation.outOfFrame = [simulation.duration - 0.6...simulation.duration]
        var configuration = SessionConfiguration(exercise: exercise, side: .right)
        configuration.startsBaseline = true
        configuration.baselineReps = 2
        var engine = try MotionEngine(configuration: configuration)
        print("== \(exercise.id) (\(exercise.view.rawValue), \(exercise.kind.rawValue))")
        for pose in simulation.poses() {
            for event in try engine.process(pose) {
                print(format(pose.timestamp), describe(event))
            }
        }
        let summary = engine.summary
        print(
            "   reps \(summary.repCount) clean, \(summary.rejectedCount) rejected; best \(format(summary.best));"
                + " baseline \(format(summary.baseline)); visible \(format(summary.visibleRatio * 100))%")
    }
}

func describe(_ event: MotionEvent) -> String {
    switch event {
    case .repCompleted(let rep), .repRejected(let rep):
        let faults = rep.faults.isEmpty ? "" : " faults \(rep.faults)"
        return "\(event.name) #\(rep.index) peak \(format(rep.peak)) in \(format(rep.duration)) s\(faults)"
    case .holdStarted: return "holdStarted"
    case .holdEnded(let hold): return "holdEnded held \(format(hold.held)) s\(hold.completed ? "" : " (not completed)")"
    case .formFault(let fault): return "formFault \(fault.rawValue)"
    case .visibilityChanged(let visibility):
        return "visibilityChanged visible=\(visibility.isVisible) missing=\(visibility.missingJoints)"
    case .setupChanged(let issues): return "setupChanged \(issues)"
    case .baselineCompleted(let value): return "baselineCompleted \(format(value))"
    case .setCompleted(let number): return "setCompleted \(number)"
    }
}

func format(_ value: Double?) -> String {
    guard let value else { return "–" }
    return String((value * 10).rounded() / 10)
}

try runDemo(arguments: CommandLine.arguments)
