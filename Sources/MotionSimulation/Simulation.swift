public import MotionCore

/// One repetition (or hold) of a simulated session.
public struct SimulatedRep: Sendable, Hashable {
    /// The value reached furthest from rest (for holds, the value held), in the exercise's unit: the highest for a
    /// rising exercise, the lowest for a falling one.
    public var peak: Double
    /// Form faults acted out during this rep, strongest at its peak.
    public var faults: FormFeedbackSet
    /// Holds only: how long the value stays at the peak, seconds; nil holds a little longer than required.
    public var holdFor: Double?
    /// The side that does the rep, for alternating exercises (marching: the leg that lifts); nil for the
    /// simulation's side.
    public var side: BodySide?

    /// Creates a rep.
    /// - Parameters:
    ///   - peak: Furthest value from rest (held value for holds).
    ///   - faults: Faults acted out.
    ///   - holdFor: Hold time for holds; nil for a little longer than required.
    ///   - side: The side doing it, for alternating exercises; nil for the simulation's side.
    public init(peak: Double, faults: FormFeedbackSet = [], holdFor: Double? = nil, side: BodySide? = nil) {
        self.peak = peak
        self.faults = faults
        self.holdFor = holdFor
        self.side = side
    }
}

/// A deterministic simulated session: a stick figure of adult proportions doing an exercise of the catalog,
/// seen by a detector with noise, dropped joints, moments out of frame and optionally a mirrored camera.
///
/// Each built-in exercise has its own way of being acted out: standing, seated or lying on the floor, with the
/// couplings of the real movement (a squat's trunk balancing over the feet, a sit-to-stand rising from a chair,
/// a bridge turning about the shoulders). The figure measures the scripted value exactly, and each of the
/// exercise's faults, acted at a rep's peak, breaks that rule and no other. ``posture`` and ``view`` put the
/// person or the camera in the wrong place, for setup checks.
///
/// ```swift
/// var simulation = Simulation(exercise: .elbowFlexion, side: .right, reps: [.init(peak: 140), .init(peak: 135)])
/// simulation.noise = 1.5
/// for pose in simulation.poses() { try session.process(pose) }
/// ```
public struct Simulation: Sendable {
    /// The exercise acted out.
    public var exercise: Exercise
    /// The working side.
    public var side: BodySide
    /// The reps, in order.
    public var reps: [SimulatedRep]
    /// Seconds per rep, out and back.
    public var repDuration = 2.0
    /// Seconds at rest between reps.
    public var restDuration = 1.0
    /// Seconds at rest before the first rep.
    public var leadIn = 1.5
    /// Seconds at rest after the last rep.
    public var tail = 1.0
    /// Poses per second.
    public var frameRate = 30.0
    /// Timestamp of the first pose.
    public var startTime = 0.0
    /// The value at rest, in the exercise's unit; nil puts it well inside the exercise's start position (12°
    /// short of `rest` for angles; for distances the natural start, e.g. the ankle on the floor).
    public var restValue: Double?
    /// The posture the person takes instead of the exercise's own (standing up for a seated exercise); nil for the
    /// exercise's. The legs take the posture's shape, so leg movements are not acted in it.
    public var posture: Exercise.Posture?
    /// The camera's view instead of the exercise's own (a side exercise filmed from the front); nil for the
    /// exercise's.
    public var view: Exercise.View?
    /// The camera image.
    public var imageSize = ImageSize(width: 1280, height: 720)
    /// The person's stature in pixels; nil fits them comfortably in the image.
    public var stature: Double?
    /// Where the body's centre stands, as a fraction of the image width.
    public var horizontalPosition = 0.5
    /// Detector noise: the standard deviation of each coordinate, pixels.
    public var noise = 0.0
    /// The chance that a joint is missing from a pose.
    public var dropoutRate = 0.0
    /// Whether poses carry per-joint confidence.
    public var includesConfidence = true
    /// Time ranges in which the person is out of the frame (empty poses).
    public var outOfFrame: [ClosedRange<Double>] = []
    /// Time ranges in which some joints are not seen.
    public var hidden: [(range: ClosedRange<Double>, joints: JointSet)] = []
    /// Whether the camera mirrors the image (a selfie view): x flipped and left/right labels swapped.
    public var mirrored = false
    /// Where the person holds the arms the exercise does not move: both arms in a squat, the other arm in a
    /// one-arm exercise.
    public var arms = ArmPosition.atSides
    /// Squats: the shin's share of knee flexion, the rest being the thigh's; the trunk leans as far as balance
    /// over the feet needs. The default, 0.19, is a hip-dominant bodyweight squat (hip flexion about 1.45× knee
    /// flexion at 90° with the arms at the sides); about 0.35 keeps the trunk nearly upright. The shin never inclines past 40°.
    public var shinShare = Simulation.defaultShinShare
    /// Seed of the noise and dropouts.
    public var seed: UInt64 = 1

    /// Creates a simulation.
    /// - Parameters:
    ///   - exercise: The exercise acted out.
    ///   - side: The working side.
    ///   - reps: The reps, in order.
    public init(exercise: Exercise, side: BodySide, reps: [SimulatedRep]) {
        self.exercise = exercise
        self.side = side
        self.reps = reps
    }

    /// Seconds from the first pose to the last.
    public var duration: Double {
        leadIn + reps.indices.reduce(0) { $0 + attemptDuration($1) } + Double(max(0, reps.count - 1)) * restDuration
            + tail
    }

    /// Every pose of the session, in order.
    public func poses() -> [Pose] {
        var random = SeededRandom(seed: seed)
        let count = Int((duration * frameRate).rounded(.down)) + 1
        return (0..<count).map { pose(at: startTime + Double($0) / frameRate, random: &random) }
    }

    /// The simulated poses as a provider for ``MotionSession/start(with:)``.
    public func provider() -> AsyncStream<Pose> {
        let poses = poses()
        return AsyncStream { continuation in
            for pose in poses { continuation.yield(pose) }
            continuation.finish()
        }
    }

    /// The exercise value acted out at time `t` (before any detector noise), with the rep under way, if any.
    public func value(at t: Double) -> (value: Double, rep: Int?, intensity: Double) {
        let rest = resolvedRestValue
        var clock = t - startTime - leadIn
        guard clock >= 0 else { return (rest, nil, 0) }
        for (index, rep) in reps.enumerated() {
            let length = attemptDuration(index)
            if clock < length {
                let shape = profile(clock, length: length)
                return (rest + (rep.peak - rest) * shape, index, shape)
            }
            clock -= length + restDuration
            if clock < 0 { return (rest, nil, 0) }
        }
        return (rest, nil, 0)
    }

    /// The default ``shinShare``.
    public static let defaultShinShare = 0.2
    /// How far the shin may incline from vertical with the heel down, degrees (weight-bearing dorsiflexion,
    /// docs/clinical.md, "Ankle dorsiflexion").
    public static let maxShinInclination = 40.0

    private var resolvedRestValue: Double {
        if let restValue { return restValue }
        if let natural = Performance.of(exercise).restValue { return natural }
        let t = exercise.thresholds
        let sign = exercise.direction.sign
        let away = exercise.unit == .degrees ? 12 : 0.4 * abs(t.enter - t.rest)
        let range = exercise.measurement.range
        return min(range.upperBound, max(range.lowerBound, t.rest - sign * away))
    }

    private static let holdRamp = 1.0

    func attemptDuration(_ index: Int) -> Double {
        guard exercise.kind == .hold else { return repDuration }
        return 2 * Self.holdRamp + (reps[index].holdFor ?? exercise.thresholds.holdSeconds + 0.7)
    }

    /// 0 at rest … 1 at the peak: a raised cosine for reps, ramp–plateau–ramp for holds.
    private func profile(_ clock: Double, length: Double) -> Double {
        guard exercise.kind == .hold else { return 0.5 - 0.5 * cosine(radians: 2 * Double.pi * clock / length) }
        let ramp = Self.holdRamp
        if clock < ramp { return 0.5 - 0.5 * cosine(radians: Double.pi * clock / ramp) }
        if clock > length - ramp { return 0.5 - 0.5 * cosine(radians: Double.pi * (length - clock) / ramp) }
        return 1
    }

    /// The figure acted out at `t`: its joints in body coordinates (fractions of stature), the side moving, and the
    /// figure (for its anchor).
    func body(at t: Double) -> (joints: [Joint: Vector], moving: BodySide, figure: Figure) {
        let (value, rep, intensity) = value(at: t)
        let moving = rep.flatMap { reps[$0].side } ?? side
        let acting = Acting(
            faults: rep.map { reps[$0].faults } ?? [], intensity: intensity, side: moving, arms: arms,
            shinShare: shinShare, restValue: resolvedRestValue)
        var figure = Performance.of(exercise).pose(value, acting)
        if let posture, posture != exercise.posture {
            figure = figure.adopting(posture, view: view ?? exercise.view, side: moving)
        }
        return (figure.joints(side: moving), moving, figure)
    }

    private func pose(at t: Double, random: inout SeededRandom) -> Pose {
        let size = imageSize
        var pose = Pose(timestamp: t, imageSize: size)
        if outOfFrame.contains(where: { $0.contains(t) }) { return pose }
        let view = self.view ?? exercise.view
        let (body, _, figure) = body(at: t)
        let scale = stature ?? size.height * 0.62
        let facing: Double = side == .right ? 1 : -1
        func horizontal(_ position: Vector) -> Double {
            switch view {
            case .frontal: position.lateral
            case .sagittal: facing * position.forward + 0.12 * position.lateral
            }
        }
        let anchor = figure.anchor
        let anchorX = horizontal(body[anchor.horizontal] ?? .zero)
        let anchorUp = body[anchor.vertical]?.up ?? 0
        let imageX = size.width * horizontalPosition + (view == .frontal ? 1 : facing) * anchor.offset * scale
        let floor = size.height * 0.92
        let hiddenNow = hidden.reduce(into: JointSet()) { if $1.range.contains(t) { $0.formUnion($1.joints) } }
        for joint in Joint.allCases where !hiddenNow.contains(joint) {
            guard let position = body[joint] else { continue }
            var x = imageX + (horizontal(position) - anchorX) * scale + random.gaussian(standardDeviation: noise)
            let y =
                floor - (position.up - anchorUp + anchor.height) * scale + random.gaussian(standardDeviation: noise)
            let dropped = dropoutRate > 0 && random.unit() < dropoutRate
            if dropped { continue }
            if mirrored { x = size.width - x }
            let label = mirrored ? joint.mirrored : joint
            pose[label] = Point(x: x, y: y)
            if includesConfidence { pose.setConfidence(0.85 + 0.1 * random.unit(), for: label) }
        }
        return pose
    }
}
