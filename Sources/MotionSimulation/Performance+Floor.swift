import MotionCore

extension Performance {
    /// Exercises lying on the floor: on the back (heel slide, straight-leg raise, bridge), on the front (plank) and
    /// on the side (side plank).
    static let floor: [String: Performance] = [
        "heelSlide": Performance { value, acting in
            // On the back, the heel sliding along the bed: with thigh and shank of (nearly) one length, the heel
            // stays at the hip's depth when the hip flexes half as far as the knee.
            var figure = supine(acting)
            figure.workingLeg = .sagittal(value / 2, -value / 2)
            return figure
        },
        "straightLegRaise": Performance { value, acting in
            // On the back, the other knee bent with its foot flat; a bent knee is the fault.
            var figure = supine(acting)
            figure.workingLeg = .sagittal(value, value - acting.amount(.keepKneeStraight, 35))
            figure.otherLeg = .sagittal(45, -45)
            return figure
        },
        "gluteBridge": bridging,
        "gluteBridgeHold": bridging,
        "plankHold": Performance(restValue: 0) { value, acting in plank(value, acting) },
        "sidePlankHold": Performance(restValue: 0) { value, acting in sidePlank(value, acting) },
    ]

    /// Lying on the back, seen from the side: the hips on the floor, the head backward.
    private static func supine(_ acting: Acting) -> Figure {
        var figure = Figure(anchor: .resting(.root, height: floorClearance), arms: acting.arms)
        figure.bodyPitch = 90
        return figure
    }

    /// The height of the joints of a body lying on the floor (half its thickness at the hips and shoulders),
    /// fractions of stature.
    static let floorClearance = 0.05
    /// The height of the lower hip of a body lying on its side: the pelvis is wider than it is deep.
    static let sideClearance = 0.07
    /// The height of an elbow resting on the floor, and of an ankle on its toes.
    static let elbowClearance = 0.03
    static let toesClearance = 0.05

    // MARK: Bridge

    /// Hip and knee flexion with the hips down, degrees: they place the feet.
    static let bridgeRest = (hip: 47.0, knee: 100.0)

    private static let bridging = Performance(restValue: bridgeRest.hip) { value, acting in bridge(value, acting) }

    /// A bridge at `value` of hip flexion (trunk line to thigh): the shoulders and feet stay on the floor, the hips
    /// rise as the trunk turns about the shoulders. No fault: the bridge's rules are not visible from the side.
    static func bridge(_ value: Double, _ acting: Acting) -> Figure {
        let t = Figure.torso
        let lt = Figure.thighLength
        let ls = Figure.shankLength
        // Side-plane coordinates (along the body towards the feet, up) from the neck.
        let restKnee = (
            along: t + lt * cosine(degrees: bridgeRest.hip), up: lt * sine(degrees: bridgeRest.hip)
        )
        let shank = bridgeRest.hip - bridgeRest.knee
        let foot = (
            along: restKnee.along + ls * cosine(degrees: shank), up: restKnee.up + ls * sine(degrees: shank)
        )
        func pose(_ elevation: Double) -> (hip: (Double, Double), knee: (Double, Double), flexion: Double) {
            let hip = (t * cosine(degrees: elevation), t * sine(degrees: elevation))
            // The knee up, away from the floor.
            let knee = Performance.knee(
                from: (forward: foot.along, up: foot.up), to: (forward: hip.0, up: hip.1), lower: ls, upper: lt,
                towards: (0, 1))
            let trunk = arcTangent(hip.1, hip.0)
            let thigh = arcTangent(knee.up - hip.1, knee.forward - hip.0)
            return (hip, (knee.forward, knee.up), thigh - trunk)
        }
        // Hip flexion falls as the trunk rises: bisect the trunk's elevation.
        var low = 0.0
        var high = 60.0
        for _ in 0..<40 {
            let middle = (low + high) / 2
            if pose(middle).flexion > value { low = middle } else { high = middle }
        }
        let elevation = (low + high) / 2
        let (hip, knee, _) = pose(elevation)
        var figure = Figure(
            anchor: .resting(.neck, height: floorClearance, offset: -0.3), arms: acting.arms)
        // Lying on the back with the head backward, the body's "down" points forward along the floor.
        figure.bodyPitch = 90 + elevation
        func bodyAngle(_ from: (Double, Double), _ to: (Double, Double)) -> Double {
            arcTangent(to.0 - from.0, -(to.1 - from.1)) - figure.bodyPitch
        }
        let legs = Figure.Limb.sagittal(bodyAngle(hip, knee), bodyAngle(knee, (foot.along, foot.up)))
        figure.workingLeg = legs
        figure.otherLeg = legs
        return figure
    }

    // MARK: Planks

    /// A forearm plank, seen from the side, with the hips `value` trunk lengths above the floor: elbows under the
    /// shoulders, forearms forward on the floor, legs straight to the toes. The body is straight at about 0.34;
    /// the fault pikes the hips up (so that the hold goes on while the body line breaks).
    static func plank(_ value: Double, _ acting: Acting) -> Figure {
        let t = Figure.torso
        let legLength = Figure.thighLength + Figure.shankLength
        let shoulder = elbowClearance + Figure.upperArmLength
        let hipHeight = floorClearance + value * t + acting.amount(.keepBodyStraight, 0.09)
        // Side-plane coordinates (forward, up), forward towards the head; the shoulders above the elbows.
        let drop = min(t, abs(shoulder - hipHeight))
        let hip = (forward: -(t * t - drop * drop).squareRoot(), up: hipHeight)
        let legDrop = max(0, min(legLength, hipHeight - toesClearance))
        let ankle = (
            forward: hip.forward - (legLength * legLength - legDrop * legDrop).squareRoot(), up: toesClearance
        )
        var figure = Figure(anchor: .resting(.elbow(acting.side), height: elbowClearance, offset: 0.35))
        // Lying on the front: the body's up (hip to neck) along the line from the hips to the shoulders.
        figure.bodyPitch = direction(from: hip, to: (0, shoulder)) - 180
        let legs = direction(from: hip, to: ankle) - figure.bodyPitch
        figure.workingLeg = .sagittal(legs, legs)
        figure.otherLeg = .sagittal(legs, legs)
        let arms = Figure.Arm.posed(.sagittal(-figure.bodyPitch, 90 - figure.bodyPitch))
        figure.workingArm = arms
        figure.otherArm = arms
        return figure
    }

    /// A side plank on the working side's forearm, seen from the front, with the lower hip `value` trunk lengths
    /// above the floor: the upper arm vertical under the shoulder, the forearm pointing at the camera, the legs
    /// straight with the feet stacked. The body is straight at about 0.32; the fault pikes the hips up.
    static func sidePlank(_ value: Double, _ acting: Acting) -> Figure {
        let legLength = Figure.thighLength + Figure.shankLength
        let side = acting.side
        let outward: Double = side == .left ? 1 : -1
        let hipHeight = sideClearance + value * Figure.torso + acting.amount(.keepBodyStraight, 0.08)
        func figure(tilt: Double) -> Figure {
            var figure = Figure(
                anchor: .resting(.elbow(side), height: elbowClearance, offset: outward * 0.38), arms: acting.arms)
            figure.bodyRoll = -90 + tilt
            figure.workingArm = .posed(Figure.Limb(upper: .frontal(-figure.bodyRoll), lower: .sagittal(90)))
            return figure
        }
        func height(_ figure: Figure) -> Double {
            let p = figure.joints(side: side)
            return (p[.hip(side)]?.up ?? 0) - (p[.elbow(side)]?.up ?? 0) + elbowClearance
        }
        // The lower hip comes down as the body line tilts further from horizontal: bisect the tilt.
        var low = 0.0
        var high = 70.0
        for _ in 0..<40 {
            let middle = (low + high) / 2
            if height(figure(tilt: middle)) > hipHeight { low = middle } else { high = middle }
        }
        let tilt = (low + high) / 2
        var posed = figure(tilt: tilt)
        // The legs from the hips down to the floor, feet stacked: in the body's frame, turned by their drop.
        let legDrop = arcSine((hipHeight - toesClearance) / legLength)
        let legs = legDrop - tilt
        posed.workingLeg = .frontal(legs, legs)
        posed.otherLeg = .frontal(-legs, -legs)
        return posed
    }
}
