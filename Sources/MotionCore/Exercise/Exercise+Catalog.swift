extension Exercise {
    /// The built-in exercises. Thresholds and targets are documented with their sources in `docs/catalog.md`.
    public static let catalog: [Exercise] = [
        elbowFlexion, shoulderFlexion, shoulderAbduction, shoulderAbductionHold, hipAbduction, kneeExtension, squat,
        ankleDorsiflexion,
    ]

    /// The built-in exercise with `id`, or nil.
    /// - Parameter id: The exercise id, e.g. `squat`.
    public static func named(_ id: String) -> Exercise? { catalog.first { $0.id == id } }

    private static let trunkUpright = FormRule(
        fault: .keepTrunkUpright, measurement: .inclination(.trunk), limit: 15)
    private static let elbowStraight = FormRule(
        fault: .keepElbowStraight, measurement: .flexion(proximal: .shoulder, joint: .elbow, distal: .wrist),
        limit: 30)
    private static let upperArm = Measurement.angleBetween(.trunk, .upperArm)

    /// The trunk rule of the squat family (squats, and sit-to-stand, lunges, step-ups and mini squats as they are
    /// added): the trunk is judged against the shin, as coaches and clinicians judge it ("trunk parallel to tibia",
    /// Myer et al. 2014; FMS deep squat, Cook et al. 2006), not against the vertical. Leaning up to 55° past the shin
    /// line is normal: a healthy hip-dominant bodyweight squat reaches 45–50° at the bottom. Beyond that the chest
    /// is collapsing onto the thighs. The limit and its reasons are in `docs/catalog.md`.
    static let trunkAlongShin = FormRule(
        fault: .keepTrunkUpright, measurement: .inclinationBeyond(.trunk, reference: .shank), limit: 55)

    /// Elbow flexion, side view: 180 − ∠shoulder-elbow-wrist; normal 150°.
    public static let elbowFlexion = Exercise(
        id: "elbowFlexion", name: "Elbow flexion", view: .sagittal, kind: .rep, sidedness: .oneSided,
        measurement: .flexion(proximal: .shoulder, joint: .elbow, distal: .wrist),
        thresholds: Thresholds(rest: 30, enter: 60, exit: 40, minAmplitude: 40),
        target: 150,
        rules: [
            FormRule(fault: .keepUpperArmStill, measurement: upperArm, limit: 25, relativeToStart: true),
            trunkUpright,
        ], isBuiltin: true)

    /// Shoulder flexion, side view: angle between trunk and upper arm; normal 180°.
    public static let shoulderFlexion = Exercise(
        id: "shoulderFlexion", name: "Shoulder flexion", view: .sagittal, kind: .rep, sidedness: .oneSided,
        measurement: upperArm,
        thresholds: Thresholds(rest: 30, enter: 70, exit: 45, minAmplitude: 45),
        target: 180,
        rules: [elbowStraight, trunkUpright], isBuiltin: true)

    /// Shoulder abduction, front view: angle between trunk and upper arm; normal 180°.
    public static let shoulderAbduction = Exercise(
        id: "shoulderAbduction", name: "Shoulder abduction", view: .frontal, kind: .rep, sidedness: .oneSided,
        measurement: upperArm,
        thresholds: Thresholds(rest: 30, enter: 70, exit: 45, minAmplitude: 45),
        target: 180,
        rules: [
            elbowStraight, trunkUpright,
            FormRule(
                fault: .keepShouldersLevel, measurement: .tiltAgainst(.shoulderLine, reference: .trunk), limit: 15),
        ], isBuiltin: true)

    /// Shoulder abduction held at 90° or more for 5 s, front view.
    public static let shoulderAbductionHold = Exercise(
        id: "shoulderAbductionHold", name: "Shoulder abduction hold", view: .frontal, kind: .hold,
        sidedness: .oneSided, measurement: upperArm,
        thresholds: Thresholds(rest: 30, enter: 90, exit: 60, minAmplitude: 0, holdSeconds: 5, holdTolerance: 7),
        target: 90,
        rules: shoulderAbduction.rules, isBuiltin: true)

    /// Standing hip abduction, front view: angle between trunk and thigh; normal 45°.
    public static let hipAbduction = Exercise(
        id: "hipAbduction", name: "Hip abduction", view: .frontal, kind: .rep, sidedness: .oneSided,
        measurement: .angleBetween(.trunk, .thigh),
        thresholds: Thresholds(rest: 10, enter: 25, exit: 15, minAmplitude: 15),
        target: 45,
        rules: [
            FormRule(
                fault: .keepKneeStraight, measurement: .flexion(proximal: .hip, joint: .knee, distal: .ankle),
                limit: 20),
            trunkUpright,
            FormRule(fault: .keepHipsLevel, measurement: .tilt(.hipLine), limit: 12),
        ], isBuiltin: true)

    /// Seated knee extension, side view: shank angle from hanging straight down (0) to straight out (90).
    public static let kneeExtension = Exercise(
        id: "kneeExtension", name: "Seated knee extension", view: .sagittal, kind: .rep, sidedness: .oneSided,
        measurement: .inclination(.shank),
        thresholds: Thresholds(rest: 20, enter: 50, exit: 30, minAmplitude: 35),
        target: 90,
        rules: [
            FormRule(fault: .keepThighStill, measurement: .inclination(.thigh), limit: 15, relativeToStart: true)
        ], isBuiltin: true)

    /// Squat, side view: knee flexion 180 − ∠hip-knee-ankle; target 90° (thighs near parallel). The trunk may lean
    /// up to 55° past the shin line.
    public static let squat = Exercise(
        id: "squat", name: "Squat", view: .sagittal, kind: .rep, sidedness: .bilateral,
        measurement: .flexion(proximal: .hip, joint: .knee, distal: .ankle),
        thresholds: Thresholds(rest: 20, enter: 50, exit: 30, minAmplitude: 40),
        target: 90,
        rules: [trunkAlongShin], isBuiltin: true)

    /// Ankle dorsiflexion in a knee-to-wall lunge, side view: tibia inclination from vertical; healthy ≈ 40°.
    public static let ankleDorsiflexion = Exercise(
        id: "ankleDorsiflexion", name: "Ankle dorsiflexion (knee to wall)", view: .sagittal, kind: .rep,
        sidedness: .oneSided, measurement: .inclination(.shank),
        thresholds: Thresholds(rest: 8, enter: 20, exit: 12, minAmplitude: 12),
        target: 40, isBuiltin: true)
}
