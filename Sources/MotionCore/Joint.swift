/// One of the 19 body points of docs/protocol.md §1, in wire order.
///
/// The raw values are the wire names; `index` is the position in the compact `keypoints` form
/// and in ``Pose``'s fixed storage.
public enum Joint: String, Sendable, Hashable, CaseIterable, Codable, Comparable {
    case nose, leftEye, rightEye, leftEar, rightEar, neck, root
    case leftShoulder, rightShoulder, leftElbow, rightElbow, leftWrist, rightWrist
    case leftHip, rightHip, leftKnee, rightKnee, leftAnkle, rightAnkle

    /// The number of joints.
    public static let count = 19

    /// The position of this joint in wire order, `0..<19`.
    public var index: Int {
        switch self {
        case .nose: 0
        case .leftEye: 1
        case .rightEye: 2
        case .leftEar: 3
        case .rightEar: 4
        case .neck: 5
        case .root: 6
        case .leftShoulder: 7
        case .rightShoulder: 8
        case .leftElbow: 9
        case .rightElbow: 10
        case .leftWrist: 11
        case .rightWrist: 12
        case .leftHip: 13
        case .rightHip: 14
        case .leftKnee: 15
        case .rightKnee: 16
        case .leftAnkle: 17
        case .rightAnkle: 18
        }
    }

    /// The joint at a wire-order position, or nil outside `0..<19`.
    /// - Parameter index: The position in wire order.
    public init?(index: Int) {
        guard index >= 0, index < Joint.count else { return nil }
        self = Joint.allCases[index]
    }

    /// The side this joint belongs to, or nil for the central joints (nose, neck, root).
    public var side: BodySide? {
        switch self {
        case .nose, .neck, .root: nil
        case .leftEye, .leftEar, .leftShoulder, .leftElbow, .leftWrist, .leftHip, .leftKnee, .leftAnkle: .left
        default: .right
        }
    }

    /// The same joint on the other side of the body; central joints map to themselves.
    public var mirrored: Joint {
        switch self {
        case .nose, .neck, .root: self
        case .leftEye: .rightEye
        case .rightEye: .leftEye
        case .leftEar: .rightEar
        case .rightEar: .leftEar
        case .leftShoulder: .rightShoulder
        case .rightShoulder: .leftShoulder
        case .leftElbow: .rightElbow
        case .rightElbow: .leftElbow
        case .leftWrist: .rightWrist
        case .rightWrist: .leftWrist
        case .leftHip: .rightHip
        case .rightHip: .leftHip
        case .leftKnee: .rightKnee
        case .rightKnee: .leftKnee
        case .leftAnkle: .rightAnkle
        case .rightAnkle: .leftAnkle
        }
    }

    /// Orders joints by wire order.
    public static func < (lhs: Joint, rhs: Joint) -> Bool { lhs.index < rhs.index }

    /// The shoulder on `side`.
    public static func shoulder(_ side: BodySide) -> Joint { side == .left ? .leftShoulder : .rightShoulder }
    /// The elbow on `side`.
    public static func elbow(_ side: BodySide) -> Joint { side == .left ? .leftElbow : .rightElbow }
    /// The wrist on `side`.
    public static func wrist(_ side: BodySide) -> Joint { side == .left ? .leftWrist : .rightWrist }
    /// The hip on `side`.
    public static func hip(_ side: BodySide) -> Joint { side == .left ? .leftHip : .rightHip }
    /// The knee on `side`.
    public static func knee(_ side: BodySide) -> Joint { side == .left ? .leftKnee : .rightKnee }
    /// The ankle on `side`.
    public static func ankle(_ side: BodySide) -> Joint { side == .left ? .leftAnkle : .rightAnkle }
    /// The eye on `side`.
    public static func eye(_ side: BodySide) -> Joint { side == .left ? .leftEye : .rightEye }
    /// The ear on `side`.
    public static func ear(_ side: BodySide) -> Joint { side == .left ? .leftEar : .rightEar }
}
