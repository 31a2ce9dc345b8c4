import MotionCore
import MotionSimulation
import Testing

@Suite("Simulation")
struct SimulationTests {
    private static func elbow(seed: UInt64 = 1) -> Simulation {
        var simulation = Simulation(
            exercise: .elbowFlexion, side: .right, reps: [SimulatedRep(peak: 120), SimulatedRep(peak: 100)])
        simulation.noise = 2
        simulation.dropoutRate = 0.05
        simulation.seed = seed
        return simulation
    }

    @Test func theSameSeedGivesIdenticalPoses() {
        let first = Self.elbow(seed: 9).poses()
        let second = Self.elbow(seed: 9).poses()
        #expect(first == second)
        #expect(Self.elbow(seed: 9).poses() == first)
    }

    @Test func aDifferentSeedGivesDifferentNoise() {
        let first = Self.elbow(seed: 1).poses()
        let second = Self.elbow(seed: 2).poses()
        #expect(first.count == second.count)
        #expect(first != second)
        let differing = zip(first, second).filter { $0 != $1 }.count
        #expect(differing > first.count / 2, "only \(differing) of \(first.count) poses differ")
    }

    @Test func noiseFreePosesDoNotDependOnTheSeed() {
        func noiseFree(seed: UInt64) -> [Pose] {
            var simulation = Self.elbow(seed: seed)
            simulation.noise = 0
            simulation.dropoutRate = 0
            simulation.includesConfidence = false
            return simulation.poses()
        }
        #expect(noiseFree(seed: 1) == noiseFree(seed: 2))
    }

    @Test func noiseHasTheRequestedSpread() throws {
        var clean = Self.elbow()
        clean.noise = 0
        clean.dropoutRate = 0
        var noisy = clean
        noisy.noise = 3
        var squares = 0.0
        var samples = 0
        for (a, b) in zip(clean.poses(), noisy.poses()) {
            for joint in Joint.allCases {
                let p = try #require(a[joint])
                let q = try #require(b[joint])
                squares += (p.x - q.x) * (p.x - q.x) + (p.y - q.y) * (p.y - q.y)
                samples += 2
            }
        }
        let deviation = (squares / Double(samples)).squareRoot()
        #expect(abs(deviation - 3) < 0.3, "\(deviation)")
    }

    @Test func valueTracesRestThenPeakThenRest() {
        var simulation = Simulation(
            exercise: .elbowFlexion, side: .right, reps: [SimulatedRep(peak: 120), SimulatedRep(peak: 90)])
        simulation.startTime = 10
        let rest = Exercise.elbowFlexion.thresholds.rest - 12
        let lead = simulation.startTime + simulation.leadIn
        let rep = simulation.repDuration

        #expect(simulation.value(at: simulation.startTime).value == rest)
        #expect(simulation.value(at: simulation.startTime).rep == nil)
        #expect(simulation.value(at: lead).value == rest)
        #expect(simulation.value(at: lead).rep == 0)

        let top = simulation.value(at: lead + rep / 2)
        #expect(abs(top.value - 120) < 1e-9)
        #expect(top.rep == 0)
        #expect(abs(top.intensity - 1) < 1e-9)

        // Rising in the first half of the rep, falling in the second.
        let times = stride(from: lead, through: lead + rep / 2, by: 0.05).map { $0 }
        let rising = times.map { simulation.value(at: $0).value }
        #expect(zip(rising, rising.dropFirst()).allSatisfy { $0 <= $1 })
        let falling = times.map { simulation.value(at: $0 + rep / 2).value }
        #expect(zip(falling, falling.dropFirst()).allSatisfy { $0 >= $1 })

        let between = simulation.value(at: lead + rep + simulation.restDuration / 2)
        #expect(between.value == rest)
        #expect(between.rep == nil)
        #expect(between.intensity == 0)

        let second = simulation.value(at: lead + rep + simulation.restDuration + rep / 2)
        #expect(abs(second.value - 90) < 1e-9)
        #expect(second.rep == 1)

        let end = simulation.startTime + simulation.duration
        #expect(simulation.value(at: end).value == rest)
        #expect(simulation.value(at: end).rep == nil)
        #expect(simulation.value(at: end + 100).value == rest)
    }

    @Test func aHoldRampsPlateausAndReturns() {
        let exercise = Exercise.shoulderAbductionHold
        let simulation = Simulation(exercise: exercise, side: .left, reps: [SimulatedRep(peak: 100, holdFor: 6)])
        let lead = simulation.leadIn
        #expect(abs(simulation.duration - (lead + 1 + 6 + 1 + simulation.tail)) < 1e-9)
        for t in stride(from: lead + 1, through: lead + 7, by: 0.5) {
            #expect(simulation.value(at: t).value == 100, "at \(t)")
        }
        #expect(simulation.value(at: lead + 0.5).value < 100)
        #expect(simulation.value(at: lead + 0.5).value > exercise.thresholds.rest - 12)
        #expect(simulation.value(at: lead + 8.5).value == exercise.thresholds.rest - 12)
    }

    @Test func restValueCanBeSet() {
        var simulation = Simulation(exercise: .kneeExtension, side: .left, reps: [SimulatedRep(peak: 80)])
        #expect(simulation.value(at: 0).value == 8)  // rest 20 − 12
        simulation.restValue = 3
        #expect(simulation.value(at: 0).value == 3)
        let ankle = Simulation(exercise: .ankleDorsiflexion, side: .left, reps: [])
        #expect(ankle.value(at: 0).value == 0, "never below 0")
    }

    @Test(arguments: Exercise.catalog.filter { $0.view == .frontal } + [.elbowFlexion, .squat])
    func mirroringSwapsLabelsAndFlipsX(_ exercise: Exercise) throws {
        var plain = Simulation(exercise: exercise, side: .right, reps: [SimulatedRep(peak: exercise.target * 0.8)])
        plain.noise = 0
        var mirrored = plain
        mirrored.mirrored = true
        let width = plain.imageSize.width
        let plainPoses = plain.poses()
        let mirroredPoses = mirrored.poses()
        try #require(plainPoses.count == mirroredPoses.count)
        for (p, m) in zip(plainPoses, mirroredPoses) {
            #expect(m.timestamp == p.timestamp)
            #expect(m.seenJoints.count == p.seenJoints.count)
            for joint in Joint.allCases {
                let original = try #require(p[joint])
                let flipped = try #require(m[joint.mirrored])
                #expect(abs(flipped.x - (width - original.x)) < 1e-9)
                #expect(flipped.y == original.y)
                #expect(m.confidence(of: joint.mirrored) == p.confidence(of: joint))
            }
        }
    }

    @Test func mirroredPosesSwappedBackMeasureLikeThePlainOnes() throws {
        var plain = Simulation(exercise: .elbowFlexion, side: .right, reps: [SimulatedRep(peak: 120)])
        plain.noise = 0
        var mirrored = plain
        mirrored.mirrored = true
        let measurement = plain.exercise.measurement.resolve(side: .right)
        for (p, m) in zip(plain.poses(), mirrored.poses()) {
            let a = try #require(measurement.value(in: p))
            let b = try #require(measurement.value(in: m.swappingSides()))
            #expect(abs(a - b) < 1e-9)
        }
    }

    @Test func outOfFrameGivesEmptyPoses() {
        var simulation = Self.elbow()
        simulation.outOfFrame = [2...2.5, 4...4.2]
        let poses = simulation.poses()
        for pose in poses {
            let outside = simulation.outOfFrame.contains { $0.contains(pose.timestamp) }
            #expect(pose.isEmpty == outside, "at \(pose.timestamp)")
            #expect(pose.imageSize == simulation.imageSize)
        }
        #expect(poses.filter(\.isEmpty).count == 16 + 7)
    }

    @Test func hiddenRemovesExactlyThoseJoints() {
        var simulation = Self.elbow()
        simulation.dropoutRate = 0
        let wrist: JointSet = [.rightWrist]
        let leftArm: JointSet = [.leftShoulder, .leftElbow, .leftWrist]
        simulation.hidden = [(range: 1...2, joints: wrist), (range: 1.5...3, joints: leftArm)]
        let all = JointSet(Joint.allCases)
        for pose in simulation.poses() {
            var expected = all
            if (1...2).contains(pose.timestamp) { expected.subtract(wrist) }
            if (1.5...3).contains(pose.timestamp) { expected.subtract(leftArm) }
            #expect(pose.seenJoints == expected, "at \(pose.timestamp)")
        }
    }

    @Test func withoutDropoutsEveryJointIsSeenWithConfidence() {
        var simulation = Self.elbow()
        simulation.dropoutRate = 0
        for pose in simulation.poses() {
            #expect(pose.seenJoints == JointSet(Joint.allCases))
            let confidence = pose.confidence(of: JointSet(Joint.allCases))
            #expect(confidence.map { (0.85...0.95).contains($0) } == true)
        }
        simulation.includesConfidence = false
        #expect(simulation.poses().allSatisfy { $0.confidence(of: JointSet(Joint.allCases)) == nil })
    }

    @Test func dropoutsRemoveAboutTheRequestedShare() {
        var simulation = Self.elbow()
        simulation.dropoutRate = 0.2
        let poses = simulation.poses()
        let seen = poses.reduce(0) { $0 + $1.seenJoints.count }
        let share = 1 - Double(seen) / Double(poses.count * Joint.count)
        #expect(abs(share - 0.2) < 0.03, "\(share)")
    }

    @Test(arguments: [(30.0, 0.0), (25, 10), (60, 3.3), (29.97, 100)])
    func poseCountAndTimestamps(frameRate: Double, startTime: Double) throws {
        var simulation = Self.elbow()
        simulation.frameRate = frameRate
        simulation.startTime = startTime
        let poses = simulation.poses()
        #expect(poses.count == Int((simulation.duration * frameRate).rounded(.down)) + 1)
        #expect(poses.first?.timestamp == startTime)
        #expect(zip(poses, poses.dropFirst()).allSatisfy { $0.timestamp < $1.timestamp })
        let last = try #require(poses.last?.timestamp)
        #expect(last <= startTime + simulation.duration + 1e-9)
        #expect(last > startTime + simulation.duration - 1 / frameRate)
    }

    @Test func durationAddsLeadInRepsRestsAndTail() {
        var simulation = Self.elbow()
        let expected: Double = 1.5 + 2 + 1 + 2 + 1  // lead-in, rep, rest, rep, tail
        #expect(simulation.duration == expected)
        simulation.reps = []
        #expect(simulation.duration == 2.5)
    }

    @Test func providerYieldsThePosesAndFinishes() async {
        let simulation = Self.elbow()
        var received: [Pose] = []
        for await pose in simulation.provider() { received.append(pose) }
        #expect(received == simulation.poses())
    }
}
