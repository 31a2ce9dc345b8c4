import Foundation
import Testing

@testable import MotionCore

private typealias Measurement = MotionCore.Measurement

/// A side view of a person squatting, built from segment angles (degrees from vertical, each leaning forward):
/// the shin from the ankle, the thigh back from the knee, the trunk from the hips. Knee flexion is thigh + shin.
struct SquatPose {
    var trunk: Double
    var thigh: Double
    var shin: Double
    /// Whether the person faces the image's +x direction.
    var facesRight = true

    /// A pose at `knee` flexion with the shin at `shin` and the trunk at `trunk` from vertical.
    static func make(trunk: Double, knee: Double, shin: Double) -> SquatPose {
        SquatPose(trunk: trunk, thigh: knee - shin, shin: shin)
    }

    func pose(at t: Double) -> Pose {
        func offset(_ degrees: Double, _ length: Double) -> (Double, Double) {
            let radians = degrees * Double.pi / 180
            return ((facesRight ? 1 : -1) * sin(radians) * length, -cos(radians) * length)
        }
        let ankle = Point(x: 640, y: 650)
        let (kx, ky) = offset(shin, 150)
        let knee = Point(x: ankle.x + kx, y: ankle.y + ky)
        let (hx, hy) = offset(thigh, 150)
        let hip = Point(x: knee.x - hx, y: knee.y + hy)
        let (nx, ny) = offset(trunk, 190)
        let neck = Point(x: hip.x + nx, y: hip.y + ny)
        var points: [Joint: Point] = [.neck: neck, .root: hip]
        for side in BodySide.allCases {
            points[.ankle(side)] = ankle
            points[.knee(side)] = knee
            points[.hip(side)] = hip
            points[.shoulder(side)] = neck
        }
        return Pose(timestamp: t, imageSize: ImageSize(width: 1280, height: 720), points: points)
    }

    /// The pose at `fraction` of the way from standing (0) to this pose (1).
    func scaled(_ fraction: Double) -> SquatPose {
        SquatPose(trunk: trunk * fraction, thigh: thigh * fraction, shin: shin * fraction, facesRight: facesRight)
    }
}

@Suite("The squat family's trunk rule: trunk judged against the shin")
struct TrunkAlongShinTests {
    private static let rule = Measurement.inclinationBeyond(.trunk, reference: .shank)

    @Test(arguments: [true, false])
    func measuresHowFarTheTrunkLeansPastTheShin(facesRight: Bool) throws {
        var pose = SquatPose.make(trunk: 65, knee: 85, shin: 20)
        pose.facesRight = facesRight
        let value = try #require(Self.rule.resolve(side: .right).value(in: pose.pose(at: 0)))
        #expect(abs(value - 45) < 1e-6, "\(value)")
        var upright = SquatPose.make(trunk: 15, knee: 110, shin: 40)
        upright.facesRight = facesRight
        let behind = try #require(Self.rule.resolve(side: .left).value(in: upright.pose(at: 0)))
        #expect(abs(behind + 25) < 1e-6, "a trunk nearer vertical than the shin reads negative: \(behind)")
    }

    @Test func isNilWithoutTheShin() {
        var pose = SquatPose.make(trunk: 40, knee: 90, shin: 30).pose(at: 0)
        pose[.rightAnkle] = nil
        #expect(Self.rule.resolve(side: .right).value(in: pose) == nil)
        #expect(Self.rule.resolve(side: .left).value(in: pose) != nil)
    }

    @Test func theSquatJudgesTheTrunkAgainstTheShin() {
        #expect(Exercise.squat.rules == [Exercise.trunkAlongShin])
        #expect(Exercise.trunkAlongShin.fault == .keepTrunkUpright, "the wire's fault name is unchanged")
        #expect(Exercise.trunkAlongShin.limit == 55)
        #expect(!Exercise.trunkAlongShin.relativeToStart)
    }

    /// One squat, 2 s down and up, between 1 s of standing before and after, through a fresh engine.
    private static func squat(to bottom: SquatPose) throws -> [MotionEvent] {
        var engine = try MotionEngine(configuration: SessionConfiguration(exercise: .squat, side: .right))
        var events: [MotionEvent] = []
        for frame in 0...120 {
            let t = Double(frame) / 30
            let phase = min(max((t - 1) / 2, 0), 1)
            let depth = 0.5 - 0.5 * cos(2 * Double.pi * phase)
            events += try engine.process(bottom.scaled(depth).pose(at: t))
        }
        return events
    }

    private static func countedRep(_ events: [MotionEvent]) -> Rep? {
        for event in events {
            switch event {
            case .repCompleted(let rep), .repRejected(let rep): return rep
            default: continue
            }
        }
        return nil
    }

    /// Healthy squats: the trunk leans 45–65° from vertical, up to 50° past the shin at the bottom of a
    /// hip-dominant squat (the shin angle that keeps the body balanced over the feet at that depth).
    static let normalSquats: [(trunk: Double, knee: Double, shin: Double)] = [
        (65, 80, 15), (65, 85, 20), (65, 95, 22), (65, 110, 25), (50, 90, 30), (45, 120, 35), (15, 110, 40),
    ]

    @Test(arguments: normalSquats)
    func acceptsANormalSquatThatLeansForward(trunk: Double, knee: Double, shin: Double) throws {
        let events = try Self.squat(to: .make(trunk: trunk, knee: knee, shin: shin))
        let rep = try #require(Self.countedRep(events))
        #expect(rep.isClean, "trunk \(trunk)° at \(knee)° of knee flexion: \(rep.faults)")
        #expect(abs(rep.peak - knee) < 3)
        #expect(!events.contains(.formFault(.keepTrunkUpright)))
    }

    /// Collapses: the chest falls onto the thighs while the shins stay steep, 60° or more past the shin line.
    static let collapses: [(trunk: Double, knee: Double, shin: Double)] = [
        (85, 70, 15), (80, 90, 20), (88, 100, 25), (75, 60, 5),
    ]

    @Test(arguments: collapses)
    func rejectsAChestCollapsingPastTheShinLine(trunk: Double, knee: Double, shin: Double) throws {
        let events = try Self.squat(to: .make(trunk: trunk, knee: knee, shin: shin))
        let rep = try #require(Self.countedRep(events))
        #expect(rep.faults == [.keepTrunkUpright], "trunk \(trunk)° over a \(shin)° shin")
        #expect(events.contains(.repRejected(rep)))
        #expect(events.filter { $0 == .formFault(.keepTrunkUpright) }.count == 1)
    }

    @Test func theOldAbsoluteLimitWouldHaveRejectedTheNormalSquat() throws {
        // The rule this replaces: trunk more than 50° from vertical. A 65° lean over a 20° shin broke it.
        let old = Measurement.inclination(.trunk).resolve(side: .right)
        let bottom = SquatPose.make(trunk: 65, knee: 85, shin: 20).pose(at: 0)
        #expect(try #require(old.value(in: bottom)) > 50)
        #expect(try #require(Self.rule.resolve(side: .right).value(in: bottom)) < Exercise.trunkAlongShin.limit)
    }
}
