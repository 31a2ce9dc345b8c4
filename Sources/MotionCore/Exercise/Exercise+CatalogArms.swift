extension Exercise {
    /// Elbow flexion, side view: 180 − ∠shoulder-elbow-wrist; normal 150°.
    public static let elbowFlexion = Exercise(
        id: "elbowFlexion", name: "Elbow flexion", view: .sagittal, kind: .rep, sidedness: .oneSided,
        measurement: elbowFlexionAngle,
        thresholds: Thresholds(rest: 30, enter: 60, exit: 40, minAmplitude: 40),
        target: 150,
        rules: [
            FormRule(fault: .keepUpperArmStill, measurement: upperArmAngle, limit: 25, relativeToStart: true),
            trunkUpright,
        ], isBuiltin: true)

    /// Shoulder flexion, side view: angle between trunk and upper arm; normal 180°.
    public static let shoulderFlexion = Exercise(
        id: "shoulderFlexion", name: "Shoulder flexion", view: .sagittal, kind: .rep, sidedness: .oneSided,
        measurement: upperArmAngle,
        thresholds: Thresholds(rest: 30, enter: 70, exit: 45, minAmplitude: 45),
        target: 180,
        rules: [elbowStraight, trunkUpright], isBuiltin: true)

    /// Shoulder abduction, front view: angle between trunk and upper arm; normal 180°.
    public static let shoulderAbduction = Exercise(
        id: "shoulderAbduction", name: "Shoulder abduction", view: .frontal, kind: .rep, sidedness: .oneSided,
        measurement: upperArmAngle,
        thresholds: Thresholds(rest: 30, enter: 70, exit: 45, minAmplitude: 45),
        target: 180,
        rules: [elbowStraight, trunkUpright, shouldersLevel(15)], isBuiltin: true)

    /// Shoulder abduction held at 90° or more for 5 s, front view.
    public static let shoulderAbductionHold = Exercise(
        id: "shoulderAbductionHold", name: "Shoulder abduction hold", view: .frontal, kind: .hold,
        sidedness: .oneSided, measurement: upperArmAngle,
        thresholds: Thresholds(rest: 30, enter: 90, exit: 60, minAmplitude: 0, holdSeconds: 5, holdTolerance: 7),
        target: 90,
        rules: shoulderAbduction.rules, isBuiltin: true)

    /// Shoulder external rotation at 90° of abduction, front view: the wrist's height above the elbow in upper-arm
    /// lengths (0 with the forearm pointing at the camera, about 0.79 with it vertical, for adult proportions).
    ///
    /// The forearm turns out of the image plane, so its angle cannot be read: with the forearm pointing at the camera
    /// it has no length in the image. Its height above the elbow, per the upper arm (which stays in the image plane),
    /// is the sine of the rotation times the forearm-to-upper-arm ratio (0.79 after Winter).
    public static let shoulderExternalRotation = Exercise(
        id: "shoulderExternalRotation", name: "Shoulder external rotation at 90° abduction", view: .frontal,
        kind: .rep, sidedness: .oneSided,
        measurement: .height(of: .wrist, above: .elbow, per: .upperArm),
        thresholds: Thresholds(rest: 0.15, enter: 0.4, exit: 0.25, minAmplitude: 0.25),
        target: 0.78,
        rules: [
            FormRule(fault: .keepUpperArmStill, measurement: upperArmAngle, limit: 20, relativeToStart: true),
            shouldersLevel(15),
        ], smoothing: smoothing(spanning: 0.78), isBuiltin: true)

    /// Wall slide, side view, both arms: the forearms slide up a wall in front; the angle between trunk and upper arm,
    /// from about 60° at the start to full elevation (normal shoulder flexion 180°).
    public static let wallSlide = Exercise(
        id: "wallSlide", name: "Wall slide", view: .sagittal, kind: .rep, sidedness: .bilateral, posture: .standing,
        measurement: upperArmAngle,
        thresholds: Thresholds(rest: 70, enter: 120, exit: 90, minAmplitude: 45),
        target: 180,
        rules: [trunkUpright], isBuiltin: true)
}
