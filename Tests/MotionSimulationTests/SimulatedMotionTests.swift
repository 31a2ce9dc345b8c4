import MotionCore
import MotionSimulation
import Testing

/// The accelerometer of a phone on the simulated limb (`Simulation.motionSamples`), checked against what is known of
/// it: gravity alone while nothing moves, the limb that moves, and what the motion analysis makes of it.
@Suite("Simulated motion samples")
struct SimulatedMotionTests {
    static func curls(_ peaks: [Double] = [130, 120, 125]) -> Simulation {
        Simulation(exercise: .elbowFlexion, side: .right, reps: peaks.map { SimulatedRep(peak: $0) })
    }

    @Test func thePhoneIsOnTheLimbThatMoves() {
        #expect(Self.curls().phoneJoint == .rightWrist)
        #expect(Simulation(exercise: .elbowFlexion, side: .left, reps: [.init(peak: 120)]).phoneJoint == .leftWrist)
        #expect(Simulation(exercise: .kneeExtension, side: .left, reps: [.init(peak: 60)]).phoneJoint == .leftAnkle)
    }

    @Test func aStillFigureReadsGravityAlone() {
        let samples = Self.curls([]).motionSamples()
        #expect(samples.count == Int((Self.curls([]).duration * 60).rounded(.down)) + 1)
        for sample in samples {
            #expect(abs(sample.acceleration.x) < 1e-9 && abs(sample.acceleration.z) < 1e-9)
            #expect(abs(sample.acceleration.y - 9.81) < 1e-9)
        }
    }

    @Test func samplesFollowTheRateOnThePosesClock() throws {
        var simulation = Self.curls()
        simulation.startTime = 100
        let samples = simulation.motionSamples(SimulatedPhone(rate: 50))
        let first = try #require(samples.first)
        #expect(first.t == 100)
        #expect(zip(samples, samples.dropFirst()).allSatisfy { abs($1.t - $0.t - 0.02) < 1e-9 })
        #expect(try #require(samples.last).t <= 100 + simulation.duration + 1e-9)
        // Curling moves the wrist: the phone reads more than gravity during the reps.
        #expect(samples.contains { abs($0.acceleration.x) + abs($0.acceleration.z) > 0.5 })
    }

    /// Analysed as a live session's samples are: a clean curl hardly trembles, and a 6 Hz tremor of 1.5 m/s² added
    /// takes its share of the power, A²/2 beside the curl's own mean square (the two are uncorrelated); the tremor's
    /// velocity is small (A/2πf ≈ 4 cm/s), so SPARC on the speed profile hardly moves.
    @Test func theAnalysisFindsTheTremorAddedToACurl() throws {
        let simulation = Self.curls()
        func judged(_ phone: SimulatedPhone) throws -> RepMotion {
            var analyzer = MotionAnalyzer()
            for sample in simulation.motionSamples(phone) { try analyzer.append(sample) }
            // The first rep: after the lead-in, one rep duration long.
            let rep = analyzer.rep(from: simulation.leadIn, to: simulation.leadIn + simulation.repDuration)
            return try #require(rep)
        }
        let clean = try judged(SimulatedPhone())
        let trembling = try judged(SimulatedPhone(tremorAmplitude: 1.5, tremorFrequency: 6))
        #expect(clean.tremor < 0.001, "\(clean)")
        let expected = 1.5 * 1.5 / 2 / (1.5 * 1.5 / 2 + clean.rms * clean.rms)
        #expect(abs(trembling.tremor - expected) < 0.02, "\(trembling.tremor) vs \(expected)")
        let smooth = try #require(clean.smoothness)
        #expect(smooth > -2 && smooth < -1.3, "a curl's SPARC: \(smooth)")
        #expect(abs(try #require(trembling.smoothness) - smooth) < 0.05)
        #expect(abs(clean.covered - simulation.repDuration) < 0.02)
    }
}
