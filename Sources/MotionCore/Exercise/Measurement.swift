/// A quantity measured on a pose: an angle in degrees with 0 at anatomical neutral (docs/clinical.md, "Angle
/// convention"), or a distance in lengths of a body segment, so that it reads the same at any camera distance
/// (docs/clinical.md, "Distance-type measures").
///
/// Measurements are data: they name joints relative to the working side and are resolved once per session.
public enum Measurement: Sendable, Hashable {
    /// What a measurement's values are.
    public enum Unit: String, Sendable, Hashable {
        /// Degrees.
        case degrees
        /// Lengths of the measurement's `per` segment as seen in the same pose.
        case segmentLengths
    }

    /// Flexion at a joint: 180° minus the angle proximal–joint–distal (0 = straight).
    case flexion(proximal: JointReference, joint: JointReference, distal: JointReference)
    /// The angle between the directions of two segments, 0…180°.
    case angleBetween(Segment, Segment)
    /// The angle of a segment from straight down in the image, 0…180° (assumes a level camera).
    case inclination(Segment)
    /// The angle of a line from horizontal, 0…90°, whichever way it points.
    case tilt(Segment)
    /// How far a line is from square to a reference segment, 0…90°, whichever way it turns: the shoulder line
    /// against the trunk is 0 however far the trunk leans, and a shrug tilts it.
    case tiltAgainst(Segment, reference: Segment)
    /// How much further a segment inclines from straight down than a reference segment: the inclination of the
    /// first minus that of the reference, −180…180° (negative when the first is nearer vertical).
    ///
    /// The squat family's trunk rule, `.inclinationBeyond(.trunk, reference: .shank)`: in a side view both the
    /// trunk and the shin lean forward from the feet, so this is the angle by which the trunk leans past the shin
    /// line (0 when they are parallel). Both inclinations are unsigned, so the value does not depend on which way
    /// the person faces; it assumes the two segments lean the same way, as they do in a squat.
    case inclinationBeyond(Segment, reference: Segment)
    /// How far a segment leans from vertical in the image, 0…90° whichever way it points, signed by the side its
    /// upper end leans to: positive towards the start of `reference`, a line across the body from the working side
    /// to the other (`hipLine`), negative away from it.
    ///
    /// Trunk side bend, `.lean(.trunk, reference: .hipLine)`: the trunk line (mid-shoulder to mid-hip) against
    /// vertical, as the spine line (C7 to sacrum) is measured clinically, towards the side measured. The shoulder
    /// line tilts about twice as far as the spine leans when the spine curves in a bend (docs/clinical.md).
    case lean(Segment, reference: Segment)
    /// The distance between two joints, in lengths of `per`, 0…10.
    case distance(JointReference, JointReference, per: Segment)
    /// How far `joint` is above `reference` in the image (negative below), in lengths of `per`, −10…10.
    case height(of: JointReference, above: JointReference, per: Segment)
    /// How far `joint` is above the lowest point it has been seen at in the session (the floor, for an ankle on
    /// it), in lengths of `per`, 0…10. The camera must stay still. The lowest point is taken from the joint's
    /// height settled over 0.2 s, so that detector jitter does not put the floor below the floor.
    case rise(of: JointReference, per: Segment)

    /// The unit of the values.
    public var unit: Unit {
        switch self {
        case .flexion, .angleBetween, .inclination, .tilt, .tiltAgainst, .inclinationBeyond, .lean: .degrees
        case .distance, .height, .rise: .segmentLengths
        }
    }

    /// Every value the measurement can read.
    public var range: ClosedRange<Double> {
        switch self {
        case .flexion, .angleBetween, .inclination: 0...180
        case .tilt, .tiltAgainst: 0...90
        case .inclinationBeyond: -180...180
        case .lean: -90...90
        case .distance, .rise: 0...10
        case .height: -10...10
        }
    }

    /// The joints the measurement names, relative to the working side, first mention first.
    public var namedJoints: [JointReference] {
        let named: [JointReference]
        switch self {
        case .flexion(let proximal, let joint, let distal): named = [proximal, joint, distal]
        case .angleBetween(let first, let second), .inclinationBeyond(let first, reference: let second),
            .tiltAgainst(let first, reference: let second), .lean(let first, reference: let second):
            named = [first.from, first.to, second.from, second.to]
        case .inclination(let segment), .tilt(let segment): named = [segment.from, segment.to]
        case .distance(let a, let b, let per): named = [a, b, per.from, per.to]
        case .height(let joint, let reference, let per): named = [joint, reference, per.from, per.to]
        case .rise(let joint, let per): named = [joint, per.from, per.to]
        }
        var unique: [JointReference] = []
        for reference in named where !unique.contains(reference) { unique.append(reference) }
        return unique
    }

    /// The joints the measurement needs, for an exercise done with `side`.
    /// - Parameter side: The working side.
    public func joints(side: BodySide) -> JointSet { resolve(side: side).joints }

    /// The measurement with concrete joints.
    /// - Parameter side: The working side.
    public func resolve(side: BodySide) -> ResolvedMeasurement {
        func pair(_ segment: Segment) -> (Joint, Joint) {
            (segment.from.resolve(side: side), segment.to.resolve(side: side))
        }
        func joint(_ reference: JointReference) -> Joint { reference.resolve(side: side) }
        switch self {
        case .flexion(let proximal, let middle, let distal):
            return ResolvedMeasurement(kind: .flexion(joint(proximal), joint(middle), joint(distal)))
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
        case .tiltAgainst(let segment, let reference):
            let (a, b) = pair(segment)
            let (c, d) = pair(reference)
            return ResolvedMeasurement(kind: .tiltAgainst(a, b, c, d))
        case .inclinationBeyond(let segment, let reference):
            let (a, b) = pair(segment)
            let (c, d) = pair(reference)
            return ResolvedMeasurement(kind: .inclinationBeyond(a, b, c, d))
        case .lean(let segment, let reference):
            let (a, b) = pair(segment)
            let (c, d) = pair(reference)
            return ResolvedMeasurement(kind: .lean(a, b, c, d))
        case .distance(let first, let second, let per):
            let (c, d) = pair(per)
            return ResolvedMeasurement(kind: .distance(joint(first), joint(second), c, d))
        case .height(let of, let above, let per):
            let (c, d) = pair(per)
            return ResolvedMeasurement(kind: .height(joint(of), joint(above), c, d))
        case .rise(let of, let per):
            let (c, d) = pair(per)
            return ResolvedMeasurement(kind: .rise(joint(of), c, d))
        }
    }
}

/// A ``Measurement`` bound to concrete joints, ready to evaluate on poses.
///
/// `rise` remembers the lowest point its joint has been seen at: evaluate it with ``measure(_:)``, once per pose.
public struct ResolvedMeasurement: Sendable, Hashable {
    /// `rise`: the time constant of the joint height the floor is taken from, seconds. A single pose's height is
    /// off by the detector's jitter, and the lowest of many jittery heights lies about three standard deviations
    /// below the floor (5 px at 1.5 px of noise, a twentieth of a shank); settled over 0.2 s the jitter shrinks to
    /// about a third, while a heel resting between raises settles well within the rest.
    public static let floorSettling = 0.2
    /// `rise`: poses further apart than this restart the settling, seconds.
    static let floorGap = 0.5

    enum Kind: Hashable {
        case flexion(Joint, Joint, Joint)
        case angleBetween(Joint, Joint, Joint, Joint)
        case inclination(Joint, Joint)
        case tilt(Joint, Joint)
        case tiltAgainst(Joint, Joint, Joint, Joint)
        case inclinationBeyond(Joint, Joint, Joint, Joint)
        case lean(Joint, Joint, Joint, Joint)
        case distance(Joint, Joint, Joint, Joint)
        case height(Joint, Joint, Joint, Joint)
        case rise(Joint, Joint, Joint)
    }

    let kind: Kind
    /// The joints the measurement needs.
    public let joints: JointSet
    /// `rise`: the largest settled image y (the lowest point) the joint has been seen at.
    private(set) var floor: Double?
    /// `rise`: the joint's image y settled over ``floorSettling``, and when it was last updated.
    private var settled: (y: Double, t: Double)?

    init(kind: Kind) {
        self.kind = kind
        switch kind {
        case .flexion(let a, let b, let c), .rise(let a, let b, let c): joints = [a, b, c]
        case .angleBetween(let a, let b, let c, let d), .inclinationBeyond(let a, let b, let c, let d),
            .tiltAgainst(let a, let b, let c, let d), .distance(let a, let b, let c, let d),
            .height(let a, let b, let c, let d), .lean(let a, let b, let c, let d):
            joints = [a, b, c, d]
        case .inclination(let a, let b), .tilt(let a, let b): joints = [a, b]
        }
    }

    /// The value in `pose`, remembering what a `rise` needs for the poses after it.
    /// - Parameter pose: The pose to measure.
    /// - Returns: The value, or nil when a joint is unseen or a segment has no length.
    /// - Complexity: O(1), no allocation.
    public mutating func measure(_ pose: Pose) -> Double? {
        if case .rise(let joint, _, _) = kind, let y = pose[joint]?.y {
            let t = pose.timestamp
            var level = y
            if let settled, t > settled.t, t - settled.t <= Self.floorGap {
                level = settled.y + (1 - exponential(-(t - settled.t) / Self.floorSettling)) * (y - settled.y)
            }
            settled = (level, t)
            floor = max(floor ?? level, level)
        }
        return value(in: pose)
    }

    /// Whether the measurement follows a floor (a `rise`), so must see every pose.
    public var followsFloor: Bool {
        if case .rise = kind { true } else { false }
    }

    func save(to writer: inout EngineStateWriter) {
        writer.write(floor)
        writer.write(settled?.y)
        if let settled { writer.write(settled.t) }
    }

    mutating func restore(from reader: inout EngineStateReader) throws(EngineStateError) {
        floor = try reader.readOptionalDouble()
        settled = try reader.readOptionalDouble().map { y throws(EngineStateError) in (y, try reader.readDouble()) }
    }

    /// Forgets the floor of a `rise`.
    public mutating func reset() {
        floor = nil
        settled = nil
    }

    /// Equal when the kind and the remembered floor are.
    public static func == (lhs: ResolvedMeasurement, rhs: ResolvedMeasurement) -> Bool {
        lhs.kind == rhs.kind && lhs.floor == rhs.floor && lhs.settled?.y == rhs.settled?.y
            && lhs.settled?.t == rhs.settled?.t
    }

    /// Hashes the kind and the remembered floor.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(kind)
        hasher.combine(floor)
        hasher.combine(settled?.y)
        hasher.combine(settled?.t)
    }

    /// The value in degrees or segment lengths, or nil when a joint is unseen or a segment has no length. A `rise`
    /// is measured against the floor seen so far, not updated by this pose (see ``measure(_:)``).
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
        case .tiltAgainst(let a, let b, let c, let d):
            guard let pa = pose[a], let pb = pose[b], let pc = pose[c], let pd = pose[d],
                let angle = Self.angle(pa.vector(to: pb), pc.vector(to: pd))
            else { return nil }
            return abs(90 - angle)
        case .inclinationBeyond(let a, let b, let c, let d):
            guard let pa = pose[a], let pb = pose[b], let pc = pose[c], let pd = pose[d],
                let first = Self.angle(pa.vector(to: pb), (0, 1)), let reference = Self.angle(pc.vector(to: pd), (0, 1))
            else { return nil }
            return first - reference
        case .lean(let a, let b, let c, let d):
            guard let pa = pose[a], let pb = pose[b], let pc = pose[c], let pd = pose[d] else { return nil }
            // The segment pointing up (image y grows downwards), and which way the reference's start lies.
            var (x, y) = pa.vector(to: pb)
            if y > 0 { (x, y) = (-x, -y) }
            let startSide = pc.x - pd.x
            guard x != 0 || y != 0, startSide != 0 else { return nil }
            let angle = atan2Degrees(abs(x), -y)
            return x * startSide >= 0 ? angle : -angle
        case .distance(let a, let b, let c, let d):
            guard let pa = pose[a], let pb = pose[b], let length = Self.length(c, d, in: pose) else { return nil }
            return min(10, pa.distance(to: pb) / length)
        case .height(let a, let b, let c, let d):
            guard let pa = pose[a], let pb = pose[b], let length = Self.length(c, d, in: pose) else { return nil }
            return min(10, max(-10, (pb.y - pa.y) / length))
        case .rise(let a, let c, let d):
            guard let pa = pose[a], let floor, let length = Self.length(c, d, in: pose) else { return nil }
            return min(10, max(0, (floor - pa.y) / length))
        }
    }

    /// The length of the segment from `a` to `b` in `pose`, nil when unseen or of no length.
    private static func length(_ a: Joint, _ b: Joint, in pose: Pose) -> Double? {
        guard let pa = pose[a], let pb = pose[b] else { return nil }
        let length = pa.distance(to: pb)
        return length > 0 ? length : nil
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
