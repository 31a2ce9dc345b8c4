import MotionCore
import MotionSimulation
import Testing

/// The squat family's other members move like people: sit-to-stand rises from a chair with the trunk leaning in,
/// the mini squat folds the hips like a squat, the lunge lowers between feet that stay put; heels stay down.
@Suite("Simulated closed-chain coupling")
struct ClosedChainCouplingTests {
    private static let knee = Measurement.flexion(proximal: .hip, joint: .knee, distal: .ankle).resolve(side: .right)
    private static let hip = Measurement.angleBetween(.trunk, .thigh).resolve(side: .right)
    private static let trunk = Measurement.inclination(.trunk).resolve(side: .right)
    private static let shin = Measurement.inclination(.shank).resolve(side: .right)

    private static func poses(_ exercise: Exercise, peak: Double? = nil, arms: ArmPosition = .atSides) -> [Pose] {
        var simulation = Simulation(
            exercise: exercise, side: .right, reps: [SimulatedRep(peak: peak ?? Scenario.typicalPeak(for: exercise))])
        simulation.arms = arms
        simulation.includesConfidence = false
        return simulation.poses()
    }

    private static func value(_ measurement: ResolvedMeasurement, _ pose: Pose) throws -> Double {
        try #require(measurement.value(in: pose))
    }

    static func same(_ a: Point?, _ b: Point?) -> Bool {
        guard let a, let b else { return false }
        return a.distance(to: b) < 1e-6
    }

    @Test(arguments: [ArmPosition.atSides, .crossed])
    func sitToStandRisesFromAChairLeaningIn(arms: ArmPosition) throws {
        let poses = Self.poses(.sitToStand, arms: arms)
        let seated = try #require(poses.first)
        // Seated: knees near 90°, the thighs within 20° of horizontal, the trunk upright.
        #expect(abs(try Self.value(Self.knee, seated) - 92) < 0.5)
        let hipPoint = try #require(seated[.rightHip])
        let kneePoint = try #require(seated[.rightKnee])
        let thighDrop = (kneePoint.y - hipPoint.y) / hipPoint.distance(to: kneePoint)
        #expect(thighDrop > 0 && thighDrop < 0.35, "thigh \(thighDrop)")
        #expect(try Self.value(Self.trunk, seated) < 12)
        // Rising: the trunk leans in furthest part way up (30–50°), and is upright again standing.
        var leans: [(knee: Double, trunk: Double)] = []
        for pose in poses { leans.append((try Self.value(Self.knee, pose), try Self.value(Self.trunk, pose))) }
        let deepest = try #require(leans.max { $0.trunk < $1.trunk })
        #expect(
            (30...50).contains(deepest.trunk), "greatest lean \(deepest.trunk)° at \(deepest.knee)° of knee flexion")
        #expect((40...80).contains(deepest.knee))
        let standing = try #require(leans.min { $0.knee < $1.knee })
        #expect(standing.trunk < 15)
        // The feet never move and the heels stay down.
        for pose in poses {
            #expect(Self.same(pose[.rightAnkle], seated[.rightAnkle]))
            #expect(try Self.value(Self.shin, pose) <= Simulation.maxShinInclination + 1e-9)
        }
    }

    @Test func miniSquatFoldsTheHipsLikeASquat() throws {
        let poses = Self.poses(.miniSquat, peak: 45)
        let bottom = try #require(poses.max { try! Self.value(Self.knee, $0) < (try! Self.value(Self.knee, $1)) })
        let knee = try Self.value(Self.knee, bottom)
        let ratio = try Self.value(Self.hip, bottom) / knee
        #expect(abs(knee - 45) < 0.5)
        #expect((1.3...1.7).contains(ratio), "hip / knee \(ratio)")
        #expect((20...40).contains(try Self.value(Self.trunk, bottom)))
    }

    @Test func trunkLeanGrowsWithDepth() throws {
        for exercise in [Exercise.squat, .miniSquat, .lunge] {
            var pairs: [(knee: Double, trunk: Double)] = []
            for pose in Self.poses(exercise) {
                pairs.append((try Self.value(Self.knee, pose), try Self.value(Self.trunk, pose)))
            }
            let sorted = pairs.sorted { $0.knee < $1.knee }
            let rising = zip(sorted, sorted.dropFirst()).allSatisfy { $0.trunk <= $1.trunk + 1e-6 }
            #expect(rising, "\(exercise.id)")
        }
    }

    @Test func lungeLowersBetweenFeetThatStayPut() throws {
        let poses = Self.poses(.lunge, peak: 90)
        let first = try #require(poses.first)
        let bottom = try #require(poses.max { try! Self.value(Self.knee, $0) < (try! Self.value(Self.knee, $1)) })
        #expect(abs(try Self.value(Self.knee, bottom) - 90) < 0.5)
        // Front hip about as flexed as the front knee; the front shin forward of vertical but the heel down.
        let ratio = try Self.value(Self.hip, bottom) / 90
        #expect((0.85...1.25).contains(ratio), "front hip / knee \(ratio)")
        let frontShin = try #require(bottom[.rightKnee]).x - (try #require(bottom[.rightAnkle])).x
        #expect(frontShin > 0, "the front knee ahead of the ankle")
        #expect(try Self.value(Self.shin, bottom) < 25)
        // The back knee bends towards the floor.
        let backKnee = Measurement.flexion(proximal: .hip, joint: .knee, distal: .ankle).resolve(side: .left)
        #expect(try Self.value(backKnee, bottom) > 70)
        let backKneeHeight = first.imageSize.map { $0.height * 0.92 } ?? 0
        #expect(backKneeHeight - (try #require(bottom[.leftKnee])).y < 0.12 * 720 * 0.62, "back knee near the floor")
        for pose in poses {
            #expect(Self.same(pose[.rightAnkle], first[.rightAnkle]))
            #expect(Self.same(pose[.leftAnkle], first[.leftAnkle]))
        }
    }
}

/// Bodies lying on the floor: on the back, on the front and on the side, with the parts that rest on the floor
/// staying there.
@Suite("Simulated floor exercises")
struct FloorFigureTests {
    private static let trunk = Measurement.inclination(.trunk).resolve(side: .right)
    private static func same(_ a: Point?, _ b: Point?) -> Bool { ClosedChainCouplingTests.same(a, b) }
    private static let bodyLine = Measurement.flexion(proximal: .shoulder, joint: .hip, distal: .ankle)

    private static func poses(_ exercise: Exercise, side: BodySide = .right) -> [Pose] {
        var simulation = Simulation(
            exercise: exercise, side: side, reps: [SimulatedRep(peak: Scenario.typicalPeak(for: exercise))])
        simulation.includesConfidence = false
        return simulation.poses()
    }

    @Test(arguments: [Exercise.heelSlide, .straightLegRaise, .gluteBridge, .plankHold, .sidePlankHold])
    func theTrunkLiesNearHorizontalThroughout(_ exercise: Exercise) throws {
        for pose in Self.poses(exercise) {
            // Lying, for the engine's posture check: further than 50° from vertical.
            #expect(try #require(Self.trunk.value(in: pose)) > 53, "\(exercise.id) at \(pose.timestamp)")
        }
    }

    @Test func theHeelSlidesAlongTheBed() throws {
        let poses = Self.poses(.heelSlide)
        let rest = try #require(poses.first?[.rightAnkle])
        var travel = 0.0
        for pose in poses {
            let ankle = try #require(pose[.rightAnkle])
            #expect(abs(ankle.y - rest.y) < 0.5, "the heel stays on the bed")
            travel = max(travel, abs(ankle.x - rest.x))
        }
        #expect(travel > 60, "the heel slides \(travel) px")
    }

    @Test func theBridgeTurnsAboutTheShouldersWithTheFeetDown() throws {
        let poses = Self.poses(.gluteBridge)
        let rest = try #require(poses.first)
        let top = try #require(poses.min { ($0[.rightHip]?.y ?? 0) < ($1[.rightHip]?.y ?? 0) })
        for pose in poses {
            #expect(Self.same(pose[.rightShoulder], rest[.rightShoulder]))
            #expect(Self.same(pose[.rightAnkle], rest[.rightAnkle]))
        }
        let lift = try #require(rest[.rightHip]).y - (try #require(top[.rightHip])).y
        #expect(lift > 0.08 * 720 * 0.62, "the hips rise \(lift) px")
        // At the top shoulders, hips and knees are in line.
        let line = Measurement.flexion(proximal: .shoulder, joint: .hip, distal: .knee).resolve(side: .right)
        #expect(try #require(line.value(in: top)) < 8)
    }

    @Test(arguments: BodySide.allCases)
    func planksAreStraightAtTheTopWithTheElbowsDown(side: BodySide) throws {
        for exercise in [Exercise.plankHold, .sidePlankHold] {
            let poses = Self.poses(exercise, side: side)
            let rest = try #require(poses.first)
            let line = Self.bodyLine.resolve(side: side)
            #expect(try #require(line.value(in: rest)) > 25, "\(exercise.id): the hips on the floor at rest")
            let middle = poses[poses.count / 2]
            #expect(try #require(line.value(in: middle)) < 10, "\(exercise.id): straight while holding")
            for pose in poses { #expect(Self.same(pose[.elbow(side)], rest[.elbow(side)])) }
        }
    }

    @Test(arguments: BodySide.allCases)
    func theSidePlankFacesTheCameraOnTheWorkingSide(side: BodySide) throws {
        let middle = try #require(Self.poses(.sidePlankHold, side: side).dropFirst(200).first)
        let lower = try #require(middle[.hip(side)])
        let upper = try #require(middle[.hip(side.opposite)])
        #expect(lower.y > upper.y + 40, "lying on the \(side) side")
        let shoulders = try #require(middle[.shoulder(side)]).y - (try #require(middle[.shoulder(side.opposite)])).y
        #expect(shoulders > 0.2 * 720 * 0.62, "the shoulders stacked, as seen from the front")
    }
}
