import MotionCore

extension Exercise {
    /// The figure acting out `value` of this exercise, with `faults` at `intensity` (0…1).
    ///
    /// Built-in exercises are matched by id; others are posed from their measurement's kind where possible.
    func figure(value: Double, faults: FormFeedbackSet, intensity: Double, side: BodySide) -> Figure {
        var figure = Figure()
        figure.anchor = view == .frontal ? .ankle(side.opposite) : .ankle(side)
        func fault(_ fault: FormFeedback, _ degrees: Double) -> Double {
            faults.contains(fault) ? degrees * intensity : 0
        }
        figure.trunkLean = fault(.keepTrunkUpright, 30)
        figure.shoulderTilt = fault(.keepShouldersLevel, 25)
        figure.hipTilt = fault(.keepHipsLevel, 22)
        let bend = fault(.keepElbowStraight, 50)
        switch measurement {
        case .flexion(_, let joint, _) where joint.part == .elbow:
            figure.upperArm = fault(.keepUpperArmStill, 55)
            figure.forearm = figure.upperArm + value
        // Angles to the trunk: a leaning trunk takes the limb with it, so the measured value stays as scripted.
        case .angleBetween(_, let limb) where limb.to.part == .elbow:
            figure.upperArm = value + figure.trunkLean
            figure.forearm = figure.upperArm + bend
        case .angleBetween(_, let limb) where limb.to.part == .knee:
            figure.thigh = value + figure.trunkLean
            figure.shank = figure.thigh - fault(.keepKneeStraight, 40)
        case .flexion(_, let joint, _) where joint.part == .knee:
            // A squat: shins incline forward, thighs back, the trunk leans with depth; the fault folds the chest far
            // past the shin line (the squat judges the trunk against the shin).
            figure.bothLegs = true
            figure.shank = -0.4 * value
            figure.thigh = 0.6 * value
            figure.trunkLean = -(0.3 * value + fault(.keepTrunkUpright, 70))
        case .inclination(let segment) where segment.from.part == .knee && kind == .rep && id == "kneeExtension":
            figure.anchor = .seated
            figure.restingThigh = 90
            figure.restingShank = 0
            figure.thigh = 90 - fault(.keepThighStill, 35)
            figure.shank = value
        case .inclination(let segment) where segment.from.part == .knee:
            // A knee-to-wall lunge: the front shin inclines forward, the thigh follows.
            figure.shank = -value
            figure.thigh = 0.8 * value
            figure.restingThigh = -20
            figure.restingShank = -20
        default:
            break
        }
        return figure
    }
}
