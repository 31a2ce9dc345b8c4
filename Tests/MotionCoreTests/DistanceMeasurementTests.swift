import Foundation
import Testing

@testable import MotionCore

@Suite("Distances in segment lengths, tilt against a segment, posture")
struct DistanceMeasurementTests {
    private static func pose(_ points: [Joint: (Double, Double)], t: Double = 0) -> Pose {
        var pose = Pose(timestamp: t)
        for (joint, (x, y)) in points { pose[joint] = Point(x: x, y: y) }
        return pose
    }

    @Test func distanceAndHeightAreInLengthsOfTheSegmentWhateverTheScale() throws {
        for scale in [0.5, 1.0, 3.0] {
            let pose = Self.pose([
                .rightKnee: (100 * scale, 300 * scale), .rightAnkle: (100 * scale, 400 * scale),
                .rightHip: (100 * scale, 200 * scale), .rightShoulder: (300 * scale, 250 * scale),
                .leftAnkle: (160 * scale, 400 * scale),
            ])
            let apart = Measurement.distance(.ankle, .ankle.opposite, per: .shank).resolve(side: .right)
            #expect(abs(try #require(apart.value(in: pose)) - 0.6) < 1e-9)
            // The hip is 50 px above the shoulder: half a shank (a bridge's hip over the shoulder line).
            let height = Measurement.height(of: .hip, above: .shoulder, per: .shank).resolve(side: .right)
            #expect(abs(try #require(height.value(in: pose)) - 0.5) < 1e-9)
            let below = Measurement.height(of: .shoulder, above: .hip, per: .shank).resolve(side: .right)
            #expect(abs(try #require(below.value(in: pose)) + 0.5) < 1e-9)
        }
    }

    @Test func riseIsMeasuredFromTheLowestPointSeen() throws {
        var rise = Measurement.rise(of: .ankle, per: .shank).resolve(side: .left)
        func standing(lift: Double) -> Pose {
            Self.pose([.leftKnee: (200, 300 - lift), .leftAnkle: (200, 400 - lift)])
        }
        var readings: [Double?] = []
        for lift in [0.0, 12, 0, -5, 0] { readings.append(rise.measure(standing(lift: lift))) }
        // A lower point becomes the floor.
        let expected: [Double] = [0, 0.12, 0, 0, 0.05]
        #expect(zip(readings, expected).allSatisfy { abs(($0 ?? .nan) - $1) < 1e-9 }, "\(readings)")
        // Unseen: no value, and the floor stays.
        let unseen = rise.measure(Self.pose([.leftKnee: (200, 300)]))
        #expect(unseen == nil)
        let after = rise.measure(standing(lift: 0))
        #expect(after.map { abs($0 - 0.05) < 1e-9 } == true)
        rise.reset()
        #expect(rise.value(in: standing(lift: 3)) == nil, "no floor yet")
    }

    @Test func degenerateSegmentsReadNothing() {
        let pose = Self.pose([.rightKnee: (100, 300), .rightAnkle: (100, 300), .rightHip: (100, 200)])
        #expect(Measurement.distance(.hip, .knee, per: .shank).resolve(side: .right).value(in: pose) == nil)
        #expect(Measurement.height(of: .hip, above: .knee, per: .shank).resolve(side: .right).value(in: pose) == nil)
    }

    @Test func shouldersAreLevelAgainstTheTrunkHoweverItLeans() throws {
        let level = Measurement.tiltAgainst(.shoulderLine, reference: .trunk).resolve(side: .right)
        for lean in [-25.0, 0, 10, 30] {
            let radians = lean * .pi / 180
            let (s, c) = (sin(radians), cos(radians))
            // Root at (400, 500); the trunk leans by `lean`; the shoulders square to it.
            let neck = (400 + 200 * s, 500 - 200 * c)
            var points: [Joint: (Double, Double)] = [.root: (400, 500), .neck: neck]
            points[.rightShoulder] = (neck.0 - 60 * c, neck.1 - 60 * s)
            points[.leftShoulder] = (neck.0 + 60 * c, neck.1 + 60 * s)
            #expect(abs(try #require(level.value(in: Self.pose(points)))) < 1e-9, "lean \(lean)")
            // A shrug raises the right shoulder by 20° about the neck.
            let shrug = (lean - 20) * .pi / 180
            points[.rightShoulder] = (neck.0 - 60 * cos(shrug), neck.1 - 60 * sin(shrug))
            points[.leftShoulder] = (neck.0 + 60 * cos(shrug), neck.1 + 60 * sin(shrug))
            #expect(abs(try #require(level.value(in: Self.pose(points))) - 20) < 1e-9, "lean \(lean)")
        }
    }

    @Test func postureIsToldFromTheTrunkAndTheThigh() {
        let check = SetupCheck(limits: SetupLimits(), view: .sagittal)
        let upright: [Joint: (Double, Double)] = [.neck: (400, 200), .root: (400, 400)]
        var standing = upright
        standing[.rightHip] = (400, 400)
        standing[.rightKnee] = (405, 520)
        standing[.rightAnkle] = (400, 640)
        #expect(check.posture(in: Self.pose(standing)) == .standing)
        var seated = upright
        seated[.rightHip] = (400, 400)
        seated[.rightKnee] = (520, 410)
        seated[.rightAnkle] = (520, 530)
        #expect(check.posture(in: Self.pose(seated)) == .seated)
        // Only the other leg seen: it is used.
        var otherLeg = upright
        otherLeg[.leftHip] = (400, 400)
        otherLeg[.leftKnee] = (520, 410)
        otherLeg[.leftAnkle] = (520, 530)
        #expect(check.posture(in: Self.pose(otherLeg)) == .seated)
        let lying: [Joint: (Double, Double)] = [.neck: (200, 500), .root: (400, 510)]
        #expect(check.posture(in: Self.pose(lying)) == .lying)
        // Half-way (a deep squat's thigh at 45°) or legs unseen: undecided.
        var between = upright
        between[.rightHip] = (400, 400)
        between[.rightKnee] = (460, 460)
        between[.rightAnkle] = (460, 580)
        #expect(check.posture(in: Self.pose(between)) == nil)
        #expect(check.posture(in: Self.pose(upright)) == nil)
    }
}
