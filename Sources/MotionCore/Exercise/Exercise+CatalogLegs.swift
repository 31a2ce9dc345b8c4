extension Exercise {
    /// Standing hip abduction, front view: angle between trunk and thigh; normal 45°.
    public static let hipAbduction = Exercise(
        id: "hipAbduction", name: "Hip abduction", view: .frontal, kind: .rep, sidedness: .oneSided,
        posture: .standing, measurement: thighAngle,
        thresholds: Thresholds(rest: 10, enter: 25, exit: 15, minAmplitude: 15),
        target: 45,
        rules: [kneeStraight(20), trunkUpright, hipsLevel(12)], isBuiltin: true)

    /// Standing hip flexion (marching), side view, left and right in turn: angle between trunk and thigh; the aim is
    /// the thigh horizontal (90°; normal hip flexion with the knee bent is 120°).
    public static let standingHipFlexion = Exercise(
        id: "standingHipFlexion", name: "Standing hip flexion (march)", view: .sagittal, kind: .rep,
        sidedness: .alternating, posture: .standing, measurement: thighAngle,
        thresholds: Thresholds(rest: 15, enter: 45, exit: 25, minAmplitude: 30),
        target: 90,
        rules: [trunkUpright], isBuiltin: true)

    /// Standing knee flexion (hamstring curl), side view: 180 − ∠hip-knee-ankle with the thigh kept vertical; the aim
    /// is the shank horizontal (90°; normal knee flexion is 135°).
    public static let standingKneeFlexion = Exercise(
        id: "standingKneeFlexion", name: "Standing knee flexion (hamstring curl)", view: .sagittal, kind: .rep,
        sidedness: .oneSided, posture: .standing, measurement: kneeFlexionAngle,
        thresholds: Thresholds(rest: 20, enter: 50, exit: 30, minAmplitude: 40),
        target: 90,
        rules: [
            FormRule(fault: .keepThighStill, measurement: .inclination(.thigh), limit: 15, relativeToStart: true),
            trunkUpright,
        ], isBuiltin: true)

    /// Seated knee extension, side view: shank angle from hanging straight down (0) to straight out (90).
    public static let kneeExtension = Exercise(
        id: "kneeExtension", name: "Seated knee extension", view: .sagittal, kind: .rep, sidedness: .oneSided,
        posture: .seated, measurement: .inclination(.shank),
        thresholds: Thresholds(rest: 20, enter: 50, exit: 30, minAmplitude: 35),
        target: 90,
        rules: [
            FormRule(fault: .keepThighStill, measurement: .inclination(.thigh), limit: 15, relativeToStart: true)
        ], isBuiltin: true)

    /// Heel slide, lying on the back, side view: knee flexion 180 − ∠hip-knee-ankle as the heel slides towards the
    /// buttock; normal knee flexion 135°.
    public static let heelSlide = Exercise(
        id: "heelSlide", name: "Heel slide (lying)", view: .sagittal, kind: .rep, sidedness: .oneSided,
        posture: .lying, measurement: kneeFlexionAngle,
        thresholds: Thresholds(rest: 20, enter: 50, exit: 30, minAmplitude: 40),
        target: 135, isBuiltin: true)

    /// Straight-leg raise, lying on the back, side view: angle between trunk and thigh with the knee straight; the
    /// aim is the height of the other, bent knee (about 45°; straight-leg hip flexion is about 90°).
    public static let straightLegRaise = Exercise(
        id: "straightLegRaise", name: "Straight-leg raise (lying)", view: .sagittal, kind: .rep,
        sidedness: .oneSided, posture: .lying, measurement: thighAngle,
        thresholds: Thresholds(rest: 10, enter: 25, exit: 15, minAmplitude: 15),
        target: 45,
        rules: [kneeStraight(15)], isBuiltin: true)

    /// Ankle dorsiflexion in a knee-to-wall lunge, side view: tibia inclination from vertical; healthy ≈ 40°.
    public static let ankleDorsiflexion = Exercise(
        id: "ankleDorsiflexion", name: "Ankle dorsiflexion (knee to wall)", view: .sagittal, kind: .rep,
        sidedness: .oneSided, posture: .standing, measurement: .inclination(.shank),
        thresholds: Thresholds(rest: 8, enter: 20, exit: 12, minAmplitude: 12),
        target: 40, isBuiltin: true)

    /// Heel raise, side view, both feet: how far the ankle rises above the floor (the lowest point it was seen at),
    /// in shank lengths; the aim, 0.14, is the ankle's rise at about 45° of plantarflexion for adult foot
    /// proportions (the ankle joint rises far less than the heel: at most about 0.15 shank lengths).
    public static let heelRaise = Exercise(
        id: "heelRaise", name: "Heel raise", view: .sagittal, kind: .rep, sidedness: .bilateral, posture: .standing,
        measurement: .rise(of: .ankle, per: .shank),
        thresholds: Thresholds(rest: 0.04, enter: 0.12, exit: 0.08, minAmplitude: 0.08),
        target: 0.14,
        rules: [kneeStraight(15)], smoothing: smoothing(spanning: 0.14), isBuiltin: true)
}
