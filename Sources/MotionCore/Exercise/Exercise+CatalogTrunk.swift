extension Exercise {
    /// Cervical lateral flexion, front view, left and right in turn: the ear line's tilt against the shoulder line,
    /// towards the side measured; normal 45°.
    public static let cervicalLateralFlexion = Exercise(
        id: "cervicalLateralFlexion", name: "Neck side bend", view: .frontal, kind: .rep, sidedness: .alternating,
        measurement: .inclinationBeyond(.earLine, reference: .shoulderLine),
        thresholds: Thresholds(rest: 8, enter: 20, exit: 12, minAmplitude: 15),
        target: 45,
        rules: [shouldersLevel(12)], isBuiltin: true)

    /// Trunk lateral flexion, front view, left and right in turn: the trunk line's lean from vertical towards the
    /// side measured, on the clinical scale of the spine line (C7 to sacrum) against vertical; normal 25–35°.
    /// The shoulder line, which tilts about twice as far in a bend, is not the measure.
    public static let trunkLateralFlexion = Exercise(
        id: "trunkLateralFlexion", name: "Trunk side bend", view: .frontal, kind: .rep, sidedness: .alternating,
        posture: .standing, measurement: .lean(.trunk, reference: .hipLine),
        thresholds: Thresholds(rest: 4, enter: 10, exit: 6, minAmplitude: 8),
        target: 35,
        rules: [hipsLevel(10)], isBuiltin: true)

    /// Glute bridge, lying on the back with the knees bent, side view: hip flexion (trunk line to thigh) falling
    /// from about 50° with the hips down to 0° with shoulders, hips and knees in line.
    public static let gluteBridge = Exercise(
        id: "gluteBridge", name: "Glute bridge", view: .sagittal, kind: .rep, sidedness: .bilateral,
        posture: .lying, measurement: thighAngle, direction: .falling,
        thresholds: Thresholds(rest: 35, enter: 12, exit: 25, minAmplitude: 20),
        target: 0, isBuiltin: true)

    /// Glute bridge held for 5 s at 12° of hip flexion or less (a falling hold).
    public static let gluteBridgeHold = Exercise(
        id: "gluteBridgeHold", name: "Glute bridge hold", view: .sagittal, kind: .hold, sidedness: .bilateral,
        posture: .lying, measurement: thighAngle, direction: .falling,
        thresholds: Thresholds(rest: 35, enter: 12, exit: 25, minAmplitude: 0, holdSeconds: 5, holdTolerance: 6),
        target: 0, isBuiltin: true)

    /// Forearm plank held for 10 s, side view: the hips' rise above the floor (the lowest point they were seen at,
    /// lying), in trunk lengths; shoulders, hips and ankles must stay in line.
    public static let plankHold = Exercise(
        id: "plankHold", name: "Plank", view: .sagittal, kind: .hold, sidedness: .bilateral, posture: .lying,
        measurement: .rise(of: .hip, per: .trunk),
        thresholds: Thresholds(
            rest: 0.08, enter: 0.2, exit: 0.12, minAmplitude: 0, holdSeconds: 10, holdTolerance: 0.08),
        target: 0.3,
        rules: [bodyStraight], smoothing: smoothing(spanning: 0.3), isBuiltin: true)

    /// Side plank on the working side's forearm held for 10 s, front view: the lower hip's rise above the floor, in
    /// trunk lengths; shoulders, hips and ankles must stay in line.
    public static let sidePlankHold = Exercise(
        id: "sidePlankHold", name: "Side plank", view: .frontal, kind: .hold, sidedness: .oneSided, posture: .lying,
        measurement: .rise(of: .hip, per: .trunk),
        thresholds: Thresholds(
            rest: 0.08, enter: 0.2, exit: 0.12, minAmplitude: 0, holdSeconds: 10, holdTolerance: 0.08),
        target: 0.3,
        rules: [bodyStraight], smoothing: smoothing(spanning: 0.3), isBuiltin: true)
}
