extension Exercise {
    /// Squat, side view: knee flexion 180 − ∠hip-knee-ankle; target 90° (thighs near parallel). The trunk may lean
    /// up to 55° past the shin line.
    public static let squat = Exercise(
        id: "squat", name: "Squat", view: .sagittal, kind: .rep, sidedness: .bilateral, posture: .standing,
        measurement: kneeFlexionAngle,
        thresholds: Thresholds(rest: 20, enter: 50, exit: 30, minAmplitude: 40),
        target: 90,
        rules: [trunkAlongShin], isBuiltin: true)

    /// Mini squat, side view: knee flexion to about 45°, the shallow squat of knee programmes.
    public static let miniSquat = Exercise(
        id: "miniSquat", name: "Mini squat", view: .sagittal, kind: .rep, sidedness: .bilateral, posture: .standing,
        measurement: kneeFlexionAngle,
        thresholds: Thresholds(rest: 15, enter: 30, exit: 20, minAmplitude: 20),
        target: 45,
        rules: [trunkAlongShin], isBuiltin: true)

    /// Lunge (split squat), side view: knee flexion of the front leg, the working side; target 90°.
    public static let lunge = Exercise(
        id: "lunge", name: "Lunge (split squat)", view: .sagittal, kind: .rep, sidedness: .oneSided,
        posture: .standing, measurement: kneeFlexionAngle,
        thresholds: Thresholds(rest: 20, enter: 50, exit: 30, minAmplitude: 40),
        target: 90,
        rules: [trunkAlongShin], isBuiltin: true)

    /// Sit-to-stand, side view: knee flexion falling from about 90° seated to straight standing and back; every rep
    /// starts and ends seated, so the first stand counts.
    public static let sitToStand = Exercise(
        id: "sitToStand", name: "Sit-to-stand", view: .sagittal, kind: .rep, sidedness: .bilateral, posture: .seated,
        measurement: kneeFlexionAngle, direction: .falling,
        thresholds: Thresholds(rest: 80, enter: 30, exit: 65, minAmplitude: 40),
        target: 0,
        rules: [trunkAlongShin], isBuiltin: true)
}
