import Foundation
import Testing

@testable import MotionCore

/// The engine on real human motion: motion-capture recordings converted to what a level camera would see
/// (`tools/mocap/`, `Fixtures/mocap/`), checked against the 3D truth. Results are recorded in `docs/real-motion.md`.
@Suite("Real motion: motion-capture recordings seen by a camera")
struct RealMotionTests {
    /// CMU subject 01, trial 01: forward jumps, turning around twice. Each jump is a countermovement crouch to
    /// 70–88° of knee flexion, a flight and a landing: closed-chain knee flexion with the trunk leaning 26–36°.
    static let sideViews = ["side-left", "side-right"]

    /// The squat as a session for this person: their ready stance between jumps is 23–26° of knee flexion in the
    /// 3D data, above the catalog's start position (20°), so the session sets the start position at 30°.
    static var squatForThisStance: Exercise {
        var exercise = Exercise.squat
        exercise.thresholds.rest = 30
        return exercise
    }

    struct Result {
        var reps: [Rep] = []
        var faults: [FormFeedback] = []
        var setupChanges: [(t: Double, issues: SetupIssueSet)] = []
    }

    static func run(_ recording: MocapRecording, _ exercise: Exercise) throws -> Result {
        var engine = try MotionEngine(configuration: SessionConfiguration(exercise: exercise))
        var result = Result()
        for pose in try recording.poses() {
            for event in try engine.process(pose) {
                switch event {
                case .repCompleted(let rep), .repRejected(let rep): result.reps.append(rep)
                case .formFault(let fault): result.faults.append(fault)
                case .setupChanged(let issues): result.setupChanges.append((pose.timestamp, issues))
                default: break
                }
            }
        }
        return result
    }

    /// The truth's rep counts with the exit threshold moved 4° either way: a boundary between two reps whose 3D
    /// value only just crosses `exit` may fall either way in 2D.
    static func truthCounts(_ recording: MocapRecording, _ exercise: Exercise) -> ClosedRange<Int> {
        let counts = [-4.0, 0, 4].map { shift in
            var shifted = exercise
            shifted.thresholds.exit += shift
            shifted.thresholds.rest = min(shifted.thresholds.rest, shifted.thresholds.exit)
            return recording.truthReps(shifted).count
        }
        return (counts.min() ?? 0)...(counts.max() ?? 0)
    }

    @Test(arguments: sideViews)
    func countsTheCrouchesTheTruthCounts(view: String) throws {
        let recording = try MocapRecording.load("cmu-01-01", view: view)
        let exercise = Self.squatForThisStance
        let result = try Self.run(recording, exercise)
        let truth = recording.truthReps(exercise)
        let range = Self.truthCounts(recording, exercise)
        #expect(truth.count == 11)
        #expect(range.contains(result.reps.count), "\(result.reps.count) reps, truth \(truth.count) (\(range))")
        // Every rep the engine counts matches the 3D truth over the same time.
        for rep in result.reps {
            let peak = recording.rawPeak(from: rep.start, to: rep.end)
            #expect(abs(rep.peak - peak) <= 8, "rep \(rep.index): \(rep.peak) against 3D \(peak)")
        }
    }

    @Test(arguments: sideViews)
    func reportsNoFaultOnCleanMovement(view: String) throws {
        let recording = try MocapRecording.load("cmu-01-01", view: view)
        let result = try Self.run(recording, Self.squatForThisStance)
        #expect(result.faults.isEmpty)
        #expect(result.reps.allSatisfy { $0.isClean })
        // The trunk stays nearer vertical than the shin at every crouch: far inside the squat's trunk rule.
        let rule = Exercise.trunkAlongShin.measurement.resolve(side: .left)
        let worst = try recording.poses().compactMap { rule.value(in: $0) }.max()
        #expect(try #require(worst) < Exercise.trunkAlongShin.limit - 20)
    }

    @Test(arguments: sideViews)
    func seesTheTurnsAndNothingElse(view: String) throws {
        // The person turns around twice (about 9 s and 17 s in): only then is the side view lost, briefly.
        let result = try Self.run(try MocapRecording.load("cmu-01-01", view: view), Self.squatForThisStance)
        let reported = result.setupChanges.filter { !$0.issues.isEmpty }
        #expect(reported.map(\.issues) == [[.notSideways], [.notSideways]])
        #expect(reported.allSatisfy { (8.5...10).contains($0.t) || (16.5...18).contains($0.t) })
        #expect(result.setupChanges.last?.issues == [])
    }

    @Test func aSquatSeenFromTheFrontIsNotSideways() throws {
        let recording = try MocapRecording.load("cmu-01-01", view: "front")
        for exercise in [Exercise.squat, Self.squatForThisStance] {
            let result = try Self.run(recording, exercise)
            #expect(result.setupChanges.first?.issues == [.notSideways])
            #expect(try #require(result.setupChanges.first?.t) <= 1)
            #expect(result.reps.isEmpty, "a sagittal exercise seen from the front never starts")
        }
    }

    @Test func theCatalogsStartPositionIsNotReachedFromThisStance() throws {
        // Recorded as a finding: with the catalog's squat (start position ≤ 20°) this person, whose ready stance
        // reads 23–26°, is not counted until the knee happens to straighten further, in the first turn (9–10 s).
        let recording = try MocapRecording.load("cmu-01-01", view: "side-left")
        let catalog = try Self.run(recording, .squat).reps
        #expect(catalog.allSatisfy { $0.start > 9 })
        #expect(catalog.count < (try Self.run(recording, Self.squatForThisStance)).reps.count)
    }

    @Test(arguments: sideViews)
    func measuresTheKneeAndTheTrunkLikeThe3DTruth(view: String) throws {
        let recording = try MocapRecording.load("cmu-01-01", view: view)
        let poses = try recording.poses()
        let knee = Exercise.squat.measurement
        let trunkPastShin = Exercise.trunkAlongShin.measurement
        var kneeErrors: [Double] = []
        var trunkErrors: [Double] = []
        for (index, pose) in poses.enumerated() {
            for (side, truth) in [
                (BodySide.left, recording.truth.leftKneeFlexion), (.right, recording.truth.rightKneeFlexion),
            ] {
                if let value = knee.resolve(side: side).value(in: pose) { kneeErrors.append(abs(value - truth[index])) }
            }
            let truthPast = recording.truth.trunkLean[index] - recording.truth.shinInclination[index]
            let sides = BodySide.allCases.compactMap { trunkPastShin.resolve(side: $0).value(in: pose) }
            if !sides.isEmpty { trunkErrors.append(abs(sides.reduce(0, +) / Double(sides.count) - truthPast)) }
        }
        let kneeMean = kneeErrors.reduce(0, +) / Double(kneeErrors.count)
        let trunkMean = trunkErrors.reduce(0, +) / Double(trunkErrors.count)
        print(
            String(
                format: "%@: per-frame mean absolute error, knee flexion %.1f°, trunk past shin %.1f°", view, kneeMean,
                trunkMean))
        #expect(kneeMean < 5, "knee flexion: mean absolute error \(kneeMean)°")
        #expect(trunkMean < 5, "trunk past shin: mean absolute error \(trunkMean)°")
    }
}

extension RealMotionTests {
    /// One row of the table in `docs/real-motion.md`; `swift test --filter RealMotionTests` prints them.
    @Test func accuracyTable() throws {
        var rows = [
            "| recording | view | exercise | truth reps | our reps | peak error, mean / max | faults | setup issues |",
            "|---|---|---|---|---|---|---|---|",
        ]
        var errors: [Double] = []
        for view in Self.sideViews + ["front"] {
            let recording = try MocapRecording.load("cmu-01-01", view: view)
            let exercise = Self.squatForThisStance
            let result = try Self.run(recording, exercise)
            let truth = recording.truthReps(exercise)
            let range = Self.truthCounts(recording, exercise)
            let peakErrors = result.reps.map { abs($0.peak - recording.rawPeak(from: $0.start, to: $0.end)) }
            errors += peakErrors
            let mean =
                peakErrors.isEmpty ? "—" : String(format: "%.1f°", peakErrors.reduce(0, +) / Double(peakErrors.count))
            let worst = peakErrors.max().map { String(format: "%.1f°", $0) } ?? "—"
            let issues = Set(result.setupChanges.flatMap { Array($0.issues) }).map(\.rawValue).sorted()
            let truthText =
                view == "front" ? "— (wrong view)" : "\(truth.count) (\(range.lowerBound)–\(range.upperBound))"
            rows.append(
                "| \(recording.recording) | \(view) | squat, start ≤ 30° | \(truthText) | \(result.reps.count) "
                    + "| \(mean) / \(worst) | \(result.faults.count) | \(issues.isEmpty ? "none" : issues.joined(separator: ", ")) |"
            )
        }
        print(rows.joined(separator: "\n"))
        print(
            String(
                format: "side views: %d reps, peak error mean %.2f°", errors.count,
                errors.reduce(0, +) / Double(errors.count)))
        #expect(errors.allSatisfy { $0 <= 8 })
    }
}
