import Foundation
import MotionSimulation
import Testing

@testable import MotionCore

private typealias Measurement = MotionCore.Measurement

/// A front view of a person bending sideways, the spine curved: the trunk line (mid-shoulder to mid-hip) leans
/// `lean` degrees towards `towards`, and the shoulder line tilts `curve` times as far from horizontal, as it does
/// in a real bend (about twice).
private func sideBend(
    lean: Double, towards: BodySide, curve: Double = 2, hipTilt: Double = 0, hipHalf: Double = 60
) -> Pose {
    // Image x grows to the right; a person facing the camera has their left on the image's right.
    let outward: Double = towards == .left ? 1 : -1
    let root = Point(x: 640, y: 500)
    let radians = lean * Double.pi / 180
    let neck = Point(x: root.x + outward * sin(radians) * 200, y: root.y - cos(radians) * 200)
    // The shoulder line drops towards the bend; the hip line may be tilted on its own.
    func line(_ centre: Point, _ half: Double, _ degrees: Double) -> (left: Point, right: Point) {
        let r = degrees * Double.pi / 180
        let (dx, dy) = (cos(r) * half, sin(r) * half)
        // Positive `degrees` lowers the side bent towards.
        let towardsPoint = Point(x: centre.x + outward * dx, y: centre.y + dy)
        let otherPoint = Point(x: centre.x - outward * dx, y: centre.y - dy)
        return towards == .left ? (towardsPoint, otherPoint) : (otherPoint, towardsPoint)
    }
    let shoulders = line(neck, 80, lean * curve)
    let hips = line(root, hipHalf, hipTilt)
    var points: [Joint: Point] = [.neck: neck, .root: root]
    points[.shoulder(.left)] = shoulders.left
    points[.shoulder(.right)] = shoulders.right
    points[.hip(.left)] = hips.left
    points[.hip(.right)] = hips.right
    return Pose(timestamp: 0, imageSize: ImageSize(width: 1280, height: 720), points: points)
}

@Suite("Trunk side bend on the spine-line scale")
struct TrunkSideBendTests {
    private static let measurement = Exercise.trunkLateralFlexion.measurement

    @Test(arguments: [BodySide.left, .right], [5.0, 15.0, 30.0])
    func readsTheTrunkLinesLeanNotTheShoulderLinesTilt(side: BodySide, lean: Double) throws {
        let pose = sideBend(lean: lean, towards: side)
        let towards = try #require(Self.measurement.resolve(side: side).value(in: pose))
        #expect(abs(towards - lean) < 1e-6, "towards the side measured: \(towards)")
        let away = try #require(Self.measurement.resolve(side: side.opposite).value(in: pose))
        #expect(abs(away + lean) < 1e-6, "negative for the other side: \(away)")
        // What the shoulder line against the pelvis reads for the same bend: twice the clinical value.
        let shoulderLine = try #require(
            Measurement.inclinationBeyond(.shoulderLine, reference: .hipLine).resolve(side: side).value(in: pose))
        #expect(abs(shoulderLine - 2 * lean) < 1e-6)
    }

    @Test func aHitchedHipLeavesTheLeanAsItIs() throws {
        let pose = sideBend(lean: 15, towards: .left, hipTilt: 10)
        let value = try #require(Self.measurement.resolve(side: .left).value(in: pose))
        #expect(abs(value - 15) < 1e-6)
    }

    @Test func isUnreadableWithoutAHipLineToTellTheSides() {
        let pose = sideBend(lean: 15, towards: .left, hipHalf: 0)
        #expect(Self.measurement.resolve(side: .left).value(in: pose) == nil)
    }

    /// A bend of 15° of the spine line, each side in turn, with the spine curved: 13–17° is the clinical reading of
    /// what the shoulder line against the pelvis read as 26–34°.
    @Test func countsEachSidesBendAtItsClinicalValue() throws {
        var simulation = Simulation(
            exercise: .trunkLateralFlexion, side: .left,
            reps: [
                SimulatedRep(peak: 15, side: .left), SimulatedRep(peak: 15, side: .right),
                SimulatedRep(peak: 17, side: .left), SimulatedRep(peak: 13, side: .right),
            ])
        simulation.noise = 1.5
        var engine = try MotionEngine(configuration: SessionConfiguration(exercise: .trunkLateralFlexion))
        var reps: [Rep] = []
        for pose in simulation.poses() {
            for case .repCompleted(let rep) in try engine.process(pose) { reps.append(rep) }
        }
        #expect(reps.map(\.side) == [.left, .right, .left, .right])
        for (rep, expected) in zip(reps, [15.0, 15, 17, 13]) {
            #expect(abs(rep.peak - expected) < 3, "peak \(rep.peak) for a bend of \(expected)°")
        }
    }
}
