import MotionCore
import MotionSimulation
import Testing

/// Runs a simulation through a fresh engine and returns every event with its pose time.
func run(
    _ simulation: Simulation, configure: (inout SessionConfiguration) -> Void = { _ in }
) throws -> (events: [(t: Double, event: MotionEvent)], engine: MotionEngine) {
    var configuration = SessionConfiguration(exercise: simulation.exercise, side: simulation.side)
    configure(&configuration)
    var engine = try MotionEngine(configuration: configuration)
    var events: [(Double, MotionEvent)] = []
    for pose in simulation.poses() {
        var pose = pose
        if simulation.mirrored { pose = pose.swappingSides() }
        for event in try engine.process(pose) { events.append((pose.timestamp, event)) }
    }
    return (events, engine)
}

func reps(_ events: [(t: Double, event: MotionEvent)]) -> [Rep] {
    events.compactMap {
        switch $0.event {
        case .repCompleted(let rep), .repRejected(let rep): rep
        default: nil
        }
    }
}

@Suite("Engine semantics on simulated sessions")
struct MotionEngineTests {
    static let peaksByExercise: [(Exercise, [Double])] = [
        (.elbowFlexion, [140, 120, 95]),
        (.shoulderFlexion, [170, 150, 110]),
        (.shoulderAbduction, [165, 140, 100]),
        (.hipAbduction, [45, 38, 30]),
        (.kneeExtension, [85, 70, 60]),
        (.squat, [110, 90, 70]),
        (.ankleDorsiflexion, [42, 35, 28]),
    ]

    static let peakCases = peaksByExercise.flatMap { entry in BodySide.allCases.map { (entry.0, entry.1, $0) } }

    @Test(arguments: peakCases)
    func countsEveryRepExactlyWithPeaksWithinThreeDegrees(exercise: Exercise, peaks: [Double], side: BodySide) throws {
        var simulation = Simulation(exercise: exercise, side: side, reps: peaks.map { SimulatedRep(peak: $0) })
        simulation.noise = 1.5
        simulation.seed = 7
        let (events, engine) = try run(simulation)
        let counted = reps(events)
        #expect(counted.count == peaks.count)
        #expect(engine.snapshot().repCount == peaks.count)
        #expect(engine.snapshot().rejectedCount == 0)
        for (rep, peak) in zip(counted, peaks) {
            #expect(abs(rep.peak - peak) < 3, "\(exercise.id) peak \(rep.peak) vs \(peak)")
            #expect(rep.isClean)
        }
        #expect(counted.map(\.index) == Array(1...peaks.count))
    }

    @Test(arguments: [UInt64](1...20))
    func countsExactlyUnderHeavyJitterAndDropouts(seed: UInt64) throws {
        var simulation = Simulation(
            exercise: .elbowFlexion, side: .right, reps: (0..<8).map { SimulatedRep(peak: 100 + Double($0) * 5) })
        simulation.noise = 3
        simulation.dropoutRate = 0.05
        simulation.seed = seed
        let (events, _) = try run(simulation)
        #expect(reps(events).count == 8)
    }

    @Test func neverCountsAValueHoveringAtTheThresholds() throws {
        // A value that wanders up and down inside the hysteresis band (between exit and enter) is no rep.
        var simulation = Simulation(exercise: .elbowFlexion, side: .right, reps: (0..<6).map { _ in .init(peak: 58) })
        simulation.restValue = 38
        simulation.noise = 1
        let (events, engine) = try run(simulation) { $0.exercise.thresholds.rest = 40 }
        #expect(reps(events).isEmpty)
        #expect(engine.snapshot().repCount == 0)
    }

    @Test func dropsRepsBelowTheMinimumAmplitude() throws {
        var simulation = Simulation(exercise: .squat, side: .right, reps: [.init(peak: 52), .init(peak: 100)])
        simulation.restValue = 15
        let (events, _) = try run(simulation)
        // 52 − 15 = 37 < minAmplitude 40: only the deep squat counts.
        #expect(reps(events).map { ($0.peak / 10).rounded() } == [10])
    }

    @Test func dropsRepsShorterThanTheMinimumDuration() throws {
        var simulation = Simulation(exercise: .elbowFlexion, side: .right, reps: [.init(peak: 130), .init(peak: 130)])
        simulation.repDuration = 0.5
        let (events, _) = try run(simulation)
        #expect(reps(events).isEmpty)
    }

    @Test func doesNotCountBeforeTheStartPosition() throws {
        // Starting with the arm already up (getting into position): the first cycle from 70° is not counted.
        var simulation = Simulation(exercise: .elbowFlexion, side: .right, reps: [.init(peak: 130), .init(peak: 130)])
        simulation.restValue = 50
        let (before, _) = try run(simulation)
        #expect(reps(before).isEmpty)
        simulation.restValue = 10
        let (after, _) = try run(simulation)
        #expect(reps(after).count == 2)
    }

    @Test func doesNotCountWhileThePlacementIsWrong() throws {
        // Seen from the front, a sagittal exercise never arms.
        var simulation = Simulation(exercise: .elbowFlexion, side: .right, reps: [.init(peak: 130), .init(peak: 130)])
        simulation.horizontalPosition = 0.05
        let (events, engine) = try run(simulation)
        #expect(reps(events).isEmpty)
        #expect(engine.snapshot().setupIssues.contains(.notCentered))
    }

    static let faultCases: [(Exercise, FormFeedback)] = Exercise.catalog.flatMap { exercise in
        exercise.possibleFaults.map { (exercise, $0) }
    }

    @Test(arguments: faultCases)
    func rejectsTheRepWithTheActedOutFaultOnly(exercise: Exercise, fault: FormFeedback) throws {
        let peak = Scenario.typicalPeak(for: exercise)
        var simulation = Simulation(
            exercise: exercise, side: .left,
            reps: [.init(peak: peak), .init(peak: peak, faults: [fault]), .init(peak: peak)])
        simulation.noise = 1
        let (events, engine) = try run(simulation)
        let counted = reps(events)
        try #require(counted.count == 3)
        #expect(counted.map(\.isClean) == [true, false, true])
        #expect(Array(counted[1].faults) == [fault])
        let faults = events.compactMap { if case .formFault(let f) = $0.event { f } else { nil } }
        #expect(faults == [fault], "formFault fires once for the rep")
        #expect(engine.snapshot().rejectedCount == 1)
        #expect(engine.summary.faultCounts == [fault: 1])
        // The fault is announced before the rep it spoils ends.
        let faultTime = try #require(events.first { if case .formFault = $0.event { true } else { false } }?.t)
        #expect(faultTime <= counted[1].end)
    }

    @Test func holdCompletesAfterTheHoldTimeWithProgress() throws {
        var simulation = Simulation(exercise: .shoulderAbductionHold, side: .right, reps: [.init(peak: 100)])
        simulation.noise = 1
        var engine = try MotionEngine(
            configuration: SessionConfiguration(exercise: .shoulderAbductionHold, side: .right))
        var progress: [Double] = []
        var events: [MotionEvent] = []
        for pose in simulation.poses() {
            events += try engine.process(pose)
            if let p = engine.snapshot().holdProgress { progress.append(p) }
        }
        #expect(events.filter { $0 == .holdStarted }.count == 1)
        let rep = try #require(reps(events.map { (0, $0) }).first)
        #expect(rep.isClean)
        #expect(abs(rep.duration - 5) < 0.1)
        #expect(abs(rep.peak - 100) < 3)
        #expect(progress.first ?? 1 < 0.05)
        #expect(progress.max() ?? 0 > 0.98)
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $0 <= $1 }, "progress only grows")
        #expect(engine.snapshot().holdProgress == nil)
    }

    @Test func holdDroppedEarlyEndsWithoutARep() throws {
        let simulation = Simulation(
            exercise: .shoulderAbductionHold, side: .right, reps: [.init(peak: 100, holdFor: 2), .init(peak: 100)])
        let (events, engine) = try run(simulation)
        #expect(events.filter { $0.event == .holdStarted }.count == 2)
        #expect(reps(events).count == 1)
        #expect(engine.snapshot().repCount == 1)
    }

    @Test func holdTimeDoesNotRunWhileTheArmIsUnseen() throws {
        var simulation = Simulation(exercise: .shoulderAbductionHold, side: .right, reps: [.init(peak: 100)])
        simulation.leadIn = 1.5
        // Hidden for 2 s in the middle of a 5.7 s plateau: only 3.7 s are seen, so the hold cannot complete.
        simulation.hidden = [(3.5...5.5, [.rightElbow])]
        let (events, _) = try run(simulation)
        #expect(reps(events).isEmpty)
    }

    @Test func repInProgressSurvivesMissingJointsWithoutPunishment() throws {
        var simulation = Simulation(exercise: .elbowFlexion, side: .right, reps: [.init(peak: 130)])
        simulation.hidden = [(2.3...2.7, [.rightWrist, .rightShoulder])]
        let (events, _) = try run(simulation)
        let counted = reps(events)
        #expect(counted.count == 1)
        #expect(counted.first?.isClean == true)
    }

    @Test func reportsVisibilityChangesDebouncedWithTheMissingJoints() throws {
        var simulation = Simulation(exercise: .elbowFlexion, side: .right, reps: [.init(peak: 130)])
        simulation.hidden = [(2.0...3.0, [.rightWrist]), (3.5...3.6, [.rightWrist])]
        let (events, _) = try run(simulation)
        let changes = events.compactMap { if case .visibilityChanged(let v) = $0.event { ($0.t, v) } else { nil } }
        // Visible at the start, wrist lost for a second, back; the 0.1 s blink is debounced away.
        #expect(changes.map(\.1.isVisible) == [true, false, true])
        #expect(Array(changes[1].1.missingJoints) == [.rightWrist])
        #expect(changes[1].0 >= 2.3 && changes[1].0 < 2.4)
    }

    @Test func emptyPosesMeanThePersonLeftTheFrame() throws {
        var simulation = Simulation(exercise: .squat, side: .right, reps: [.init(peak: 100)])
        simulation.outOfFrame = [4.0...6.0]
        simulation.tail = 3
        let (events, engine) = try run(simulation)
        let changes = events.compactMap { if case .visibilityChanged(let v) = $0.event { v } else { nil } }
        #expect(changes.map(\.isVisible) == [true, false, true])
        #expect(changes[1].missingJoints == [.rightHip, .rightKnee, .rightAnkle])
        #expect(engine.summary.visibleRatio < 0.85)
        #expect(!events.contains { if case .setupChanged = $0.event { true } else { false } })
    }

    @Test func snapshotValueIsNilWhileUnmeasurable() throws {
        var engine = try MotionEngine(configuration: SessionConfiguration(exercise: .squat))
        _ = try engine.process(Pose(timestamp: 1))
        #expect(engine.snapshot().value == nil)
        #expect(engine.snapshot().confidence == nil)
        #expect(engine.snapshot().timestamp == 1)
    }

    static let setupCases: [(SetupIssue, Exercise, @Sendable (inout Simulation) -> Void)] = [
        (.tooClose, .squat, { $0.stature = 760 }),
        (.tooFar, .squat, { $0.stature = 150 }),
        (.notCentered, .squat, { $0.horizontalPosition = 0.9 }),
        (.notFacing, .shoulderAbduction, { $0.exercise = .shoulderFlexion }),
        (.notSideways, .shoulderFlexion, { $0.exercise = .shoulderAbduction }),
    ]

    @Test(arguments: setupCases)
    func reportsEachSetupIssueAfterTheDebounce(
        issue: SetupIssue, exercise: Exercise, misplace: @Sendable (inout Simulation) -> Void
    ) throws {
        // The session is configured for `exercise`; the simulated person stands as `misplace` says.
        var simulation = Simulation(exercise: exercise, side: .right, reps: [.init(peak: 60)])
        misplace(&simulation)
        var engine = try MotionEngine(configuration: SessionConfiguration(exercise: exercise, side: .right))
        var changes: [(Double, SetupIssueSet)] = []
        for pose in simulation.poses() {
            for case .setupChanged(let issues) in try engine.process(pose) { changes.append((pose.timestamp, issues)) }
        }
        let first = try #require(changes.first)
        #expect(first.1.contains(issue))
        #expect(first.0 >= 0.5, "debounced by 0.5 s")
        #expect(engine.snapshot().setupIssues.contains(issue))
    }

    @Test(arguments: Exercise.catalog)
    func wellPlacedSimulationsHaveNoSetupIssues(exercise: Exercise) throws {
        let peak = Scenario.typicalPeak(for: exercise)
        var simulation = Simulation(exercise: exercise, side: .right, reps: [.init(peak: peak)])
        simulation.noise = 1
        let (events, _) = try run(simulation)
        #expect(!events.contains { if case .setupChanged = $0.event { true } else { false } })
    }

    @Test func baselineAveragesTheFirstCleanRepsOnce() throws {
        let peaks: [Double] = [130, 120, 110, 140, 140]
        var simulation = Simulation(
            exercise: .elbowFlexion, side: .right,
            reps: [.init(peak: 125, faults: [.keepTrunkUpright])] + peaks.map { .init(peak: $0) })
        simulation.noise = 1
        let (events, engine) = try run(simulation) { $0.startsBaseline = true }
        let completions = events.compactMap { if case .baselineCompleted(let v) = $0.event { v } else { nil } }
        try #require(completions.count == 1)
        let clean = reps(events).filter(\.isClean)
        let expected = clean.prefix(3).map(\.peak).reduce(0, +) / 3
        #expect(abs(completions[0] - expected) < 1e-9)
        #expect(abs(completions[0] - 120) < 3)
        #expect(engine.snapshot().baseline == BaselineStatus(progress: 1, value: completions[0]))
        #expect(engine.summary.baseline == completions[0])
    }

    @Test func baselineProgressIsReportedAndAbsentUntilStarted() throws {
        let simulation = Simulation(exercise: .elbowFlexion, side: .right, reps: [.init(peak: 120)])
        var engine = try MotionEngine(configuration: SessionConfiguration(exercise: .elbowFlexion, side: .right))
        #expect(engine.snapshot().baseline == nil)
        engine.startBaseline()
        #expect(engine.snapshot().baseline == BaselineStatus(progress: 0, value: nil))
        for pose in simulation.poses() { _ = try engine.process(pose) }
        let progress = try #require(engine.snapshot().baseline?.progress)
        #expect(abs(progress - 1.0 / 3) < 1e-9)
    }

    @Test func baselineOfAHoldIsTheFirstHold() throws {
        let simulation = Simulation(exercise: .shoulderAbductionHold, side: .right, reps: [.init(peak: 97)])
        let (events, _) = try run(simulation) { $0.startsBaseline = true }
        let value = try #require(
            events.compactMap { if case .baselineCompleted(let v) = $0.event { v } else { nil } }.first)
        #expect(abs(value - 97) < 3)
    }

    @Test func resetClearsCountsBestAndTheRepInProgress() throws {
        let simulation = Simulation(exercise: .elbowFlexion, side: .right, reps: [.init(peak: 130), .init(peak: 130)])
        var engine = try MotionEngine(configuration: SessionConfiguration(exercise: .elbowFlexion, side: .right))
        let poses = simulation.poses()
        // Reset in the middle of the second rep: it must not be counted, and counting waits for the start position.
        let midSecondRep = 1.5 + 2 + 1 + 1
        var after: [MotionEvent] = []
        for pose in poses {
            if pose.timestamp < midSecondRep {
                _ = try engine.process(pose)
            } else {
                if engine.snapshot().repCount == 1 { engine.reset() }
                after += try engine.process(pose)
            }
        }
        #expect(reps(after.map { (0, $0) }).isEmpty)
        let snapshot = engine.snapshot()
        #expect(snapshot.repCount == 0)
        #expect(snapshot.lastRep == nil)
        #expect((snapshot.best ?? 0) < 60, "best restarts after the reset")
        #expect(engine.summary.reps.isEmpty)
        #expect(engine.exercise.id == "elbowFlexion")
    }

    @Test func refusedPosesChangeNothing() throws {
        let poses = Simulation(exercise: .squat, side: .right, reps: [.init(peak: 90)]).poses()
        var engine = try MotionEngine(configuration: SessionConfiguration(exercise: .squat))
        for pose in poses.prefix(40) { _ = try engine.process(pose) }
        let before = engine.snapshot()
        #expect(throws: PoseError.nonIncreasingTime(previous: poses[39].timestamp, received: poses[39].timestamp)) {
            try engine.process(poses[39])
        }
        var broken = poses[40]
        broken[.rightKnee] = Point(x: .nan, y: 3)
        #expect(throws: PoseError.nonFinite) { try engine.process(broken) }
        #expect(engine.snapshot() == before)
        #expect(engine.summary.frames == 40)
    }

    @Test func bilateralExerciseFollowsTheSideInView() throws {
        var simulation = Simulation(exercise: .squat, side: .left, reps: [.init(peak: 100), .init(peak: 95)])
        simulation.hidden = [(0...100, [.rightHip, .rightKnee, .rightAnkle])]
        let (events, engine) = try run(simulation)
        #expect(reps(events).count == 2)
        #expect(engine.side == .left)
    }

    @Test func mirroredCameraUnmirroredBySwappingSidesGivesTheSameCounts() throws {
        var simulation = Simulation(
            exercise: .shoulderAbduction, side: .right, reps: [.init(peak: 150), .init(peak: 140)])
        simulation.mirrored = true
        simulation.noise = 1
        let (events, _) = try run(simulation)
        let counted = reps(events)
        #expect(counted.count == 2)
        #expect(abs((counted.first?.peak ?? 0) - 150) < 3)
    }

    @Test func replayIsDeterministic() throws {
        var simulation = Simulation(exercise: .hipAbduction, side: .right, reps: [.init(peak: 40), .init(peak: 35)])
        simulation.noise = 2
        simulation.dropoutRate = 0.02
        let first = try run(simulation)
        let second = try run(simulation)
        #expect(first.events.map(\.event) == second.events.map(\.event))
        #expect(first.engine.summary == second.engine.summary)
    }

    @Test func summaryCarriesFramesRepsAndADownsampledSeries() throws {
        let simulation = Simulation(exercise: .kneeExtension, side: .right, reps: [.init(peak: 80), .init(peak: 75)])
        let (_, engine) = try run(simulation)
        let summary = engine.summary
        #expect(summary.frames == simulation.poses().count)
        #expect(summary.visibleRatio == 1)
        #expect(summary.repCount == 2)
        #expect(summary.reps.count == 2)
        #expect(abs(summary.duration - simulation.duration) < 1.0 / 30)
        #expect(summary.exercise == "kneeExtension")
        #expect(summary.side == .right)
        let expectedSamples = Int(simulation.duration / 0.1)
        #expect(abs(summary.series.times.count - expectedSamples) <= 2)
        #expect(summary.series.values.compactMap { $0 }.max() ?? 0 > 70)
    }

    @Test func invalidConfigurationsAreRefusedWithReasons() {
        #expect(throws: SessionError.missingSide(exercise: "elbowFlexion")) {
            _ = try MotionEngine(configuration: SessionConfiguration(exercise: .elbowFlexion))
        }
        var configuration = SessionConfiguration(exercise: .squat)
        configuration.exercise.thresholds.exit = 60
        configuration.baselineReps = 0
        #expect(throws: SessionError.self) { _ = try MotionEngine(configuration: configuration) }
        do {
            _ = try MotionEngine(configuration: configuration)
        } catch {
            guard case .invalidConfiguration(let reasons) = error else { return }
            #expect(reasons.count == 2)
        }
    }

    @Test func targetAndHoldOverridesApply() throws {
        var configuration = SessionConfiguration(exercise: .shoulderAbductionHold, side: .right)
        configuration.prescription.holdSeconds = 2
        configuration.prescription.target = 100
        let engine = try MotionEngine(configuration: configuration)
        #expect(engine.exercise.thresholds.holdSeconds == 2)
        #expect(engine.exercise.target == 100)
        // A hold's entry is its target: the prescribed 100° moves it there.
        #expect(engine.exercise.thresholds.enter == 100)
        let simulation = Simulation(exercise: engine.exercise, side: .right, reps: [.init(peak: 106)])
        let (events, _) = try run(simulation) { $0.prescription.holdSeconds = 2 }
        #expect(abs((reps(events).first?.duration ?? 0) - 2) < 0.1)
    }
}

extension MotionEngineTests {
    static let exercisesAndArms: [(Exercise, ArmPosition)] = Exercise.catalog.flatMap { exercise in
        ArmPosition.allCases.map { (exercise, $0) }
    }

    @Test(arguments: exercisesAndArms)
    func countsCleanRepsWhateverTheRestingArmsDo(exercise: Exercise, arms: ArmPosition) throws {
        let peak = Scenario.typicalPeak(for: exercise)
        var simulation = Simulation(exercise: exercise, side: .right, reps: [.init(peak: peak), .init(peak: peak)])
        simulation.arms = arms
        simulation.noise = 1
        let (events, engine) = try run(simulation)
        #expect(!events.contains { if case .setupChanged = $0.event { true } else { false } }, "\(arms)")
        #expect(engine.snapshot().repCount == 2, "\(exercise.id) with the arms \(arms)")
        #expect(engine.snapshot().rejectedCount == 0)
    }
}
