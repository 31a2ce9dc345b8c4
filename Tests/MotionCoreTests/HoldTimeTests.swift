import MotionCore
import MotionSimulation
import Testing

/// Holds report the time held (docs/protocol.md §5.4): an attempt is timed past its `holdSeconds` until the value
/// leaves the tolerance or the session stops, and the summary keeps every attempt.
@Suite("Hold time")
struct HoldTimeTests {
    /// One plank held for `seconds` (ramps of 1 s either side), at 30 poses a second.
    static func plank(holdingFor seconds: Double) -> [Pose] {
        Simulation(exercise: .plankHold, side: .right, reps: [SimulatedRep(peak: 0.3, holdFor: seconds)]).poses()
    }

    /// Each pose's events, with the pose's time.
    static func run(_ poses: [Pose], on engine: inout MotionEngine) throws -> [(t: Double, event: MotionEvent)] {
        var events: [(t: Double, event: MotionEvent)] = []
        for pose in poses { events += try engine.process(pose).map { (pose.timestamp, $0) } }
        return events
    }

    static func holdsEnded(_ events: [MotionEvent]) -> [Hold] {
        events.compactMap { if case .holdEnded(let hold) = $0 { hold } else { nil } }
    }

    /// 1/30 s: one pose, the resolution of the time held.
    static let frame = 1.0 / 30

    @Test func aPlankHeldForTwoMinutesReadsTwoMinutes() throws {
        var engine = try MotionEngine(configuration: SessionConfiguration(exercise: .plankHold))
        let events = try Self.run(Self.plank(holdingFor: 120), on: &engine)
        let started = try #require(events.first { $0.event == .holdStarted })
        let ends = Self.holdsEnded(events.map(\.event))
        let hold = try #require(ends.first)
        #expect(ends.count == 1)
        #expect(hold.completed)
        #expect(hold.start == started.t)
        // The value crosses `enter` and the tolerance below it on the ramps: held a little over the 120 s plateau.
        #expect(hold.held > 120 && hold.held < 122, "\(hold.held)")
        let ended = try #require(events.first { Self.holdsEnded([$0.event]).count == 1 })
        #expect(abs(hold.held - (ended.t - Self.frame - hold.start)) < 1e-6, "held up to the pose before the release")
        // Counted once, at the prescribed 10 s, while the clock ran on.
        let reps = events.compactMap { if case .repCompleted(let rep) = $0.event { rep } else { nil } }
        #expect(reps.count == 1)
        #expect(abs((reps.first?.duration ?? 0) - 10) <= Self.frame)
        #expect(engine.summary.holds == [hold])
        #expect(engine.summary.bestHold == hold.held)
        #expect(engine.summary.repCount == 1)
        #expect(engine.endHold().isEmpty, "released: no hold under way")
    }

    @Test func stoppingMidHoldEndsItWithTheTimeHeldSoFar() throws {
        var engine = try MotionEngine(configuration: SessionConfiguration(exercise: .plankHold))
        let poses = Self.plank(holdingFor: 60).filter { $0.timestamp <= 30 }
        let events = try Self.run(poses, on: &engine)
        let started = try #require(events.first { $0.event == .holdStarted })
        #expect(Self.holdsEnded(events.map(\.event)).isEmpty, "still holding at the last pose")
        #expect(engine.summary.holds.isEmpty)
        #expect(engine.snapshot().holdProgress == 1, "past its hold time, at full progress")

        let end = engine.endHold()
        let hold = Hold(start: started.t, held: try #require(Self.holdsEnded(end).first).held, completed: true)
        #expect(end == [.holdEnded(hold)])
        #expect(abs(hold.held - (30 - started.t)) < 1e-6, "held up to the last pose, at 30 s: \(hold.held)")
        #expect(engine.summary.holds == [hold])
        #expect(engine.summary.bestHold == hold.held)
        #expect(engine.snapshot().holdProgress == nil)
        #expect(engine.endHold().isEmpty, "ended once")
    }

    @Test func aHoldBrokenEarlyIsRecordedNotCompletedAndTheBestIsTheLongest() throws {
        var engine = try MotionEngine(configuration: SessionConfiguration(exercise: .plankHold))
        var simulation = Simulation(
            exercise: .plankHold, side: .right,
            reps: [SimulatedRep(peak: 0.3, holdFor: 4), SimulatedRep(peak: 0.3, holdFor: 15)])
        simulation.restDuration = 3
        let events = try Self.run(simulation.poses(), on: &engine)
        let holds = Self.holdsEnded(events.map(\.event))
        #expect(holds.map(\.completed) == [false, true])
        #expect(holds.first.map { $0.held > 4 && $0.held < 6 } == true, "\(holds)")
        #expect(holds.last.map { $0.held > 15 && $0.held < 17 } == true, "\(holds)")
        #expect(engine.summary.holds == holds)
        #expect(engine.summary.bestHold == holds.last?.held)
        #expect(engine.summary.repCount == 1, "only the completed hold counts")
        engine.reset()
        #expect(engine.summary.holds.isEmpty)
        #expect(engine.summary.bestHold == nil)
    }

    /// Saved mid-hold, past its hold time (format version 5 keeps that it completed), an engine restored from the
    /// state ends the hold as the original does, completed, with the holds that ended before.
    @Test func aRestoredEngineEndsTheHoldUnderWayAsTheOriginal() throws {
        let configuration = SessionConfiguration(exercise: .plankHold)
        var simulation = Simulation(
            exercise: .plankHold, side: .right,
            reps: [SimulatedRep(peak: 0.3, holdFor: 3), SimulatedRep(peak: 0.3, holdFor: 40)])
        simulation.restDuration = 3
        let cut = 25.0
        var engine = try MotionEngine(configuration: configuration)
        _ = try Self.run(simulation.poses().filter { $0.timestamp <= cut }, on: &engine)
        #expect(engine.summary.holds.count == 1)
        var restored = try MotionEngine(
            configuration: configuration, restoring: engine.savedState(includingSeries: true))
        let rest = simulation.poses().filter { $0.timestamp > cut && $0.timestamp <= cut + 5 }
        #expect(try Self.run(rest, on: &restored).map(\.event) == Self.run(rest, on: &engine).map(\.event))
        let end = restored.endHold()
        #expect(end == engine.endHold())
        #expect(Self.holdsEnded(end).first?.completed == true)
        #expect(restored.summary == engine.summary)
        #expect(restored.summary.holds.count == 2)
    }

    @Test func stoppingASessionDeliversTheHoldUnderWay() async throws {
        let session = try MotionSession(exercise: .plankHold)
        let stream = session.events()
        let listener = Task {
            var events: [MotionEvent] = []
            for await event in stream { events.append(event) }
            return events
        }
        for pose in Self.plank(holdingFor: 60).filter({ $0.timestamp <= 20 }) { try session.process(pose) }
        session.stop()
        let events = await listener.value
        let hold = try #require(Self.holdsEnded(events).first)
        #expect(events.last == .holdEnded(hold), "the last event, before the streams end")
        #expect(hold.completed)
        #expect(session.summary.holds == [hold])
        session.stop()
        #expect(session.summary.holds == [hold], "a second stop ends nothing")
    }
}
