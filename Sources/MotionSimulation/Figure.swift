import MotionCore

/// A stick figure of adult proportions (fractions of stature, after Winter's anthropometric table), posed by the
/// directions of its segments and placed on the floor by an ``Anchor``.
///
/// Body coordinates are (lateral, up, forward) with lateral positive towards the person's left and the hip centre
/// at the origin. The figure is built upright in the pelvis's frame (trunk, head and limbs), then turned as a whole
/// by ``bodyPitch`` and ``bodyRoll``: lying on the back is a pitch of 90°, on the front −90°, on the working side a
/// roll of −90°.
///
/// Angles follow one rule everywhere: degrees from straight down, positive towards forward (side plane) or towards
/// the working side's outside (front plane), so that turning a segment by an angle adds to its angle.
struct Figure {
    /// A segment's direction: `angle` degrees from straight down, turned towards `plane` degrees around the vertical
    /// (0 forward, 90 out to the segment's own side).
    struct Direction {
        var angle: Double
        var plane: Double

        /// In the side plane: positive forward, negative backward.
        static func sagittal(_ angle: Double) -> Direction { Direction(angle: angle, plane: 0) }
        /// In the front plane: positive away from the midline, negative across it.
        static func frontal(_ angle: Double) -> Direction { Direction(angle: angle, plane: 90) }
        /// Straight down.
        static let down = Direction(angle: 0, plane: 0)

        /// The unit vector, for a segment on the side whose outside is `outward` (+1 left, −1 right).
        func vector(outward: Double) -> Vector {
            let s = sine(degrees: angle)
            return Vector(
                lateral: outward * s * sine(degrees: plane), up: -cosine(degrees: angle),
                forward: s * cosine(degrees: plane))
        }
    }

    /// An arm (upper arm, forearm) or a leg (thigh, shank).
    struct Limb {
        var upper: Direction
        var lower: Direction

        /// Both segments straight down.
        static let straight = Limb(upper: .down, lower: .down)
        /// Both segments in the side plane.
        static func sagittal(_ upper: Double, _ lower: Double) -> Limb {
            Limb(upper: .sagittal(upper), lower: .sagittal(lower))
        }
        /// Both segments in the front plane.
        static func frontal(_ upper: Double, _ lower: Double) -> Limb {
            Limb(upper: .frontal(upper), lower: .frontal(lower))
        }
    }

    /// How an arm is placed: held in a resting position, or posed segment by segment.
    enum Arm {
        case held(ArmPosition)
        case posed(Limb)
    }

    /// What holds the figure in place in the image: `horizontal` stays at the image centre plus `offset` (along the
    /// view's horizontal axis: forward in a side view, towards the person's left in a front view, in fractions of
    /// stature), and `vertical` at `height` above the floor.
    struct Anchor {
        var horizontal: Joint
        var vertical: Joint
        var height = 0.0
        var offset = 0.0

        /// Standing on one foot of `side`'s choosing: the working ankle in a side view, the other one in a front view
        /// (the working leg may lift), placed where it stands when the body is centred.
        static func standing(view: Exercise.View, side: BodySide) -> Anchor {
            switch view {
            case .sagittal: return Anchor(horizontal: .ankle(side), vertical: .ankle(side))
            case .frontal:
                let foot = side.opposite
                return Anchor(
                    horizontal: .ankle(foot), vertical: .ankle(foot), offset: (foot == .left ? 1 : -1) * hipHalf)
            }
        }

        /// The joint at `height` above the floor and `offset` from the image centre.
        static func resting(_ joint: Joint, height: Double, offset: Double = 0) -> Anchor {
            Anchor(horizontal: joint, vertical: joint, height: height, offset: offset)
        }
    }

    /// The trunk line's lean in the side plane (its direction from neck to hip centre, by the angle rule): positive
    /// leans back, negative forward.
    var trunkLean = 0.0
    /// The trunk line's lean in the front plane: positive away from the working side.
    var trunkSideLean = 0.0
    /// The head's tilt towards the working side, about the neck.
    var headTilt = 0.0
    /// The working shoulder raised (the other lowered) by this many degrees of tilt of the shoulder line against
    /// the trunk.
    var shoulderTilt = 0.0
    /// The working hip raised (the other lowered) by this many degrees of tilt of the hip line.
    var hipTilt = 0.0
    var workingArm = Arm.held(.atSides)
    var otherArm = Arm.held(.atSides)
    var workingLeg = Limb.straight
    var otherLeg = Limb.straight
    /// The whole body turned in the side plane by the angle rule: 90 lies on the back (head backward), −90 on the
    /// front (head forward).
    var bodyPitch = 0.0
    /// The whole body turned in the front plane by the angle rule: −90 lies on the working side.
    var bodyRoll = 0.0
    var anchor: Anchor

    /// A figure standing upright, the arms held at `arms`.
    init(anchor: Anchor, arms: ArmPosition = .atSides) {
        self.anchor = anchor
        workingArm = .held(arms)
        otherArm = .held(arms)
    }

    static let torso = 0.30
    static let shoulderHalf = 0.115
    static let hipHalf = 0.085
    static let upperArmLength = 0.186
    static let forearmLength = 0.146
    static let thighLength = 0.245
    static let shankLength = 0.246

    /// Body-frame positions of all 19 joints, as fractions of stature, hip centre at the origin; `side` is the
    /// working side.
    func joints(side: BodySide) -> [Joint: Vector] {
        let outward: Double = side == .left ? 1 : -1
        var p: [Joint: Vector] = [:]
        // The upper body is built upright, then leaned as a whole about the hip centre.
        func trunk(_ point: Vector) -> Vector {
            point.pitched(trunkLean).rolled(trunkSideLean, outward: outward)
        }
        let neck = Vector(lateral: 0, up: Self.torso, forward: 0)
        p[.root] = .zero
        p[.neck] = trunk(neck)
        func head(_ offset: Vector) -> Vector { trunk(neck + offset.rolled(-headTilt, outward: outward)) }
        p[.nose] = head(Vector(lateral: 0, up: 0.1, forward: 0.04))
        for s in BodySide.allCases {
            let lateral: Double = s == .left ? 1 : -1
            let raised: Double = s == side ? 1 : -1
            p[.eye(s)] = head(Vector(lateral: lateral * 0.03, up: 0.115, forward: 0.009))
            p[.ear(s)] = head(Vector(lateral: lateral * 0.05, up: 0.105, forward: -0.01))
            let shoulder = trunk(
                neck
                    + Vector(
                        lateral: lateral * cosine(degrees: shoulderTilt), up: raised * sine(degrees: shoulderTilt),
                        forward: 0) * Self.shoulderHalf)
            let hip =
                Vector(
                    lateral: lateral * cosine(degrees: hipTilt), up: raised * sine(degrees: hipTilt), forward: 0)
                * Self.hipHalf
            let (elbow, wrist) = arm(s == side ? workingArm : otherArm, side: s, shoulder: shoulder, hip: hip)
            let leg = s == side ? workingLeg : otherLeg
            let knee = hip + leg.upper.vector(outward: lateral) * Self.thighLength
            let ankle = knee + leg.lower.vector(outward: lateral) * Self.shankLength
            p[.shoulder(s)] = shoulder
            p[.elbow(s)] = elbow
            p[.wrist(s)] = wrist
            p[.hip(s)] = hip
            p[.knee(s)] = knee
            p[.ankle(s)] = ankle
        }
        guard bodyPitch != 0 || bodyRoll != 0 else { return p }
        return p.mapValues { $0.pitched(bodyPitch).rolled(bodyRoll, outward: outward) }
    }

    /// Elbow and wrist of the arm on `side`.
    private func arm(_ arm: Arm, side: BodySide, shoulder: Vector, hip: Vector) -> (elbow: Vector, wrist: Vector) {
        let lateral: Double = side == .left ? 1 : -1
        switch arm {
        case .posed(let limb):
            let elbow = shoulder + limb.upper.vector(outward: lateral) * Self.upperArmLength
            return (elbow, elbow + limb.lower.vector(outward: lateral) * Self.forearmLength)
        case .held(.atSides):
            let elbow = shoulder + Vector.down * Self.upperArmLength
            return (elbow, elbow + Vector.down * Self.forearmLength)
        case .held(.forward):
            let forward = Vector(lateral: 0, up: 0, forward: 1)
            let elbow = shoulder + forward * Self.upperArmLength
            return (elbow, elbow + forward * Self.forearmLength)
        case .held(.onHips):
            // The hand on the iliac crest, a little above and outside the hip joint; the elbow bends out sideways.
            let wrist = hip + Vector(lateral: lateral * 0.45, up: 0.89, forward: 0) * 0.07
            return (
                Self.elbow(from: shoulder, to: wrist, bendingTowards: Vector(lateral: lateral, up: 0, forward: 0)),
                wrist
            )
        case .held(.crossed):
            // The hand on the chest below the other shoulder, in the trunk's frame; the elbow bends forward and out.
            let neck = Vector(lateral: 0, up: Self.torso, forward: 0)
            let outward: Double = side == .left ? 1 : -1
            let chest = neck + Vector(lateral: -lateral * 0.07, up: -0.07, forward: 0.09)
            let wrist = chest.pitched(trunkLean).rolled(trunkSideLean, outward: outward)
            let bend = Vector(lateral: lateral, up: 0, forward: 1).pitched(trunkLean)
            return (Self.elbow(from: shoulder, to: wrist, bendingTowards: bend), wrist)
        }
    }

    /// The elbow of an arm from `shoulder` whose hand is at `wrist`, bent towards `bend` (square to the
    /// shoulder–hand line).
    private static func elbow(from shoulder: Vector, to wrist: Vector, bendingTowards bend: Vector) -> Vector {
        let reach = wrist - shoulder
        let distance = min(reach.length, upperArmLength + forearmLength - 1e-6)
        let toward = reach * (1 / reach.length)
        let along =
            (upperArmLength * upperArmLength - forearmLength * forearmLength + distance * distance)
            / (2 * distance)
        let height = max(0, upperArmLength * upperArmLength - along * along).squareRoot()
        let square = bend - toward * bend.dot(toward)
        return shoulder + toward * along + square * (height / square.length)
    }
}

/// A point or direction in body coordinates (lateral, up, forward), in fractions of stature.
struct Vector: Equatable {
    var lateral: Double
    var up: Double
    var forward: Double

    static let zero = Vector(lateral: 0, up: 0, forward: 0)
    static let down = Vector(lateral: 0, up: -1, forward: 0)

    static func + (a: Vector, b: Vector) -> Vector {
        Vector(lateral: a.lateral + b.lateral, up: a.up + b.up, forward: a.forward + b.forward)
    }

    static func - (a: Vector, b: Vector) -> Vector {
        Vector(lateral: a.lateral - b.lateral, up: a.up - b.up, forward: a.forward - b.forward)
    }

    static func * (a: Vector, k: Double) -> Vector {
        Vector(lateral: a.lateral * k, up: a.up * k, forward: a.forward * k)
    }

    func dot(_ other: Vector) -> Double { lateral * other.lateral + up * other.up + forward * other.forward }

    var length: Double { dot(self).squareRoot() }

    /// Turned in the side plane by `degrees` of the angle rule (a direction at angle a ends at a + `degrees`).
    func pitched(_ degrees: Double) -> Vector {
        guard degrees != 0 else { return self }
        let c = cosine(degrees: degrees)
        let s = sine(degrees: degrees)
        return Vector(lateral: lateral, up: up * c + forward * s, forward: forward * c - up * s)
    }

    /// Turned in the front plane by `degrees` of the angle rule for the side whose outside is `outward`.
    func rolled(_ degrees: Double, outward: Double) -> Vector {
        guard degrees != 0 else { return self }
        let c = cosine(degrees: degrees)
        let s = sine(degrees: degrees)
        let out = outward * lateral
        return Vector(lateral: outward * (out * c - up * s), up: up * c + out * s, forward: forward)
    }
}
