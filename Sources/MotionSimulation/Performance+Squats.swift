import MotionCore

extension Performance {
    /// The squat family: closed-chain knee flexion with the feet on the floor and the trunk balancing over them.
    static let squats: [String: Performance] = [
        "squat": squatting,
        "miniSquat": squatting,
        "sitToStand": Performance(restValue: 92) { value, acting in
            // Standing up is a squat from the chair: the same legs and balance once the seat is left. Seated, the
            // chair carries the body and the trunk is upright; it leans into the balanced lean as the knees
            // extend from 90° to 60°, which puts the greatest lean soon after leaving the seat.
            var figure = squat(value, acting, collapsing: false)
            let leaving = min(1, max(0, (90 - value) / 30))
            figure.trunkLean = leaving * figure.trunkLean + (1 - leaving) * seatedTrunkLean
            collapseChest(&figure, shin: -figure.workingLeg.lower.angle, acting)
            return figure
        },
        "lunge": Performance { value, acting in lunge(value, acting) },
    ]

    /// A slight forward lean of the trunk sitting upright on a chair, degrees (negative forward).
    static let seatedTrunkLean = -8.0

    private static let squatting = Performance { value, acting in squat(value, acting) }

    /// Both legs at `value` of knee flexion with the heels down: the shins take `shinShare` of it, up to a
    /// weight-bearing dorsiflexion of 40° (docs/clinical.md, "Ankle dorsiflexion"), the thighs the rest, and the
    /// trunk leans as far forward as keeps the body balanced over the feet (with the default share, hip flexion is
    /// about 1.4× knee flexion at 90°). The fault folds the chest to 70° past the shin line (the family judges the
    /// trunk against the shin).
    static func squat(_ value: Double, _ acting: Acting, collapsing: Bool = true) -> Figure {
        var figure = Figure(anchor: .standing(view: .sagittal, side: acting.side), arms: acting.arms)
        let shin = min(max(acting.shinShare, 0) * value, Simulation.maxShinInclination)
        let legs = Figure.Limb.sagittal(value - shin, -shin)
        figure.workingLeg = legs
        figure.otherLeg = legs
        figure.trunkLean = figure.balancingTrunkLean(side: acting.side)
        if collapsing { collapseChest(&figure, shin: shin, acting) }
        return figure
    }

    /// The trunk folded towards 70° past the shin line with the fault's intensity.
    private static func collapseChest(_ figure: inout Figure, shin: Double, _ acting: Acting) {
        guard acting.acts(.keepTrunkUpright) else { return }
        let collapsed = -(shin + 70)
        figure.trunkLean += (collapsed - figure.trunkLean) * acting.intensity
    }

    /// How far apart the feet are in the split stance, and how far back of the front foot the hips go down,
    /// fractions of stature.
    static let lungeStance = (feet: 0.40, hips: 0.18)

    /// A split squat on the working (front) leg: the feet stay where they are, the hips go straight down between
    /// them, the front knee to `value` of flexion with the heel down, the back knee bends towards the floor with
    /// the back foot on its toes; the trunk leans forward with depth (about 13° at 90°), as in a lunge the long
    /// base of support keeps the body balanced without more.
    static func lunge(_ value: Double, _ acting: Acting) -> Figure {
        var figure = Figure(anchor: .standing(view: .sagittal, side: acting.side), arms: acting.arms)
        let lt = Figure.thighLength
        let ls = Figure.shankLength
        // Side-plane coordinates (forward, up) from the front ankle.
        let reach = (lt * lt + ls * ls + 2 * lt * ls * cosine(degrees: value)).squareRoot()
        let hip = (
            forward: -lungeStance.hips, up: (max(0, reach * reach - lungeStance.hips * lungeStance.hips)).squareRoot()
        )
        let front = knee(from: (0, 0), to: hip, lower: ls, upper: lt, towards: (1, 0))
        let backFoot = (forward: -lungeStance.feet, up: 0.04)
        let back = knee(from: backFoot, to: hip, lower: ls, upper: lt, towards: (1, 0))
        figure.workingLeg = .sagittal(direction(from: hip, to: front), direction(from: front, to: (0, 0)))
        figure.otherLeg = .sagittal(direction(from: hip, to: back), direction(from: back, to: backFoot))
        figure.trunkLean = -0.15 * value
        let shin = -direction(from: front, to: (0, 0))
        collapseChest(&figure, shin: shin, acting)
        return figure
    }

    /// The side-plane angle (the angle rule: from straight down, positive forward) of the line from `a` to `b`.
    static func direction(from a: (forward: Double, up: Double), to b: (forward: Double, up: Double)) -> Double {
        arcTangent(b.forward - a.forward, -(b.up - a.up))
    }

    /// The knee of a leg from `foot` to `hip` (segments `lower` and `upper` long), on the side of the foot–hip line
    /// that `towards` points to; a leg too short to reach is straight, pointing at the hip.
    static func knee(
        from foot: (forward: Double, up: Double), to hip: (forward: Double, up: Double), lower: Double, upper: Double,
        towards: (forward: Double, up: Double)
    ) -> (forward: Double, up: Double) {
        let dx = hip.forward - foot.forward
        let dy = hip.up - foot.up
        let distance = (dx * dx + dy * dy).squareRoot()
        let reach = min(distance, lower + upper - 1e-9)
        let along = (lower * lower - upper * upper + reach * reach) / (2 * reach)
        let across = max(0, lower * lower - along * along).squareRoot()
        let unit = (forward: dx / distance, up: dy / distance)
        var normal = (forward: unit.up, up: -unit.forward)
        if normal.forward * towards.forward + normal.up * towards.up < 0 { normal = (-normal.forward, -normal.up) }
        return (
            foot.forward + unit.forward * along + normal.forward * across,
            foot.up + unit.up * along + normal.up * across
        )
    }
}
