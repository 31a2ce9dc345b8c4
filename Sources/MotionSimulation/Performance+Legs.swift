import MotionCore

extension Performance {
    /// Hip, knee and ankle exercises standing or seated, one leg at a time.
    static let legs: [String: Performance] = [
        "hipAbduction": Performance { value, acting in
            var figure = Figure(anchor: .standing(view: .frontal, side: acting.side), arms: acting.arms)
            // Leaning away from the leg takes the angle to the trunk along; a hitched hip tilts the hip line only.
            figure.trunkSideLean = acting.amount(.keepTrunkUpright, 30)
            figure.hipTilt = acting.amount(.keepHipsLevel, 22)
            let thigh = value + figure.trunkSideLean
            // A bent knee lets the shank hang nearer vertical than the abducted thigh.
            figure.workingLeg = .frontal(thigh, thigh - acting.amount(.keepKneeStraight, 40))
            return figure
        },
        "standingHipFlexion": Performance { value, acting in
            // Marching: the thigh lifts with the shank hanging; the standing leg stays straight under the hip.
            var figure = Figure(
                anchor: Figure.Anchor(horizontal: .root, vertical: .ankle(acting.side.opposite)), arms: acting.arms)
            figure.trunkLean = acting.amount(.keepTrunkUpright, 30)
            figure.workingLeg = .sagittal(value + figure.trunkLean, 0)
            figure.otherLeg = .sagittal(acting.restValue, 0)
            return figure
        },
        "standingKneeFlexion": Performance { value, acting in
            // The heel comes up behind; swinging the thigh forward or leaning forward are the faults.
            var figure = Figure(
                anchor: Figure.Anchor(horizontal: .root, vertical: .ankle(acting.side.opposite)), arms: acting.arms)
            figure.trunkLean = -acting.amount(.keepTrunkUpright, 30)
            let thigh = acting.amount(.keepThighStill, 25)
            figure.workingLeg = .sagittal(thigh, thigh - value)
            return figure
        },
        "kneeExtension": Performance { value, acting in
            // Seated, the feet on the floor; the thigh lifting off the chair (the knee rising) is the fault.
            var figure = Figure(
                anchor: Figure.Anchor(horizontal: .root, vertical: .ankle(acting.side.opposite), offset: -0.1),
                arms: acting.arms)
            figure.workingLeg = .sagittal(90 + acting.amount(.keepThighStill, 25), value)
            figure.otherLeg = .sagittal(90, 0)
            return figure
        },
        "ankleDorsiflexion": Performance { value, acting in
            // A knee-to-wall lunge: the front shin inclines forward, the thigh follows, the back leg stays behind.
            var figure = Figure(anchor: .standing(view: .sagittal, side: acting.side), arms: acting.arms)
            figure.workingLeg = .sagittal(0.8 * value, -value)
            figure.otherLeg = .sagittal(-20, -20)
            return figure
        },
        "heelRaise": Performance(restValue: 0) { value, acting in
            // The whole body rises with the ankles; bending the knees is the fault (it does not move the ankles).
            var anchor = Figure.Anchor.standing(view: .sagittal, side: acting.side)
            anchor.height = value * Figure.shankLength
            var figure = Figure(anchor: anchor, arms: acting.arms)
            let bend = acting.amount(.keepKneeStraight, 30)
            let leg = Figure.Limb.sagittal(bend / 2, -bend / 2)
            figure.workingLeg = leg
            figure.otherLeg = leg
            return figure
        },
    ]
}
