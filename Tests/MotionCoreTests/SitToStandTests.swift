import Foundation
import Testing

@testable import MotionCore

/// Sit-to-stand judged over the whole rise (docs/clinical.md, "Sit-to-stand"): the trunk leans forward while the
/// person is still seated, before the knees move, and that is part of the rep.
@Suite("Sit-to-stand: the rise from its start")
struct SitToStandTests {
    /// One sit-to-stand at 30 poses a second, side view: seated upright for 1 s; the trunk leans to `lean`° over
    /// 0.6 s and stays there `leanFor` s with the knees still at 90°; it rises to standing over 1.2 s, the trunk
    /// coming back to upright (through `riseLean`°: a trunk folded further straightens out quickly as the knees
    /// extend); stands 1 s; sits back down over 1.2 s; sits 1 s.
    static func rise(lean: Double, leanFor: Double = 0.4, riseLean: Double? = nil) throws -> [MotionEvent] {
        var engine = try MotionEngine(configuration: configuration)
        var events: [MotionEvent] = []
        for pose in poses(lean: lean, leanFor: leanFor, riseLean: riseLean) { events += try engine.process(pose) }
        return events
    }

    static let configuration = SessionConfiguration(exercise: .sitToStand, side: .right)

    /// The poses of ``rise(lean:leanFor:riseLean:)``.
    static func poses(lean: Double, leanFor: Double = 0.4, riseLean: Double? = nil) -> [Pose] {
        let riseLean = riseLean ?? lean
        let leanEnds = 1.6 + leanFor
        let standing = leanEnds + 1.2
        let sitting = standing + 1
        let seated = sitting + 1.2
        var poses: [Pose] = []
        for frame in 0...Int((seated + 1) * 30) {
            let t = Double(frame) / 30
            func progress(_ from: Double, _ to: Double) -> Double {
                let x = min(max((t - from) / (to - from), 0), 1)
                return 0.5 - 0.5 * cos(Double.pi * x)
            }
            let (trunk, knee): (Double, Double)
            switch t {
            case ..<1: (trunk, knee) = (5, 90)
            case ..<1.6: (trunk, knee) = (5 + (lean - 5) * progress(1, 1.6), 90)
            case ..<leanEnds: (trunk, knee) = (lean, 90)
            case ..<standing:
                let down = 1 - progress(leanEnds, standing)
                (trunk, knee) = (5 + (riseLean - 5) * down + (lean - riseLean) * pow(down, 4), 90 * down)
            case ..<sitting: (trunk, knee) = (5, 0)
            case ..<seated:
                let down = progress(sitting, seated)
                (trunk, knee) = (5 + 25 * sin(Double.pi * down), 90 * down)
            default: (trunk, knee) = (5, 90)
            }
            poses.append(SquatPose.make(trunk: trunk, knee: knee, shin: 0).pose(at: t))
        }
        return poses
    }

    static func reps(_ events: [MotionEvent]) -> [Rep] {
        events.compactMap {
            switch $0 {
            case .repCompleted(let rep), .repRejected(let rep): rep
            default: nil
            }
        }
    }

    static func setupIssues(_ events: [MotionEvent]) -> SetupIssueSet {
        events.reduce(into: []) {
            if case .setupChanged(let issues) = $1 { $0.formUnion(issues) }
        }
    }

    /// Every normal rise leans the trunk 50–60° forward while still seated: that is no change of posture.
    @Test(arguments: [50.0, 55.0, 60.0])
    func aForwardLeanWhileSeatedIsNoWrongPosture(lean: Double) throws {
        let events = try Self.rise(lean: lean)
        #expect(!Self.setupIssues(events).contains(.wrongPosture), "\(events)")
        #expect(Self.reps(events).count == 1, "\(events)")
    }

    @Test(arguments: [50.0, 55.0])
    func aNormalRiseIsClean(lean: Double) throws {
        let reps = Self.reps(try Self.rise(lean: lean))
        #expect(reps.count == 1)
        #expect(reps.first?.isClean == true, "\(reps)")
    }

    /// The catalog's own example of `keepTrunkUpright`: the chest folded onto the thighs before seat-off, the rise
    /// itself then upright enough.
    @Test func aChestFoldedOntoTheThighsBeforeSeatOffCountsAgainstTheRep() throws {
        let events = try Self.rise(lean: 80, leanFor: 0.5, riseLean: 35)
        let reps = Self.reps(events)
        #expect(reps.count == 1)
        #expect(reps.first?.faults.contains(.keepTrunkUpright) == true, "\(reps)")
        #expect(events.contains(.formFault(.keepTrunkUpright)))
    }

    /// An engine saved and restored anywhere in the approach (the fold, before the knees move) carries the fold into
    /// the rep as the one that ran through does.
    @Test func theApproachSurvivesASavedState() throws {
        let poses = Self.poses(lean: 80, leanFor: 0.5, riseLean: 35)
        var whole = try MotionEngine(configuration: Self.configuration)
        for pose in poses { _ = try whole.process(pose) }
        for split in stride(from: 45, to: 75, by: 3) {
            var engine = try MotionEngine(configuration: Self.configuration)
            for pose in poses[..<split] { _ = try engine.process(pose) }
            engine = try MotionEngine(configuration: Self.configuration, restoring: engine.savedState())
            for pose in poses[split...] { _ = try engine.process(pose) }
            #expect(engine.summary.reps == whole.summary.reps, "split at pose \(split)")
        }
        #expect(whole.summary.reps.first?.faults.contains(.keepTrunkUpright) == true)
    }

    /// A fold that was straightened out well before rising (more than the approach, 1 s) belongs to no rep.
    @Test func aFoldLongBeforeTheRiseDoesNotCount() throws {
        var engine = try MotionEngine(configuration: SessionConfiguration(exercise: .sitToStand, side: .right))
        var events: [MotionEvent] = []
        for frame in 0...240 {
            let t = Double(frame) / 30
            // Seated; folded forward from 1 s to 2 s; upright again; rises from 4 s to 5.2 s, sits down by 7.4 s.
            let trunk: Double = t >= 1 && t < 2 ? 80 : 10
            let up = t < 4 ? 0 : t < 5.2 ? (t - 4) / 1.2 : t < 6.2 ? 1 : t < 7.4 ? 1 - (t - 6.2) / 1.2 : 0
            events += try engine.process(SquatPose.make(trunk: trunk, knee: 90 * (1 - up), shin: 0).pose(at: t))
        }
        let reps = Self.reps(events)
        #expect(reps.count == 1)
        #expect(reps.first?.isClean == true, "\(reps)")
    }

    /// A lying body keeps its feet about as high as its hips; a forward lean over feet on the floor is not lying.
    @Test func lyingTakesTheFeetAsHighAsTheHips() {
        let check = SetupCheck(limits: SetupLimits(), view: .sagittal)
        let leaning = SquatPose.make(trunk: 60, knee: 90, shin: 0).pose(at: 0)
        #expect(check.posture(in: leaning) == nil, "seated, leaning forward")
        var lying = leaning
        for side in BodySide.allCases {
            // Legs along the floor, level with the hips.
            let hip = lying[.hip(side)]!
            lying[.knee(side)] = Point(x: hip.x + 150, y: hip.y)
            lying[.ankle(side)] = Point(x: hip.x + 300, y: hip.y + 10)
        }
        let root = lying[.root]!
        lying[.neck] = Point(x: root.x - 190, y: root.y - 20)
        #expect(check.posture(in: lying) == .lying)
    }
}
