import Foundation
import MotionCore
import Testing

@Suite("Alternating exercises: left and right counted apart")
struct AlternatingTests {
    /// Standing hip flexion with the sides taking turns, as data.
    static let march = Exercise(
        id: "testMarch", name: "March", view: .sagittal, kind: .rep, sidedness: .alternating,
        measurement: .angleBetween(.trunk, .thigh),
        thresholds: Thresholds(rest: 15, enter: 45, exit: 25, minAmplitude: 30, minDuration: 0.3), target: 90)

    /// A side view: trunk upright, each thigh raised by its angle, shanks hanging.
    static func pose(at t: Double, left: Double, right: Double) -> Pose {
        var pose = Pose(timestamp: t)
        pose[.leftShoulder] = Point(x: 402, y: 200)
        pose[.rightShoulder] = Point(x: 398, y: 200)
        pose[.leftHip] = Point(x: 401, y: 400)
        pose[.rightHip] = Point(x: 399, y: 400)
        for (side, degrees) in [(BodySide.left, left), (.right, right)] {
            let radians = degrees * .pi / 180
            let hip = Point(x: side == .left ? 401 : 399, y: 400)
            let knee = Point(x: hip.x + 160 * sin(radians), y: hip.y + 160 * cos(radians))
            pose[.knee(side)] = knee
            pose[.ankle(side)] = Point(x: knee.x, y: knee.y + 160)
        }
        return pose
    }

    /// Rest, then each of `lifts` in turn: (side, peak) raised and lowered over 1.2 s.
    static func session(_ lifts: [(BodySide, Double)]) -> [Pose] {
        var poses: [Pose] = []
        var t = 0.0
        func emit(left: Double, right: Double) {
            poses.append(pose(at: t, left: left, right: right))
            t += 1.0 / 30
        }
        for _ in 0..<20 { emit(left: 5, right: 5) }
        for (side, peak) in lifts {
            for i in 0...36 {
                let value = 5 + (peak - 5) * (0.5 - 0.5 * cos(2 * .pi * Double(i) / 36))
                if side == .left { emit(left: value, right: 5) } else { emit(left: 5, right: value) }
            }
            for _ in 0..<10 { emit(left: 5, right: 5) }
        }
        return poses
    }

    @Test func eachSideCountsItsOwnRepsAndBests() throws {
        var engine = try MotionEngine(configuration: SessionConfiguration(exercise: Self.march))
        var events: [MotionEvent] = []
        var sides: Set<BodySide> = []
        for pose in Self.session([(.left, 80), (.right, 70), (.left, 85), (.right, 20), (.right, 75)]) {
            events += try engine.process(pose)
            if let side = engine.snapshot().side { sides.insert(side) }
        }
        let completed = events.compactMap { if case .repCompleted(let rep) = $0 { rep } else { nil } }
        #expect(completed.map(\.side) == [.left, .right, .left, .right])
        #expect(completed.map(\.index) == [1, 2, 3, 4])
        let summary = engine.summary
        #expect(summary.repCount == 4)
        let left = try #require(summary.perSide[.left])
        let right = try #require(summary.perSide[.right])
        #expect(left.repCount == 2 && right.repCount == 2)
        #expect(abs((left.best ?? 0) - 85) < 3)
        #expect(abs((right.best ?? 0) - 75) < 3)
        #expect(abs((summary.best ?? 0) - 85) < 3)
        #expect(sides == [.left, .right], "the snapshot follows the side that moves")
        #expect(completed.allSatisfy { ($0.timeToPeak ?? 0) > 0.3 && ($0.timeToPeak ?? 9) < $0.duration })
    }

    @Test func aSessionNeedsNoSideAndBothLegsMustBeSeen() throws {
        let engine = try MotionEngine(configuration: SessionConfiguration(exercise: Self.march))
        #expect(engine.snapshot().missingJoints.isSuperset(of: [.leftKnee, .rightKnee, .leftHip, .rightHip]))
        #expect(engine.summary.perSide.isEmpty == false)
    }

    @Test func otherExercisesHaveNoPerSideTallyOrSnapshotSide() throws {
        var engine = try MotionEngine(configuration: SessionConfiguration(exercise: .squat))
        _ = try engine.process(Self.pose(at: 0, left: 5, right: 5))
        #expect(engine.summary.perSide.isEmpty)
        #expect(engine.snapshot().side == nil)
    }
}
