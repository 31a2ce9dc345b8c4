public import MotionCore

/// A simulated session of one exercise with the outcome the engine must reach on it: how many reps count, which are
/// rejected for which faults, and which setup issue (if any) is reported.
///
/// ``scenarios(for:)`` gives every exercise a clean session on each side, one session per possible fault, a session
/// in the wrong posture (for exercises with a start posture) and one seen from the wrong side (where the simulation
/// can show it). They are deterministic: the same scenario always gives the same poses.
///
/// ```swift
/// for scenario in Scenario.scenarios(for: .squat) {
///     var engine = try MotionEngine(configuration: scenario.configuration)
///     for pose in scenario.simulation.poses() { _ = try engine.process(pose) }
///     assert(engine.summary.repCount == scenario.expectedClean)
/// }
/// ```
public struct Scenario: Sendable, CustomStringConvertible {
    /// What the session shows, e.g. `"squat: keepTrunkUpright"`.
    public var name: String
    /// The simulated person and camera.
    public var simulation: Simulation
    /// How the session is started: the exercise and, for one-sided exercises, the side.
    public var configuration: SessionConfiguration
    /// The reps (or holds) that must count clean.
    public var expectedClean: Int
    /// The faults of each rejected rep, in order.
    public var expectedRejected: [FormFeedbackSet]
    /// The only setup issue the session may report, nil when it must report none.
    public var expectedSetupIssue: SetupIssue?
    /// Alternating exercises: the clean reps of each side; empty otherwise.
    public var expectedCleanPerSide: [BodySide: Int]

    /// Creates a scenario.
    /// - Parameters:
    ///   - name: What the session shows.
    ///   - simulation: The simulated session.
    ///   - configuration: How the session is started.
    ///   - expectedClean: Reps that must count clean.
    ///   - expectedRejected: Faults of each rejected rep, in order.
    ///   - expectedSetupIssue: The only setup issue reported, nil for none.
    ///   - expectedCleanPerSide: Alternating exercises: clean reps per side.
    public init(
        name: String, simulation: Simulation, configuration: SessionConfiguration, expectedClean: Int,
        expectedRejected: [FormFeedbackSet] = [], expectedSetupIssue: SetupIssue? = nil,
        expectedCleanPerSide: [BodySide: Int] = [:]
    ) {
        self.name = name
        self.simulation = simulation
        self.configuration = configuration
        self.expectedClean = expectedClean
        self.expectedRejected = expectedRejected
        self.expectedSetupIssue = expectedSetupIssue
        self.expectedCleanPerSide = expectedCleanPerSide
    }

    /// The name.
    public var description: String { name }
}

extension Scenario {
    /// The scenarios of `exercise`: clean on the right (detector noise 1.5 px, confidences) and on the left (the
    /// arms held otherwise), each possible fault acted in the middle rep of three (the first of two holds), the
    /// wrong posture and the wrong view (with shallower reps).
    ///
    /// - Parameter exercise: A catalog exercise (custom exercises are acted as the built-in one they resemble).
    /// - Returns: The scenarios, the clean ones first.
    public static func scenarios(for exercise: Exercise) -> [Scenario] {
        var scenarios: [Scenario] = []
        let seed = stableSeed(exercise.id)
        func make(
            _ label: String, side: BodySide = .right, reps: [SimulatedRep], expectedClean: Int,
            expectedRejected: [FormFeedbackSet] = [], setupIssue: SetupIssue? = nil,
            change: (inout Simulation) -> Void = { _ in }
        ) {
            var simulation = Simulation(exercise: exercise, side: side, reps: reps)
            simulation.noise = 1.5
            simulation.seed = seed &+ UInt64(scenarios.count)
            change(&simulation)
            var perSide: [BodySide: Int] = [:]
            if exercise.sidedness == .alternating {
                perSide = [.left: 0, .right: 0]
                if setupIssue == nil {
                    for rep in reps where rep.faults.isEmpty { perSide[rep.side ?? side, default: 0] += 1 }
                }
            }
            scenarios.append(
                Scenario(
                    name: "\(exercise.id): \(label)", simulation: simulation,
                    configuration: SessionConfiguration(
                        exercise: exercise, side: exercise.sidedness == .oneSided ? side : nil),
                    expectedClean: expectedClean, expectedRejected: expectedRejected, expectedSetupIssue: setupIssue,
                    expectedCleanPerSide: perSide))
        }
        let isHold = exercise.kind == .hold
        let peak = typicalPeak(for: exercise)
        let peaks = isHold ? [peak, peak] : [0.9, 0.8, 0.85].map { peakAt(fraction: $0, of: exercise) }
        func reps(_ peaks: [Double], faults: (Int) -> FormFeedbackSet = { _ in [] }) -> [SimulatedRep] {
            let sides: [BodySide] = exercise.sidedness == .alternating ? [.left, .right] : [.right]
            return peaks.enumerated().map { index, peak in
                SimulatedRep(peak: peak, faults: faults(index), side: sides.count > 1 ? sides[index % 2] : nil)
            }
        }
        let alternating = exercise.sidedness == .alternating
        let cleanPeaks = alternating ? peaks + [peaks[0]] : peaks
        make("clean", reps: reps(cleanPeaks), expectedClean: cleanPeaks.count)
        make("clean, left side", side: .left, reps: reps(cleanPeaks), expectedClean: cleanPeaks.count) {
            $0.noise = 0.5
            $0.arms = exercise.kind == .hold ? .onHips : .crossed
        }
        for fault in exercise.possibleFaults {
            let faulty = isHold ? 0 : 1
            make(
                "\(fault.rawValue)", reps: reps(peaks) { $0 == faulty ? [fault] : [] },
                expectedClean: peaks.count - 1, expectedRejected: [[fault]])
        }
        if let posture = exercise.posture {
            let wrong: Exercise.Posture = posture == .standing ? .seated : .standing
            make("done \(wrong.rawValue)", reps: reps(peaks), expectedClean: 0, setupIssue: .wrongPosture) {
                $0.posture = wrong
            }
        }
        if exercise.posture != .lying {
            // Shallow reps: a deep squat seen from the front also foreshortens the torso (tooFar).
            let wrong: Exercise.View = exercise.view == .sagittal ? .frontal : .sagittal
            let shallow = isHold ? peaks : [0.6, 0.6].map { peakAt(fraction: $0, of: exercise) }
            make(
                "seen \(wrong == .frontal ? "from the front" : "from the side")", reps: reps(shallow),
                expectedClean: 0, setupIssue: wrong == .frontal ? .notSideways : .notFacing
            ) { $0.view = wrong }
        }
        return scenarios
    }

    /// A value a rep of `exercise` typically reaches: 85 % of the way from `rest` to the target; for holds, the
    /// target when it lies clearly beyond the hold's entry, otherwise a little beyond the entry.
    /// - Parameter exercise: The exercise.
    public static func typicalPeak(for exercise: Exercise) -> Double {
        let t = exercise.thresholds
        guard exercise.kind == .hold else { return peakAt(fraction: 0.85, of: exercise) }
        let sign = exercise.direction.sign
        let margin = 0.1 * abs(t.enter - t.rest)
        return sign * (exercise.target - t.enter) >= margin ? exercise.target : t.enter + sign * margin
    }

    /// The value `fraction` of the way from `rest` to the target.
    static func peakAt(fraction: Double, of exercise: Exercise) -> Double {
        exercise.thresholds.rest + fraction * (exercise.target - exercise.thresholds.rest)
    }

    /// A seed from the id that is the same in every process (FNV-1a; `hashValue` is not).
    static func stableSeed(_ id: String) -> UInt64 {
        id.utf8.reduce(0xcbf2_9ce4_8422_2325) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }
}
