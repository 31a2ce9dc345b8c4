/// A quantity measured on a pose, in degrees, with 0 at anatomical neutral (CLINICAL.md).
///
/// Measurements are data: they name joints relative to the working side and are resolved once per session.
public enum Measurement: Sendable, Hashable, Codable {
    /// Flexion at a joint: 180° minus the angle proximal–joint–distal (0 = straight).
    case flexion(proximal: JointReference, joint: JointReference, distal: JointReference)
    /// The angle between the directions of two segments, 0…180°.
    case angleBetween(Segment, Segment)
    /// The angle of a segment from straight down in the image, 0…180° (assumes a level camera).
    case inclination(Segment)
    /// The angle of a line from horizontal, 0…90°, whichever way it points.
    case tilt(Segment)
    /// How much further a segment inclines from straight down than a reference segment: the inclination of the
    /// first minus that of the reference, −180…180° (negative when the first is nearer vertical).
    ///
    /// The squat family's trunk rule, `.inclinationBeyond(.trunk, reference: .shank)`: in a side view both the
    /// trunk and the shin lean forward from the feet, so this is the angle by which the trunk leans past the shin
    /// line (0 when they are parallel). Both inclinations are unsigned, so the value does not depend on which way
    /// the person faces; it assumes the two segments lean the same way, as they do in a squat.
    case inclinationBeyond(Segment, reference: Segment)

    /// The joints the measurement needs, for an exercise done with `side`.
    /// - Parameter side: The working side.
    public func joints(side: BodySide) -> JointSet { resolve(side: side).joints }

    /// The measurement with concrete joints.
    /// - Parameter side: The working side.
    public func resolve(side: BodySide) -> ResolvedMeasurement {
        func pair(_ segment: Segment) -> (Joint, Joint) {
            (segment.from.resolve(side: side), segment.to.resolve(side: side))
        }
        switch self {
        case .flexion(let proximal, let joint, let distal):
            return ResolvedMeasurement(
                kind: .flexion(proximal.resolve(side: side), joint.resolve(side: side), distal.resolve(side: side)))
        case .angleBetween(let first, let second):
            let (a, b) = pair(first)
            let (c, d) = pair(second)
            return ResolvedMeasurement(kind: .angleBetween(a, b, c, d))
        case .inclination(let segment):
            let (a, b) = pair(segment)
            return ResolvedMeasurement(kind: .inclination(a, b))
        case .tilt(let segment):
            let (a, b) = pair(segment)
            return ResolvedMeasurement(kind: .tilt(a, b))
        case .inclinationBeyond(let segment, let reference):
            let (a, b) = pair(segment)
            let (c, d) = pair(reference)
            return ResolvedMeasurement(kind: .inclinationBeyond(a, b, c, d))
        }
    }
}

/// A ``Measurement`` bound to concrete joints, ready to evaluate on poses.
public struct ResolvedMeasurement: Sendable, Hashable {
    enum Kind: Hashable {
        case flexion(Joint, Joint, Joint)
        case angleBetween(Joint, Joint, Joint, Joint)
        case inclination(Joint, Joint)
        case tilt(Joint, Joint)
        case inclinationBeyond(Joint, Joint, Joint, Joint)
    }

    let kind: Kind
    /// The joints the measurement needs.
    public let joints: JointSet

    init(kind: Kind) {
        self.kind = kind
        switch kind {
        case .flexion(let a, let b, let c): joints = [a, b, c]
        case .angleBetween(let a, let b, let c, let d), .inclinationBeyond(let a, let b, let c, let d):
            joints = [a, b, c, d]
        case .inclination(let a, let b), .tilt(let a, let b): joints = [a, b]
        }
    }

    /// The value in degrees, or nil when a joint is unseen or a segment has no length.
    /// - Parameter pose: The pose to measure.
    /// - Complexity: O(1), no allocation.
    public func value(in pose: Pose) -> Double? {
        switch kind {
        case .flexion(let a, let b, let c):
            guard let pa = pose[a], let pb = pose[b], let pc = pose[c],
                let angle = Self.angle(pb.vector(to: pa), pb.vector(to: pc))
            else { return nil }
            return 180 - angle
        case .angleBetween(let a, let b, let c, let d):
            guard let pa = pose[a], let pb = pose[b], let pc = pose[c], let pd = pose[d] else { return nil }
            return Self.angle(pa.vector(to: pb), pc.vector(to: pd))
        case .inclination(let a, let b):
            guard let pa = pose[a], let pb = pose[b] else { return nil }
            return Self.angle(pa.vector(to: pb), (0, 1))
        case .tilt(let a, let b):
            guard let pa = pose[a], let pb = pose[b], let angle = Self.angle(pa.vector(to: pb), (1, 0)) else {
                return nil
            }
            return angle > 90 ? 180 - angle : angle
        case .inclinationBeyond(let a, let b, let c, let d):
            guard let pa = pose[a], let pb = pose[b], let pc = pose[c], let pd = pose[d],
                let first = Self.angle(pa.vector(to: pb), (0, 1)), let reference = Self.angle(pc.vector(to: pd), (0, 1))
            else { return nil }
            return first - reference
        }
    }

    /// The unsigned angle between two vectors in degrees, nil when either has no length.
    static func angle(_ u: (Double, Double), _ v: (Double, Double)) -> Double? {
        let cross = u.0 * v.1 - u.1 * v.0
        let dot = u.0 * v.0 + u.1 * v.1
        guard u.0 != 0 || u.1 != 0, v.0 != 0 || v.1 != 0 else { return nil }
        return atan2Degrees(abs(cross), dot)
    }
}

extension Point {
    func vector(to other: Point) -> (Double, Double) { (other.x - x, other.y - y) }
}
