import MotionCore

extension Exercise {
    /// The figure acting out `value` of this exercise, with `faults` at `intensity` (0…1).
    ///
    /// Built-in exercises are matched by id; others are posed from their measurement's kind where possible.
    /// - Parameters:
    ///   - arms: Where the arms the exercise does not move are held.
    ///   - shinShare: In a squat, the shin's share of knee flexion (the rest is the thigh's).
    func figure(
        value: Double, faults: FormFeedbackSet, intensity: Double, side: BodySide, arms: ArmPosition = .atSides,
        shinShare: Double = Simulation.defaultShinShare
    ) -> Figure {
        var figure = Figure()
        figure.restingArms = arms
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
            figure.movesArm = true
            // The arm hangs along the trunk: a leaning trunk takes it along.
            figure.upperArm = fault(.keepUpperArmStill, 55) + figure.trunkLean
            figure.forearm = figure.upperArm + value
        // Angles to the trunk: a leaning trunk takes the limb with it, so the measured value stays as scripted.
        case .angleBetween(_, let limb) where limb.to.part == .elbow:
            figure.movesArm = true
            figure.upperArm = value + figure.trunkLean
            figure.forearm = figure.upperArm + bend
        case .angleBetween(_, let limb) where limb.to.part == .knee:
            figure.thigh = value + figure.trunkLean
            figure.shank = figure.thigh - fault(.keepKneeStraight, 40)
        case .flexion(_, let joint, _) where joint.part == .knee:
            // A squat with the heels down: the shins take `shinShare` of the knee flexion, up to a weight-bearing
            // dorsiflexion of 40° (CLINICAL.md), the thighs the rest, and the trunk leans as far forward as keeps
            // the body balanced over the feet: with the default share, hip flexion is about 1.4× knee flexion at
            // 90°. The fault folds the chest far past the shin line (the squat judges the trunk against the shin).
            figure.bothLegs = true
            let shin = min(max(shinShare, 0) * value, Simulation.maxShinInclination)
            figure.shank = -shin
            figure.thigh = value - shin
            figure.trunkLean = figure.balancingTrunkLean(side: side) - fault(.keepTrunkUpright, 45)
        case .inclination(let segment) where segment.from.part == .knee && kind == .rep && id == "kneeExtension":
            figure.anchor = .seated
            figure.restingThigh = 90
            figure.restingShank = 0
            // The thigh lifting off the chair: the knee rises.
            figure.thigh = 90 + fault(.keepThighStill, 25)
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
