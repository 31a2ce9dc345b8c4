/// A form rule of an exercise that was broken (docs/protocol.md §1). Clients translate the raw values.
public enum FormFeedback: String, Sendable, Hashable, CaseIterable, Codable, BitIndexed {
    case keepUpperArmStill, keepThighStill, keepElbowStraight, keepTrunkUpright
    case keepShouldersLevel, keepKneeStraight, keepHipsLevel
    /// Plank and side plank: shoulders, hips and ankles out of line (the hips sagging or piking).
    case keepBodyStraight

    /// The case's position in declaration order.
    public var bitIndex: Int {
        switch self {
        case .keepUpperArmStill: 0
        case .keepThighStill: 1
        case .keepElbowStraight: 2
        case .keepTrunkUpright: 3
        case .keepShouldersLevel: 4
        case .keepKneeStraight: 5
        case .keepHipsLevel: 6
        case .keepBodyStraight: 7
        }
    }

    /// The case at a position in declaration order.
    /// - Parameter bitIndex: The position.
    public init?(bitIndex: Int) {
        guard Self.allCases.indices.contains(bitIndex) else { return nil }
        self = Self.allCases[bitIndex]
    }
}

/// A camera placement problem (docs/protocol.md §1). The empty set means the placement is good.
public enum SetupIssue: String, Sendable, Hashable, CaseIterable, Codable, BitIndexed {
    /// A required joint touches the image border, or the body fills the image height.
    case tooClose
    /// The torso is small in the image.
    case tooFar
    /// The body's centre is outside the middle of the image.
    case notCentered
    /// A frontal exercise seen from the side.
    case notFacing
    /// A sagittal exercise seen from the front.
    case notSideways
    /// At rest in another posture than the exercise starts in (standing for a seated exercise, say).
    case wrongPosture

    /// The case's position in declaration order.
    public var bitIndex: Int {
        switch self {
        case .tooClose: 0
        case .tooFar: 1
        case .notCentered: 2
        case .notFacing: 3
        case .notSideways: 4
        case .wrongPosture: 5
        }
    }

    /// The case at a position in declaration order.
    /// - Parameter bitIndex: The position.
    public init?(bitIndex: Int) {
        guard Self.allCases.indices.contains(bitIndex) else { return nil }
        self = Self.allCases[bitIndex]
    }
}

/// A set of form faults.
public typealias FormFeedbackSet = EnumSet<FormFeedback>

/// A set of setup issues.
public typealias SetupIssueSet = EnumSet<SetupIssue>
