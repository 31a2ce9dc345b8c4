import Foundation
import Testing

@testable import MotionCore

@Suite("Falling exercises: the counter sees the value upside down")
struct DirectionTests {
    private static let rising = Thresholds(rest: 30, enter: 60, exit: 40, minAmplitude: 40, minDuration: 0.2)
    private static let falling = Thresholds(rest: 80, enter: 30, exit: 60, minAmplitude: 40, minDuration: 0.2)

    private static func drive(_ counter: inout RepCounter, _ values: [Double]) -> [RepCounter.Step] {
        values.enumerated().map { counter.update($1, at: Double($0) / 30, mayStart: true) }.filter { $0 != .none }
    }

    @Test func aFallingRepIsTheMirrorOfARisingOne() throws {
        let up: [Double] = [20, 25, 35, 45, 70, 95, 110, 90, 50, 39, 30, 20]
        var risingCounter = RepCounter(kind: .rep, direction: .rising, thresholds: Self.rising, maxGap: 0.5)
        var fallingCounter = RepCounter(
            kind: .rep, direction: .falling,
            thresholds: Thresholds(rest: -30, enter: -60, exit: -40, minAmplitude: 40, minDuration: 0.2),
            maxGap: 0.5)
        let risingSteps = Self.drive(&risingCounter, up)
        let fallingSteps = Self.drive(&fallingCounter, up.map { -$0 })
        guard case .completed(let a) = risingSteps.last, case .completed(let b) = fallingSteps.last else {
            Issue.record("no rep: \(risingSteps) \(fallingSteps)")
            return
        }
        #expect(b.peak == -a.peak)
        #expect(b.trough == -a.trough)
        #expect(b.start == a.start && b.end == a.end && b.peakTime == a.peakTime)
    }

    @Test func aFallingRepStartsBelowEnterAndEndsAboveExit() throws {
        var counter = RepCounter(kind: .rep, direction: .falling, thresholds: Self.falling, maxGap: 0.5)
        // Seated at 90°, stand up to 5°, sit back down.
        let values: [Double] = [90, 90, 85, 70, 50, 29, 10, 5, 12, 40, 59, 61, 80, 90]
        let steps = Self.drive(&counter, values)
        #expect(steps.count == 2)
        #expect(steps.first == .repStarted)
        guard case .completed(let done) = steps.last else {
            Issue.record("no rep: \(steps)")
            return
        }
        #expect(done.peak == 5)
        #expect(done.trough == 90)
        #expect(done.peakTime == 7.0 / 30)
        #expect(!counter.isAtLow(85))
    }

    @Test func aFallingHoldMustStayAtOrBelowEnter() throws {
        let thresholds = Thresholds(
            rest: 80, enter: 30, exit: 60, minAmplitude: 0, holdSeconds: 1, holdTolerance: 5)
        var counter = RepCounter(kind: .hold, direction: .falling, thresholds: thresholds, maxGap: 0.5)
        let held = [Double](repeating: 80, count: 3) + [Double](repeating: 28, count: 40)
        let steps = Self.drive(&counter, held)
        #expect(steps.first == .holdStarted)
        #expect(steps.count == 2)
        var broken = RepCounter(kind: .hold, direction: .falling, thresholds: thresholds, maxGap: 0.5)
        let dip = [Double](repeating: 80, count: 3) + [Double](repeating: 28, count: 10) + [40, 40]
        let dipped = Self.drive(&broken, dip)
        #expect(dipped.count == 2 && dipped.first == .holdStarted, "\(dipped)")
        #expect(dipped.last.map { if case .holdEnded(let end) = $0 { !end.completed } else { false } } == true)
    }

    @Test func fallingThresholdsOutOfOrderAreNamed() {
        var exercise = Exercise.kneeExtension
        exercise.direction = .falling
        // rest 20, enter 50, exit 30 is rising order.
        #expect(exercise.problems.map(\.pointer) == ["/thresholds/exit", "/thresholds/enter", "/target"])
        exercise.thresholds = Thresholds(rest: 80, enter: 20, exit: 50, minAmplitude: 30)
        exercise.target = 0
        #expect(exercise.problems.isEmpty)
    }

    @Test func bestIsTheLowestForAFallingExercise() throws {
        var exercise = Exercise.kneeExtension
        exercise.id = "kneeDrop"
        exercise.direction = .falling
        exercise.rules = []
        exercise.thresholds = Thresholds(rest: 70, enter: 40, exit: 55, minAmplitude: 20, minDuration: 0.2)
        exercise.target = 10
        var engine = try MotionEngine(configuration: SessionConfiguration(exercise: exercise, side: .right))
        var t = 0.0
        func pose(shank degrees: Double) -> Pose {
            // A shank from the knee at (500, 400), `degrees` from straight down, forward to the right.
            let radians = degrees * .pi / 180
            var pose = Pose(timestamp: t)
            pose[.rightKnee] = Point(x: 500, y: 400)
            pose[.rightAnkle] = Point(x: 500 + 100 * sin(radians), y: 400 + 100 * cos(radians))
            t += 1.0 / 30
            return pose
        }
        var events: [MotionEvent] = []
        for degrees in [80.0, 80, 75, 60, 45, 30, 20, 20, 25, 40, 60, 75, 80, 80] {
            for _ in 0..<4 { events += try engine.process(pose(shank: degrees)) }
        }
        let rep = try #require(events.compactMap { if case .repCompleted(let rep) = $0 { rep } else { nil } }.first)
        #expect(abs(rep.peak - 20) < 3)
        #expect(rep.trough > 75)
        #expect(rep.range == rep.trough - rep.peak)
        let best = try #require(engine.snapshot().best)
        #expect(abs(best - rep.peak) < 1e-9)
    }
}
