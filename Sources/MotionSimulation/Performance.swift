import MotionCore

/// How the simulated person acts out one exercise: the figure for each value of the measurement, with the
/// exercise's faults acted at an intensity.
///
/// Built-in exercises each have one, keyed by id (``builtin``); a pose function sets the measured value exactly and
/// acts each fault so that it breaks its own rule, and no other, at intensity 1. Custom exercises borrow the
/// performance of a built-in one with the same kind of measurement (``of(_:)``).
struct Performance: Sendable {
    /// The value in the start position, before and between reps; nil for the default (``Simulation``).
    var restValue: Double?
    /// The figure at `value`.
    var pose: @Sendable (_ value: Double, _ acting: Acting) -> Figure

    init(restValue: Double? = nil, pose: @escaping @Sendable (_ value: Double, _ acting: Acting) -> Figure) {
        self.restValue = restValue
        self.pose = pose
    }
}

/// What a pose function is asked to act besides the value.
struct Acting: Sendable {
    /// The faults acted out.
    var faults: FormFeedbackSet = []
    /// How strongly, 0 at rest … 1 at the rep's peak.
    var intensity = 0.0
    /// The side doing the movement (for alternating exercises, the rep's side).
    var side = BodySide.right
    /// Where the arms the exercise does not move are held.
    var arms = ArmPosition.atSides
    /// Squat family: the shin's share of knee flexion.
    var shinShare = Simulation.defaultShinShare
    /// The value in the start position.
    var restValue = 0.0

    /// `full` scaled by the intensity when `fault` is acted, else 0.
    func amount(_ fault: FormFeedback, _ full: Double) -> Double {
        faults.contains(fault) ? full * intensity : 0
    }

    /// Whether `fault` is acted.
    func acts(_ fault: FormFeedback) -> Bool { faults.contains(fault) && intensity > 0 }
}

extension Performance {
    /// The performances of the built-in exercises, by exercise id.
    static let builtin: [String: Performance] = upperBody.merging(legs) { first, _ in first }
        .merging(squats) { first, _ in first }.merging(floor) { first, _ in first }

    /// The performance of `exercise`: its own when it is built in, else one of a built-in exercise measured alike.
    static func of(_ exercise: Exercise) -> Performance {
        if let own = builtin[exercise.id] { return own }
        let borrowed: String
        switch exercise.measurement {
        case .flexion(_, let joint, _) where joint.part == .elbow: borrowed = "elbowFlexion"
        case .angleBetween(_, let limb) where limb.to.part == .elbow:
            borrowed = exercise.view == .frontal ? "shoulderAbduction" : "shoulderFlexion"
        case .angleBetween(_, let limb) where limb.to.part == .knee:
            borrowed = exercise.view == .frontal ? "hipAbduction" : "standingHipFlexion"
        case .flexion(_, let joint, _) where joint.part == .knee:
            borrowed =
                exercise.posture == .lying ? "heelSlide" : exercise.direction == .falling ? "sitToStand" : "squat"
        case .inclination(let segment) where segment.from.part == .knee:
            borrowed = exercise.posture == .seated ? "kneeExtension" : "ankleDorsiflexion"
        case .rise(let joint, _) where joint.part == .ankle: borrowed = "heelRaise"
        default:
            return Performance { _, acting in
                Figure(anchor: .standing(view: exercise.view, side: acting.side), arms: acting.arms)
            }
        }
        return builtin[borrowed]
            ?? Performance { _, acting in Figure(anchor: .standing(view: .sagittal, side: acting.side)) }
    }
}

extension Figure {
    /// The figure moved into `posture` for a session in the wrong posture: standing or seated upright on both feet,
    /// or lying on the back; the arms and trunk stay as posed, the legs take the posture's shape.
    func adopting(_ posture: Exercise.Posture, view: Exercise.View, side: BodySide) -> Figure {
        var figure = self
        figure.bodyPitch = 0
        figure.bodyRoll = 0
        switch posture {
        case .standing:
            figure.workingLeg = .straight
            figure.otherLeg = .straight
            figure.anchor = .standing(view: view, side: side)
        case .seated:
            // The thighs a little below horizontal, so that they are seen even pointing at the camera.
            let seated = Limb.sagittal(85, 0)
            figure.workingLeg = seated
            figure.otherLeg = seated
            figure.anchor = .standing(view: view, side: side)
        case .lying:
            figure.workingLeg = .straight
            figure.otherLeg = .straight
            figure.bodyPitch = 90
            figure.anchor = .resting(.root, height: 0.05)
        }
        return figure
    }
}
