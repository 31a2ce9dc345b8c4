import MotionSimulation
import Testing

@testable import MotionCore

@Suite("Motion session")
struct MotionSessionTests {
    private static func simulation(peaks: [Double] = [120, 130, 125]) -> Simulation {
        Simulation(exercise: .elbowFlexion, side: .right, reps: peaks.map { SimulatedRep(peak: $0) })
    }

    private static func repsCompleted(_ events: [MotionEvent]) -> [Rep] {
        events.compactMap { if case .repCompleted(let rep) = $0 { rep } else { nil } }
    }

    private static func collect(_ stream: AsyncStream<MotionEvent>) async -> [MotionEvent] {
        var events: [MotionEvent] = []
        for await event in stream { events.append(event) }
        return events
    }

    // MARK: Creation

    @Test(arguments: Exercise.catalog.filter { $0.sidedness == .oneSided })
    func aOneSidedExerciseNeedsASide(_ exercise: Exercise) throws {
        #expect(throws: SessionError.missingSide(exercise: exercise.id)) {
            try MotionSession(exercise: exercise)
        }
        for side in BodySide.allCases {
            let session = try MotionSession(exercise: exercise, side: side)
            #expect(session.exercise == exercise)
        }
    }

    @Test func aBilateralSquatNeedsNoSide() throws {
        let session = try MotionSession(exercise: .squat)
        #expect(session.exercise.id == "squat")
        #expect(session.summary.side == nil)
        _ = try MotionSession(exercise: .squat, side: .left)
    }

    @Test func anInvalidExerciseIsRefused() {
        var exercise = Exercise.elbowFlexion
        exercise.thresholds.exit = 70
        #expect(throws: SessionError.invalidConfiguration(exercise.validationErrors)) {
            try MotionSession(exercise: exercise, side: .right)
        }
    }

    @Test func aFreshSessionIsRunningAndEmpty() throws {
        let session = try MotionSession(exercise: .elbowFlexion, side: .right)
        let snapshot = session.snapshot
        #expect(snapshot.isRunning)
        #expect(snapshot.timestamp == nil)
        #expect(snapshot.repCount == 0)
        #expect(snapshot.lastRep == nil)
        #expect(session.summary.frames == 0)
    }

    // MARK: Refused poses

    @Test(arguments: [1.0, 0.5, -3])
    func refusesANonIncreasingTimestamp(received: Double) throws {
        let session = try MotionSession(exercise: .elbowFlexion, side: .right)
        let poses = Self.simulation().poses()
        let first = try #require(poses.first)
        var pose = poses[1]
        var earlier = first
        earlier.timestamp = 0.5
        try session.process(earlier)
        pose.timestamp = 1
        try session.process(pose)
        let snapshot = session.snapshot
        let summary = session.summary
        pose.timestamp = received
        #expect(throws: PoseError.nonIncreasingTime(previous: 1, received: received)) {
            try session.process(pose)
        }
        #expect(session.snapshot == snapshot)
        #expect(session.summary == summary)
        #expect(session.summary.frames == 2)
    }

    @Test(arguments: [Double.nan, .infinity])
    func refusesNonFiniteValues(bad: Double) throws {
        let session = try MotionSession(exercise: .elbowFlexion, side: .right)
        let poses = Self.simulation().poses()
        try session.process(poses[0])
        let snapshot = session.snapshot
        let summary = session.summary

        var badPoint = poses[1]
        badPoint[.rightElbow] = Point(x: bad, y: 300)
        var badTime = poses[1]
        badTime.timestamp = bad
        var badConfidence = poses[1]
        badConfidence.setConfidence(bad, for: .rightWrist)
        var badSize = poses[1]
        badSize.imageSize = ImageSize(width: bad, height: 720)
        for pose in [badPoint, badTime, badConfidence, badSize] {
            #expect(throws: PoseError.nonFinite) { try session.process(pose) }
        }
        #expect(session.snapshot == snapshot)
        #expect(session.summary == summary)
        // A good pose is still accepted afterwards.
        try session.process(poses[1])
        #expect(session.summary.frames == 2)
    }

    @Test func aZeroImageSizeIsRefused() throws {
        let session = try MotionSession(exercise: .elbowFlexion, side: .right)
        var pose = try #require(Self.simulation().poses().first)
        pose.imageSize = ImageSize(width: 0, height: 720)
        #expect(throws: PoseError.nonFinite) { try session.process(pose) }
        #expect(session.snapshot.timestamp == nil)
    }

    // MARK: Events

    @Test func processReturnsTheEventsAndCountsReps() throws {
        let session = try MotionSession(exercise: .elbowFlexion, side: .right)
        var events: [MotionEvent] = []
        for pose in Self.simulation().poses() { events += try session.process(pose) }
        #expect(Self.repsCompleted(events).count == 3)
        #expect(session.snapshot.repCount == 3)
        #expect(session.summary.reps.map(\.index) == [1, 2, 3])
    }

    @Test func twoListenersReceiveTheSameEventsInOrder() async throws {
        let session = try MotionSession(exercise: .elbowFlexion, side: .right)
        let first = session.events()
        let second = session.events()
        var processed: [MotionEvent] = []
        for pose in Self.simulation().poses() { processed += try session.process(pose) }
        session.stop()
        let firstEvents = await Self.collect(first)
        let secondEvents = await Self.collect(second)
        #expect(Self.repsCompleted(processed).count == 3)
        #expect(firstEvents == processed)
        #expect(secondEvents == processed)
    }

    @Test func aListenerThatStopsEarlyDoesNotDisturbTheOther() async throws {
        let session = try MotionSession(exercise: .elbowFlexion, side: .right)
        let quitter = session.events()
        let stayer = session.events()
        let firstOnly = Task { () -> MotionEvent? in
            for await event in quitter { return event }
            return nil
        }
        let poses = Self.simulation().poses()
        let half = poses.count / 2
        var processed: [MotionEvent] = []
        for pose in poses[..<half] { processed += try session.process(pose) }
        try #require(!processed.isEmpty)
        // The quitter has received its first event and stopped listening.
        #expect(await firstOnly.value == processed.first)
        for pose in poses[half...] { processed += try session.process(pose) }
        session.stop()
        #expect(await Self.collect(stayer) == processed)
        #expect(Self.repsCompleted(processed).count == 3)
    }

    @Test func aListenerAddedLaterHearsOnlyLaterEvents() async throws {
        let session = try MotionSession(exercise: .elbowFlexion, side: .right)
        let poses = Self.simulation().poses()
        let half = poses.count / 2
        for pose in poses[..<half] { try session.process(pose) }
        let late = session.events()
        var later: [MotionEvent] = []
        for pose in poses[half...] { later += try session.process(pose) }
        session.stop()
        #expect(await Self.collect(late) == later)
    }

    @Test func eventsAfterStopEndAtOnce() async throws {
        let session = try MotionSession(exercise: .elbowFlexion, side: .right)
        session.stop()
        #expect(await Self.collect(session.events()).isEmpty)
    }

    // MARK: Providers

    @Test func runReturnsWhenTheProviderEndsAndCountsTheReps() async throws {
        let session = try MotionSession(exercise: .elbowFlexion, side: .right)
        let listener = session.events()
        try await session.run(with: Self.simulation().provider())
        #expect(session.snapshot.repCount == 3)
        #expect(session.summary.frames == Self.simulation().poses().count)
        #expect(session.snapshot.isRunning)
        session.stop()
        #expect(Self.repsCompleted(await Self.collect(listener)).count == 3)
    }

    @Test func runSkipsRefusedPoses() async throws {
        let session = try MotionSession(exercise: .elbowFlexion, side: .right)
        let poses = Self.simulation().poses()
        var withDuplicates: [Pose] = []
        for pose in poses { withDuplicates += [pose, pose] }  // every second pose repeats a timestamp
        let provider = AsyncStream<Pose> { continuation in
            for pose in withDuplicates { continuation.yield(pose) }
            continuation.finish()
        }
        try await session.run(with: provider)
        #expect(session.summary.frames == poses.count)
        #expect(session.snapshot.repCount == 3)
    }

    @Test(.timeLimit(.minutes(1)))
    func runReturnsWhenItsTaskIsCancelled() async throws {
        let session = try MotionSession(exercise: .elbowFlexion, side: .right)
        let (stream, continuation) = AsyncStream.makeStream(of: Pose.self)
        let task = Task { try await session.run(with: stream) }
        for pose in Self.simulation().poses().prefix(5) { continuation.yield(pose) }
        task.cancel()
        try await task.value  // must return although the stream never finishes
        #expect(session.summary.frames <= 5)
        continuation.finish()
    }

    @Test(.timeLimit(.minutes(1)))
    func stopEndsEventStreamsAndStopsReadingTheProvider() async throws {
        let session = try MotionSession(exercise: .elbowFlexion, side: .right)
        let listener = session.events()
        let (stream, continuation) = AsyncStream.makeStream(of: Pose.self)
        let (readerEnded, readerEndedContinuation) = AsyncStream.makeStream(of: Never.self)
        continuation.onTermination = { _ in readerEndedContinuation.finish() }
        session.start(with: stream)
        session.stop()
        #expect(await Self.collect(listener).isEmpty)
        // The provider is let go of: its stream terminates although nobody finished it.
        for await _ in readerEnded {}
        // The reader starting after stop() must not reopen the session.
        #expect(!session.snapshot.isRunning)
        #expect(throws: PoseError.notRunning) { try session.process(Self.simulation().poses()[0]) }
        #expect(await Self.collect(session.events()).isEmpty)
    }

    @Test func stopRefusesPosesAndLeavesTheSessionAsItWas() async throws {
        let session = try MotionSession(exercise: .elbowFlexion, side: .right)
        let poses = Self.simulation().poses()
        for pose in poses[..<100] { try session.process(pose) }
        let before = session.snapshot
        let listener = session.events()
        session.stop()
        #expect(await Self.collect(listener).isEmpty)
        var expected = before
        expected.isRunning = false
        #expect(session.snapshot == expected)
        #expect(throws: PoseError.notRunning) { try session.process(poses[100]) }
        #expect(session.snapshot == expected)
        #expect(session.summary.frames == 100)
    }

    @Test(.timeLimit(.minutes(1)))
    func startReadsTheProviderInTheBackground() async throws {
        let session = try MotionSession(exercise: .elbowFlexion, side: .right)
        let listener = session.events()
        var simulation = Self.simulation()
        simulation.outOfFrame = [simulation.duration - 0.5...simulation.duration]
        session.start(with: simulation.provider())
        // Follow the session through its events, not a clock: the person leaving the frame ends it.
        var count = 0
        for await event in listener {
            if case .repCompleted = event { count += 1 }
            if case .visibilityChanged(let visibility) = event, !visibility.isVisible { break }
        }
        #expect(count == 3)
        session.stop()
        #expect(session.snapshot.repCount == 3)
        #expect(!session.snapshot.isRunning)
    }

    // MARK: Reset and baseline

    @Test func resetClearsCountsBestAndLastRep() throws {
        let session = try MotionSession(exercise: .elbowFlexion, side: .right)
        let poses = Self.simulation().poses()
        for pose in poses { try session.process(pose) }
        #expect(session.snapshot.repCount == 3)
        #expect(session.snapshot.best != nil)
        #expect(session.snapshot.lastRep != nil)
        session.reset()
        let snapshot = session.snapshot
        #expect(snapshot.repCount == 0)
        #expect(snapshot.rejectedCount == 0)
        #expect(snapshot.best == nil)
        #expect(snapshot.lastRep == nil)
        #expect(session.summary.reps.isEmpty)
        #expect(session.summary.frames == poses.count, "the history of frames stays")

        // Counting resumes with the next session-time poses.
        let end = try #require(poses.last?.timestamp)
        var more = Self.simulation(peaks: [110])
        more.startTime = end + 1
        for pose in more.poses() { try session.process(pose) }
        #expect(session.snapshot.repCount == 1)
        #expect(session.snapshot.lastRep?.index == 1)
    }

    @Test func baselineIsTheMeanOfTheFirstThreeCleanPeaks() throws {
        let session = try MotionSession(exercise: .elbowFlexion, side: .right)
        #expect(session.snapshot.baseline == nil)
        session.startBaseline()
        #expect(session.snapshot.baseline == BaselineStatus(progress: 0, value: nil))
        var events: [MotionEvent] = []
        for pose in Self.simulation(peaks: [110, 130, 120, 145]).poses() { events += try session.process(pose) }
        let reps = Self.repsCompleted(events)
        try #require(reps.count == 4)
        let baselines = events.compactMap { if case .baselineCompleted(let value) = $0 { value } else { nil } }
        let expected = (reps[0].peak + reps[1].peak + reps[2].peak) / 3
        try #require(baselines.count == 1)
        #expect(abs(baselines[0] - expected) < 1e-9)
        // It is announced right after the third rep.
        let third = try #require(events.firstIndex(of: .repCompleted(reps[2])))
        #expect(events[third + 1] == .baselineCompleted(baselines[0]))
        #expect(session.snapshot.baseline == BaselineStatus(progress: 1, value: baselines[0]))
        #expect(session.summary.baseline == baselines[0])
    }

    @Test func baselineProgressCountsCleanReps() throws {
        let session = try MotionSession(exercise: .elbowFlexion, side: .right)
        session.startBaseline()
        for pose in Self.simulation(peaks: [110]).poses() { try session.process(pose) }
        let progress = try #require(session.snapshot.baseline?.progress)
        #expect(abs(progress - 1.0 / 3) < 1e-12)
        #expect(session.snapshot.baseline?.value == nil)
    }
}
