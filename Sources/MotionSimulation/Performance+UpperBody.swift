import MotionCore

extension Performance {
    /// Arms, shoulders, neck and trunk, standing.
    static let upperBody: [String: Performance] = [
        "elbowFlexion": Performance { value, acting in
            var figure = Figure(anchor: .standing(view: .sagittal, side: acting.side), arms: acting.arms)
            // Leaning back; the arm hangs along the trunk, so a lean takes it along.
            figure.trunkLean = acting.amount(.keepTrunkUpright, 30)
            let upperArm = acting.amount(.keepUpperArmStill, 55) + figure.trunkLean
            figure.workingArm = .posed(.sagittal(upperArm, upperArm + value))
            return figure
        },
        "shoulderFlexion": Performance { value, acting in
            var figure = Figure(anchor: .standing(view: .sagittal, side: acting.side), arms: acting.arms)
            figure.trunkLean = acting.amount(.keepTrunkUpright, 30)
            // Angles to the trunk: a leaning trunk takes the arm with it, so the measured value stays as scripted.
            let upperArm = value + figure.trunkLean
            figure.workingArm = .posed(.sagittal(upperArm, upperArm + acting.amount(.keepElbowStraight, 50)))
            return figure
        },
        "shoulderAbduction": abduction,
        "shoulderAbductionHold": abduction,
        "shoulderExternalRotation": Performance(restValue: 0) { value, acting in
            // The upper arm out to the side at 90°; the forearm turns from pointing at the camera (0) to vertical.
            var figure = Figure(anchor: .standing(view: .frontal, side: acting.side), arms: acting.arms)
            let rotation = arcSine(value * Figure.upperArmLength / Figure.forearmLength)
            figure.shoulderTilt = acting.amount(.keepShouldersLevel, 25)
            figure.workingArm = .posed(
                Figure.Limb(
                    upper: .frontal(90 - acting.amount(.keepUpperArmStill, 30)), lower: .sagittal(90 + rotation)))
            return figure
        },
        "wallSlide": Performance { value, acting in
            // Both forearms upright on a wall in front; leaning back (arching) to reach higher is the fault.
            var figure = Figure(anchor: .standing(view: .sagittal, side: acting.side), arms: acting.arms)
            figure.trunkLean = acting.amount(.keepTrunkUpright, 30)
            let arm = Figure.Arm.posed(.sagittal(value + figure.trunkLean, 180))
            figure.workingArm = arm
            figure.otherArm = arm
            return figure
        },
        "cervicalLateralFlexion": Performance(restValue: 0) { value, acting in
            // A shoulder hitched towards the ear adds to the ear line's tilt against the shoulders: the head tilts
            // less by as much.
            var figure = Figure(anchor: .standing(view: .frontal, side: acting.side), arms: acting.arms)
            figure.shoulderTilt = acting.amount(.keepShouldersLevel, 25)
            figure.headTilt = value - figure.shoulderTilt
            return figure
        },
        "trunkLateralFlexion": Performance(restValue: 0) { value, acting in
            // The measure is the trunk line's lean towards the working side. The spine curves in a bend, so the
            // shoulder line tilts about twice as far as the trunk leans (docs/clinical.md): the working shoulder
            // drops by as much again against the trunk. A hip hitched on the working side tilts the pelvis about
            // its centre and leaves the trunk line's lean as it is.
            var figure = Figure(anchor: .standing(view: .frontal, side: acting.side), arms: acting.arms)
            figure.hipTilt = acting.amount(.keepHipsLevel, 20)
            figure.trunkSideLean = -value
            figure.shoulderTilt = -value
            return figure
        },
    ]

    /// Shoulder abduction, front view: leaning away from the arm takes the arm along; a shrug tilts the shoulders.
    private static let abduction = Performance { value, acting in
        var figure = Figure(anchor: .standing(view: .frontal, side: acting.side), arms: acting.arms)
        figure.trunkSideLean = acting.amount(.keepTrunkUpright, 30)
        figure.shoulderTilt = acting.amount(.keepShouldersLevel, 25)
        let upperArm = value + figure.trunkSideLean
        figure.workingArm = .posed(.frontal(upperArm, upperArm + acting.amount(.keepElbowStraight, 50)))
        return figure
    }
}
