extension Exercise {
    /// The built-in exercises: the first eight of the original catalog, then the home-programme entries grouped by
    /// body region. Thresholds, targets and their sources are documented in `docs/catalog.md`.
    public static let catalog: [Exercise] = [
        elbowFlexion, shoulderFlexion, shoulderAbduction, shoulderAbductionHold, hipAbduction, kneeExtension, squat,
        ankleDorsiflexion,
        shoulderExternalRotation, wallSlide, cervicalLateralFlexion, trunkLateralFlexion,
        standingHipFlexion, standingKneeFlexion, heelRaise, miniSquat, lunge, sitToStand,
        heelSlide, straightLegRaise, gluteBridge, gluteBridgeHold, plankHold, sidePlankHold,
    ]

    /// The built-in exercise with `id`, or nil.
    /// - Parameter id: The exercise id, e.g. `squat`.
    public static func named(_ id: String) -> Exercise? { catalog.first { $0.id == id } }

    // MARK: Shared measurements and rules

    /// 180 − ∠shoulder-elbow-wrist.
    static let elbowFlexionAngle = Measurement.flexion(proximal: .shoulder, joint: .elbow, distal: .wrist)
    /// 180 − ∠hip-knee-ankle.
    static let kneeFlexionAngle = Measurement.flexion(proximal: .hip, joint: .knee, distal: .ankle)
    /// The angle between the trunk line and the upper arm: shoulder flexion (side view) or abduction (front view).
    static let upperArmAngle = Measurement.angleBetween(.trunk, .upperArm)
    /// The angle between the trunk line and the thigh: hip flexion (side view) or abduction (front view).
    static let thighAngle = Measurement.angleBetween(.trunk, .thigh)

    static let trunkUpright = FormRule(fault: .keepTrunkUpright, measurement: .inclination(.trunk), limit: 15)
    static let elbowStraight = FormRule(fault: .keepElbowStraight, measurement: elbowFlexionAngle, limit: 30)

    /// The knee held straight: knee flexion at most `limit` degrees.
    static func kneeStraight(_ limit: Double) -> FormRule {
        FormRule(fault: .keepKneeStraight, measurement: kneeFlexionAngle, limit: limit)
    }

    /// The shoulder line kept square to the trunk (a shrug tilts it; a lean does not).
    static func shouldersLevel(_ limit: Double) -> FormRule {
        FormRule(fault: .keepShouldersLevel, measurement: .tiltAgainst(.shoulderLine, reference: .trunk), limit: limit)
    }

    /// The hip line kept level: its tilt from horizontal at most `limit` degrees.
    static func hipsLevel(_ limit: Double) -> FormRule {
        FormRule(fault: .keepHipsLevel, measurement: .tilt(.hipLine), limit: limit)
    }

    /// Shoulders, hips and ankles in line (plank, side plank): the body line bent at the hip by at most 20°, either
    /// way (sagging or piking).
    static let bodyStraight = FormRule(
        fault: .keepBodyStraight, measurement: .flexion(proximal: .shoulder, joint: .hip, distal: .ankle), limit: 20)

    /// The trunk rule of the squat family (squat, mini squat, lunge, sit-to-stand): the trunk is judged against the
    /// shin, as coaches and clinicians judge it ("trunk parallel to tibia", Myer et al. 2014; FMS deep squat, Cook
    /// et al. 2006), not against the vertical. Leaning up to 55° past the shin line is normal: a healthy
    /// hip-dominant bodyweight squat reaches 45–50° at the bottom. Beyond that the chest is collapsing onto the
    /// thighs. The limit and its reasons are in `docs/catalog.md`.
    static let trunkAlongShin = FormRule(
        fault: .keepTrunkUpright, measurement: .inclinationBeyond(.trunk, reference: .shank), limit: 55)

    /// Smoothing for a value in segment lengths whose rep spans about `span` of them.
    ///
    /// The One Euro filter raises its cut-off by `beta` × the value's speed, and the speed is in the value's unit
    /// per second. The default `beta` (0.02) was set for angle reps spanning about 100°, whose speed reaches a few
    /// hundred degrees per second; a heel raise of 0.14 shank lengths moves a few tenths of a length per second, so
    /// with the same `beta` the cut-off would never rise. Converting the unit alone gives 0.02 × 100 / `span`; but
    /// the detector's jitter is a larger share of a distance of a few dozen pixels than of an angle (1.5 px is a
    /// tenth of a heel raise, about 1 % of an elbow curl), and its own speed opens the filter as the movement does.
    /// A quarter of the converted value, 0.5 / `span`, kept the peaks of simulated sessions closer to their script
    /// (1.5 px of noise, 8 seeds × 3 reps: external rotation +0.001 mean, 0.049 worst, against +0.013 and 0.065
    /// converted; heel raise +0.022 and 0.044 against +0.027 and 0.047). The rest cut-off (`minCutoff`, Hz) does not
    /// depend on the unit.
    static func smoothing(spanning span: Double) -> Smoothing {
        let defaults = Smoothing()
        return Smoothing(minCutoff: defaults.minCutoff, beta: 0.5 / span, derivativeCutoff: defaults.derivativeCutoff)
    }
}
