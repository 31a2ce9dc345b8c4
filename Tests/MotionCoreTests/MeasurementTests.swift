import Foundation
import Testing

@testable import MotionCore

private typealias Measurement = MotionCore.Measurement

@Suite("Measurements")
struct MeasurementTests {
    private static let tolerance = 1e-9

    private static let elbowFlexion = Measurement.flexion(proximal: .shoulder, joint: .elbow, distal: .wrist)

    private static func arm(wrist: Point, side: BodySide = .right) -> Pose {
        Pose(
            timestamp: 0,
            points: [.shoulder(side): Point(x: 100, y: 100), .elbow(side): Point(x: 100, y: 200), .wrist(side): wrist])
    }

    static let flexionCases: [(Point, Double)] = [
        (Point(x: 100, y: 300), 0.0),  // straight
        (Point(x: 200, y: 200), 90),  // right angle, forearm forward
        (Point(x: 0, y: 200), 90),  // right angle, forearm backward
        (Point(x: 200, y: 100), 135),
        (Point(x: 200, y: 300), 45),
        (Point(x: 100, y: 150), 180),  // folded back onto the upper arm
    ]

    @Test(arguments: flexionCases)
    func flexionOfAHandBuiltArm(wrist: Point, expected: Double) throws {
        for side in BodySide.allCases {
            let value = try #require(
                Self.elbowFlexion.resolve(side: side).value(in: Self.arm(wrist: wrist, side: side)))
            #expect(abs(value - expected) < Self.tolerance, "\(side): \(value)")
        }
    }

    @Test func flexionMeasuresTheWorkingSideOnly() {
        let pose = Self.arm(wrist: Point(x: 200, y: 200), side: .left)
        #expect(Self.elbowFlexion.resolve(side: .right).value(in: pose) == nil)
        #expect(Self.elbowFlexion.resolve(side: .left).value(in: pose) != nil)
    }

    private static func trunkAndArm(elbow: Point) -> Pose {
        Pose(
            timestamp: 0,
            points: [
                .neck: Point(x: 500, y: 100), .root: Point(x: 500, y: 400),
                .rightShoulder: Point(x: 450, y: 100), .rightElbow: elbow,
            ])
    }

    static let angleBetweenCases: [(Point, Double)] = [
        (Point(x: 450, y: 250), 0.0),  // arm hanging along the trunk
        (Point(x: 300, y: 100), 90),  // horizontal, out to the side
        (Point(x: 600, y: 100), 90),  // horizontal, across
        (Point(x: 450, y: -50), 180),  // straight up
        (Point(x: 350, y: 200), 45),
    ]

    @Test(arguments: angleBetweenCases)
    func angleBetweenTrunkAndUpperArm(elbow: Point, expected: Double) throws {
        let measurement = Measurement.angleBetween(.trunk, .upperArm).resolve(side: .right)
        let value = try #require(measurement.value(in: Self.trunkAndArm(elbow: elbow)))
        #expect(abs(value - expected) < Self.tolerance, "\(value)")
    }

    static let inclinationCases: [(Point, Double)] = [
        (Point(x: 0, y: 10), 0.0),  // straight down
        (Point(x: 10, y: 0), 90),  // horizontal, forward
        (Point(x: -10, y: 0), 90),  // horizontal, backward
        (Point(x: 0, y: -10), 180),  // straight up
        (Point(x: 10, y: 10), 45),
        (Point(x: -10, y: -10), 135),
    ]

    @Test(arguments: inclinationCases)
    func inclinationFromStraightDown(ankle: Point, expected: Double) throws {
        let pose = Pose(timestamp: 0, points: [.leftKnee: Point(x: 0, y: 0), .leftAnkle: ankle])
        let value = try #require(Measurement.inclination(.shank).resolve(side: .left).value(in: pose))
        #expect(abs(value - expected) < Self.tolerance, "\(value)")
    }

    static let tiltCases: [(Point, Double)] = [
        (Point(x: 10, y: 0), 0.0),
        (Point(x: -10, y: 0), 0),
        (Point(x: 10, y: 10), 45),
        (Point(x: -10, y: 10), 45),
        (Point(x: 10, y: -10), 45),
        (Point(x: -10, y: -10), 45),
        (Point(x: 0, y: 10), 90),
        (Point(x: 0, y: -10), 90),
        (Point(x: 10, y: -3), 16.699_244_233_993_621),
        (Point(x: -10, y: 3), 16.699_244_233_993_621),
    ]

    @Test(arguments: tiltCases)
    func tiltIsFromHorizontalWhicheverWayTheLinePoints(otherShoulder: Point, expected: Double) throws {
        let pose = Pose(timestamp: 0, points: [.rightShoulder: Point(x: 0, y: 0), .leftShoulder: otherShoulder])
        let value = try #require(Measurement.tilt(.shoulderLine).resolve(side: .right).value(in: pose))
        #expect(value >= 0 && value <= 90)
        #expect(abs(value - expected) < 1e-6, "\(value)")
    }

    @Test func tiltIsTheSameForBothWorkingSides() throws {
        let pose = Pose(timestamp: 0, points: [.rightShoulder: Point(x: 0, y: 0), .leftShoulder: Point(x: 30, y: 10)])
        let right = try #require(Measurement.tilt(.shoulderLine).resolve(side: .right).value(in: pose))
        let left = try #require(Measurement.tilt(.shoulderLine).resolve(side: .left).value(in: pose))
        #expect(abs(right - left) < Self.tolerance)
    }

    static let everyKind: [MotionCore.Measurement] = [
        elbowFlexion, .angleBetween(.trunk, .upperArm), .inclination(.shank), .tilt(.hipLine),
    ]

    @Test(arguments: everyKind)
    func missingJointGivesNil(_ measurement: MotionCore.Measurement) {
        let resolved = measurement.resolve(side: .right)
        var pose = Pose(timestamp: 0)
        for (offset, joint) in resolved.joints.enumerated() {
            pose[joint] = Point(x: Double(offset * 37 % 11) * 10, y: Double(offset) * 50)
        }
        #expect(resolved.value(in: pose) != nil)
        for joint in resolved.joints {
            var partial = pose
            partial[joint] = nil
            #expect(resolved.value(in: partial) == nil, "without \(joint)")
        }
        #expect(resolved.value(in: Pose(timestamp: 0)) == nil)
    }

    @Test func zeroLengthSegmentGivesNil() {
        let same = Point(x: 50, y: 50)
        let flexion = Self.elbowFlexion.resolve(side: .right)
        #expect(flexion.value(in: Self.arm(wrist: Point(x: 100, y: 200))) == nil)  // wrist on the elbow
        var shoulderOnElbow = Self.arm(wrist: Point(x: 100, y: 300))
        shoulderOnElbow[.rightShoulder] = Point(x: 100, y: 200)
        #expect(flexion.value(in: shoulderOnElbow) == nil)

        let shank = Pose(timestamp: 0, points: [.rightKnee: same, .rightAnkle: same])
        #expect(Measurement.inclination(.shank).resolve(side: .right).value(in: shank) == nil)

        let hips = Pose(timestamp: 0, points: [.rightHip: same, .leftHip: same])
        #expect(Measurement.tilt(.hipLine).resolve(side: .right).value(in: hips) == nil)

        let between = Measurement.angleBetween(.trunk, .upperArm).resolve(side: .right)
        #expect(between.value(in: Self.trunkAndArm(elbow: Point(x: 450, y: 100))) == nil)  // elbow on the shoulder
        var noTrunk = Self.trunkAndArm(elbow: Point(x: 300, y: 100))
        noTrunk[.root] = Point(x: 500, y: 100)
        #expect(between.value(in: noTrunk) == nil)
    }

    @Test func resolveMapsOppositeShoulderForBothSides() throws {
        #expect(JointReference.shoulder.opposite.resolve(side: .right) == .leftShoulder)
        #expect(JointReference.shoulder.opposite.resolve(side: .left) == .rightShoulder)
        #expect(JointReference.shoulder.resolve(side: .right) == .rightShoulder)
        #expect(JointReference.neck.opposite.resolve(side: .left) == .neck)

        #expect(Measurement.tilt(.shoulderLine).joints(side: .right) == [.leftShoulder, .rightShoulder])
        // The direction tells the sides apart: working shoulder → other shoulder.
        let pose = Pose(timestamp: 0, points: [.rightShoulder: Point(x: 0, y: 0), .leftShoulder: Point(x: 0, y: 10)])
        let line = Measurement.inclination(.shoulderLine)
        #expect(try #require(line.resolve(side: .right).value(in: pose)) == 0)
        #expect(try #require(line.resolve(side: .left).value(in: pose)) == 180)
    }

    @Test(arguments: BodySide.allCases)
    func resolvedJointsMatchTheSide(_ side: BodySide) {
        #expect(Self.elbowFlexion.joints(side: side) == [.shoulder(side), .elbow(side), .wrist(side)])
        #expect(
            Measurement.angleBetween(.trunk, .thigh).joints(side: side) == [.neck, .root, .hip(side), .knee(side)])
        #expect(Measurement.tilt(.hipLine).joints(side: side) == [.leftHip, .rightHip])
        #expect(Measurement.inclination(.shank).joints(side: side) == [.knee(side), .ankle(side)])
    }

    @Test func jointReferencesReadAndWriteTheirStringForm() throws {
        let references: [JointReference] = [.elbow, .shoulder.opposite, .neck, .root, .nose, .hip.opposite]
        #expect(
            references.map(\.description) == ["elbow", "opposite.shoulder", "neck", "root", "nose", "opposite.hip"])
        #expect(references.map { JointReference($0.description) } == references)
    }

    @Test(arguments: JointReference.Part.allCases)
    func everyPartRoundTrips(_ part: JointReference.Part) throws {
        for reference in [JointReference(part), JointReference(part, isOpposite: true)] {
            #expect(JointReference(reference.description) == reference)
        }
    }

    @Test func oppositeIsIgnoredForCentralPartsAndRefusedInTheirNames() throws {
        #expect(JointReference(.neck, isOpposite: true) == .neck)
        #expect(JointReference("opposite.neck") == nil)
    }

    @Test(arguments: ["opposite.wing", "wing", "Elbow", "opposite.", "", "opposite.opposite.elbow", "left.elbow"])
    func jointReferenceRejectsUnknownNames(_ name: String) throws {
        #expect(JointReference(name) == nil)
    }
}
