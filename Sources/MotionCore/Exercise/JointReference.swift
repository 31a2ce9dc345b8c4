/// A joint named relative to an exercise's working side, so one catalog entry serves both sides.
///
/// Encoded as a string: `"elbow"` is the working side's elbow, `"opposite.shoulder"` the other side's shoulder,
/// `"neck"`, `"root"` and `"nose"` are central.
public struct JointReference: Sendable, Hashable, CustomStringConvertible {
    /// A body part, without its side.
    public enum Part: String, Sendable, Hashable, CaseIterable {
        case nose, neck, root, eye, ear, shoulder, elbow, wrist, hip, knee, ankle
    }

    /// The body part.
    public var part: Part
    /// Whether the joint is on the side opposite to the working side (ignored for central parts).
    public var isOpposite: Bool

    /// Creates a reference.
    /// - Parameters:
    ///   - part: The body part.
    ///   - isOpposite: Whether it is on the non-working side.
    public init(_ part: Part, isOpposite: Bool = false) {
        self.part = part
        self.isOpposite = isOpposite && !part.isCentral
    }

    /// The same part on the other side.
    public var opposite: JointReference { JointReference(part, isOpposite: !isOpposite) }

    /// The concrete joint for an exercise done with `side`.
    /// - Parameter side: The working side.
    public func resolve(side: BodySide) -> Joint {
        let actual = isOpposite ? side.opposite : side
        switch part {
        case .nose: return .nose
        case .neck: return .neck
        case .root: return .root
        case .eye: return .eye(actual)
        case .ear: return .ear(actual)
        case .shoulder: return .shoulder(actual)
        case .elbow: return .elbow(actual)
        case .wrist: return .wrist(actual)
        case .hip: return .hip(actual)
        case .knee: return .knee(actual)
        case .ankle: return .ankle(actual)
        }
    }

    /// `"elbow"`, `"opposite.shoulder"`, `"neck"`.
    public var description: String { (isOpposite ? "opposite." : "") + part.rawValue }

    /// Parses the string form: `"elbow"`, `"opposite.shoulder"`, `"neck"`; nil for anything else.
    /// - Parameter text: The name.
    public init?(_ text: String) {
        let opposite = text.hasPrefix("opposite.")
        guard let part = Part(rawValue: opposite ? String(text.dropFirst("opposite.".count)) : text),
            !(opposite && part.isCentral)
        else { return nil }
        self.init(part, isOpposite: opposite)
    }

    /// The nose.
    public static let nose = JointReference(.nose)
    /// The shoulder centre.
    public static let neck = JointReference(.neck)
    /// The hip centre.
    public static let root = JointReference(.root)
    /// The working side's shoulder.
    public static let shoulder = JointReference(.shoulder)
    /// The working side's elbow.
    public static let elbow = JointReference(.elbow)
    /// The working side's wrist.
    public static let wrist = JointReference(.wrist)
    /// The working side's hip.
    public static let hip = JointReference(.hip)
    /// The working side's knee.
    public static let knee = JointReference(.knee)
    /// The working side's ankle.
    public static let ankle = JointReference(.ankle)
}

extension JointReference.Part {
    /// Whether the part lies on the body's midline.
    public var isCentral: Bool { self == .nose || self == .neck || self == .root }
}

/// A body segment: the directed line from one joint to another.
public struct Segment: Sendable, Hashable, CustomStringConvertible {
    /// Where the segment starts.
    public var from: JointReference
    /// Where the segment ends.
    public var to: JointReference

    /// Creates a segment.
    /// - Parameters:
    ///   - from: Where it starts.
    ///   - to: Where it ends.
    public init(from: JointReference, to: JointReference) {
        self.from = from
        self.to = to
    }

    /// `"neck→root"`.
    public var description: String { "\(from)→\(to)" }

    /// The trunk line, mid-shoulder to mid-hip.
    public static let trunk = Segment(from: .neck, to: .root)
    /// Shoulder to elbow.
    public static let upperArm = Segment(from: .shoulder, to: .elbow)
    /// Elbow to wrist.
    public static let forearm = Segment(from: .elbow, to: .wrist)
    /// Hip to knee.
    public static let thigh = Segment(from: .hip, to: .knee)
    /// Knee to ankle.
    public static let shank = Segment(from: .knee, to: .ankle)
    /// Working shoulder to the other shoulder.
    public static let shoulderLine = Segment(from: .shoulder, to: .shoulder.opposite)
    /// Working hip to the other hip.
    public static let hipLine = Segment(from: .hip, to: .hip.opposite)
    /// Working-side ear to the other ear.
    public static let earLine = Segment(from: JointReference(.ear), to: JointReference(.ear, isOpposite: true))

    /// The segments with a name (`"trunk"`, `"upperArm"`…), which definitions may use instead of two joints.
    public static let named: [(name: String, segment: Segment)] = [
        ("trunk", .trunk), ("upperArm", .upperArm), ("forearm", .forearm), ("thigh", .thigh), ("shank", .shank),
        ("shoulderLine", .shoulderLine), ("hipLine", .hipLine), ("earLine", .earLine),
    ]
}
