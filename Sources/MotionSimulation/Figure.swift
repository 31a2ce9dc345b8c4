import MotionCore

/// A stick figure in one plane of motion, posed by angles, with adult proportions (fractions of stature,
/// after Winter's anthropometric table).
///
/// Angles are degrees from straight down, positive towards the plane's axis: forward for a side view, away from
/// the midline on the working side for a front view. Body coordinates are (lateral, up, forward) with lateral
/// positive towards the person's left.
struct Figure {
    enum Anchor {
        /// Keep this ankle on the ground at a fixed place.
        case ankle(BodySide)
        /// Keep the hip centre at a fixed height (seated).
        case seated
    }

    var trunkLean = 0.0
    var upperArm = 0.0
    var forearm = 0.0
    var thigh = 0.0
    var shank = 0.0
    /// Working-side shoulder raised by this many degrees of shoulder-line tilt.
    var shoulderTilt = 0.0
    /// Working-side hip raised by this many degrees of hip-line tilt.
    var hipTilt = 0.0
    /// Both legs move together (squat) instead of the working leg alone.
    var bothLegs = false
    /// Whether the working arm follows ``upperArm`` and ``forearm``; arms that do not are held at ``restingArms``.
    var movesArm = false
    /// Where the arms the exercise does not move are held.
    var restingArms = ArmPosition.atSides
    /// Non-working thigh angle (seated: 90, thighs forward).
    var restingThigh = 0.0
    /// Non-working shank angle.
    var restingShank = 0.0
    var anchor = Anchor.ankle(.left)

    static let torso = 0.30
    static let neckToNose = 0.10
    static let shoulderHalf = 0.115
    static let hipHalf = 0.085
    static let upperArmLength = 0.186
    static let forearmLength = 0.146
    static let thighLength = 0.245
    static let shankLength = 0.246

    typealias Vector = (lateral: Double, up: Double, forward: Double)

    /// Body-frame positions of all 19 joints, as fractions of stature, root at the origin.
    func joints(view: Exercise.View, side: BodySide) -> [Joint: Vector] {
        // The plane's axis in body coordinates.
        let outward: Double = side == .left ? 1 : -1
        func direction(_ degrees: Double, _ outward: Double) -> Vector {
            Self.direction(degrees, view: view, outward: outward)
        }
        func add(_ a: Vector, _ b: Vector, _ scale: Double) -> Vector {
            (a.lateral + b.lateral * scale, a.up + b.up * scale, a.forward + b.forward * scale)
        }
        var p: [Joint: Vector] = [:]
        let root: Vector = (0, 0, 0)
        // A positive lean tilts the trunk away from the working side in a front view, backwards in a side view.
        let trunk: Vector =
            view == .frontal
            ? (-outward * sine(degrees: trunkLean), cosine(degrees: trunkLean), 0)
            : (0, cosine(degrees: trunkLean), -sine(degrees: trunkLean))
        let neckPoint = add(root, trunk, Self.torso)
        p[.root] = root
        p[.neck] = neckPoint
        let rise = { (tilt: Double, half: Double) in 2 * half * sine(degrees: tilt) / 2 }
        for s in BodySide.allCases {
            let lateral: Double = s == .left ? 1 : -1
            let working = s == side
            let shoulderRaise = working ? rise(shoulderTilt, Self.shoulderHalf) : -rise(shoulderTilt, Self.shoulderHalf)
            let hipRaise = working ? rise(hipTilt, Self.hipHalf) : -rise(hipTilt, Self.hipHalf)
            // The shoulder line stays square to the trunk: a frontal lean tilts it with the trunk.
            let across: Vector =
                view == .frontal ? (cosine(degrees: trunkLean), outward * sine(degrees: trunkLean), 0) : (1, 0, 0)
            let shoulder = add(add(neckPoint, across, lateral * Self.shoulderHalf), (0, 1, 0), shoulderRaise)
            let hip = add(add(root, (lateral, 0, 0), Self.hipHalf), (0, 1, 0), hipRaise)
            let legMoves = working || bothLegs
            let legAngles = legMoves ? (thigh, shank) : (restingThigh, restingShank)
            let elbow: Vector
            let wrist: Vector
            if working && movesArm {
                elbow = add(shoulder, direction(upperArm, lateral), Self.upperArmLength)
                wrist = add(elbow, direction(forearm, lateral), Self.forearmLength)
            } else {
                (elbow, wrist) = Self.arm(restingArms, shoulder: shoulder, hip: hip, lateral: lateral)
            }
            let knee = add(hip, direction(legAngles.0, lateral), Self.thighLength)
            let ankle = add(knee, direction(legAngles.1, lateral), Self.shankLength)
            p[.shoulder(s)] = shoulder
            p[.elbow(s)] = elbow
            p[.wrist(s)] = wrist
            p[.hip(s)] = hip
            p[.knee(s)] = knee
            p[.ankle(s)] = ankle
            p[.eye(s)] = add(add(neckPoint, trunk, 0.115), (lateral, 0, 0.3), 0.03)
            p[.ear(s)] = add(add(neckPoint, trunk, 0.105), (lateral, 0, -0.2), 0.05)
        }
        p[.nose] = add(add(neckPoint, trunk, Self.neckToNose), (0, 0, 1), 0.04)
        return p
    }

    /// Elbow and wrist of an arm held at `position`, hanging from `shoulder`.
    private static func arm(
        _ position: ArmPosition, shoulder: Vector, hip: Vector, lateral: Double
    ) -> (elbow: Vector, wrist: Vector) {
        func along(_ from: Vector, _ unit: Vector, _ length: Double) -> Vector {
            (from.lateral + unit.lateral * length, from.up + unit.up * length, from.forward + unit.forward * length)
        }
        switch position {
        case .atSides:
            let elbow = along(shoulder, (0, -1, 0), upperArmLength)
            return (elbow, along(elbow, (0, -1, 0), forearmLength))
        case .forward:
            let elbow = along(shoulder, (0, 0, 1), upperArmLength)
            return (elbow, along(elbow, (0, 0, 1), forearmLength))
        case .onHips:
            // The hand on the iliac crest, a little above and outside the hip joint; the elbow bends out sideways.
            let wrist = along(hip, (lateral * 0.45, 0.89, 0), 0.07)
            let reach = (wrist.lateral - shoulder.lateral, wrist.up - shoulder.up, wrist.forward - shoulder.forward)
            let distance = min(
                (reach.0 * reach.0 + reach.1 * reach.1 + reach.2 * reach.2).squareRoot(),
                upperArmLength + forearmLength - 1e-6)
            let toward: Vector = (reach.0 / distance, reach.1 / distance, reach.2 / distance)
            let a =
                (upperArmLength * upperArmLength - forearmLength * forearmLength + distance * distance)
                / (2 * distance)
            let h = max(0, upperArmLength * upperArmLength - a * a).squareRoot()
            // Out to the side, square to the shoulder–hand line.
            let out: Vector = (lateral, 0, 0)
            let dot = out.lateral * toward.lateral + out.up * toward.up + out.forward * toward.forward
            var bend: Vector = (
                out.lateral - dot * toward.lateral, out.up - dot * toward.up, out.forward - dot * toward.forward
            )
            let norm = (bend.lateral * bend.lateral + bend.up * bend.up + bend.forward * bend.forward).squareRoot()
            bend = (bend.lateral / norm, bend.up / norm, bend.forward / norm)
            let elbow = along(along(shoulder, toward, a), bend, h)
            return (elbow, wrist)
        }
    }

    private static func direction(_ degrees: Double, view: Exercise.View, outward: Double) -> Vector {
        let s = sine(degrees: degrees)
        let c = cosine(degrees: degrees)
        switch view {
        case .frontal: return (outward * s, -c, 0)
        case .sagittal: return (0, -c, s)
        }
    }
}
