import MotionCore

extension Figure {
    /// The trunk lean (degrees, negative forward, as ``trunkLean``) that keeps the body's centre of mass over the
    /// same point of the feet as when standing upright with the arms at the sides, for the legs and arms as posed.
    ///
    /// A squat whose hips travel back must lean the trunk forward to stay balanced over the feet; how far depends
    /// on how much the shins incline and where the arms are (arms held forward are a counterweight: the trunk
    /// leans less, and a little back when standing). Side view, upright body.
    func balancingTrunkLean(side: BodySide) -> Double {
        var standing = self
        standing.workingLeg = .straight
        standing.otherLeg = .straight
        standing.trunkLean = 0
        standing.workingArm = .held(.atSides)
        standing.otherArm = .held(.atSides)
        return balancingTrunkLean(side: side, over: standing.centreOfMassForward(side: side))
    }

    /// The trunk lean that puts the centre of mass `target` forward of the working ankle (fractions of stature),
    /// between 10° back and 89° forward.
    func balancingTrunkLean(side: BodySide, over target: Double) -> Double {
        // The centre of mass moves forward as the trunk leans forward: bisect.
        var back = 10.0
        var front = -89.0
        var probe = self
        for _ in 0..<30 {
            probe.trunkLean = (back + front) / 2
            if probe.centreOfMassForward(side: side) > target {
                front = probe.trunkLean
            } else {
                back = probe.trunkLean
            }
        }
        return (back + front) / 2
    }

    /// How far forward of the working ankle the centre of mass lies, as a fraction of stature.
    ///
    /// Segment masses and centre-of-mass positions after Winter's anthropometric table: head and trunk 0.578 of the
    /// body's mass at 0.63 of the way from the hips to the shoulders (the head above them included), upper arms
    /// 0.028, forearms and hands 0.022, thighs 0.100, shanks 0.0465, feet 0.0145.
    func centreOfMassForward(side: BodySide) -> Double {
        let p = joints(side: side)
        func forward(_ joint: Joint) -> Double { p[joint]?.forward ?? 0 }
        func along(_ from: Joint, _ to: Joint, _ fraction: Double) -> Double {
            forward(from) + fraction * (forward(to) - forward(from))
        }
        var moment = 0.578 * along(.root, .neck, 0.63)
        var mass = 0.578
        for s in BodySide.allCases {
            moment += 0.028 * along(.shoulder(s), .elbow(s), 0.436) + 0.022 * along(.elbow(s), .wrist(s), 0.68)
            moment += 0.100 * along(.hip(s), .knee(s), 0.433) + 0.0465 * along(.knee(s), .ankle(s), 0.433)
            moment += 0.0145 * (forward(.ankle(s)) + 0.04)
            mass += 0.028 + 0.022 + 0.100 + 0.0465 + 0.0145
        }
        return moment / mass - forward(.ankle(side))
    }
}
