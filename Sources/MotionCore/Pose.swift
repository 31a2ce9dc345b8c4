/// One frame of body points from a 2D pose detector (docs/protocol.md §2).
///
/// Points are image pixels with y down; an absent joint means "not seen". The 19 slots live in fixed
/// inline storage with a presence mask, so a `Pose` is a plain value that never touches the heap.
///
/// ```swift
/// var pose = Pose(timestamp: 1.5, imageSize: ImageSize(width: 1280, height: 720))
/// pose[.rightElbow] = Point(x: 612, y: 380)
/// pose.setConfidence(0.9, for: .rightElbow)
/// pose[.rightElbow]        // Point(x: 612.0, y: 380.0)
/// pose[.rightWrist]        // nil: not seen
/// ```
public struct Pose: Sendable {
    /// Seconds on the client's clock; strictly increasing within a session.
    public var timestamp: Double
    /// The camera image size, needed for the placement checks that depend on the frame.
    public var imageSize: ImageSize?

    var points: JointSlots<Point>
    var confidences: JointSlots<Double>
    /// The joints present in this frame.
    public private(set) var seenJoints: JointSet
    var confidentJoints: JointSet

    /// Creates an empty pose: nobody in the frame.
    /// - Parameters:
    ///   - timestamp: Seconds on the client's clock.
    ///   - imageSize: The camera image size, if known.
    public init(timestamp: Double, imageSize: ImageSize? = nil) {
        self.timestamp = timestamp
        self.imageSize = imageSize
        self.points = JointSlots(repeating: Point(x: 0, y: 0))
        self.confidences = JointSlots(repeating: 0)
        self.seenJoints = []
        self.confidentJoints = []
    }

    /// Creates a pose from dictionaries, for tests and tools (decoders use the subscript).
    /// - Parameters:
    ///   - timestamp: Seconds on the client's clock.
    ///   - imageSize: The camera image size, if known.
    ///   - points: The seen joints.
    ///   - confidence: Per-joint confidence; entries for unseen joints are ignored.
    public init(
        timestamp: Double, imageSize: ImageSize? = nil, points: [Joint: Point], confidence: [Joint: Double] = [:]
    ) {
        self.init(timestamp: timestamp, imageSize: imageSize)
        for (joint, point) in points { self[joint] = point }
        for (joint, value) in confidence where seenJoints.contains(joint) { setConfidence(value, for: joint) }
    }

    /// The position of `joint`, or nil when it was not seen. Setting nil removes the joint and its confidence.
    public subscript(joint: Joint) -> Point? {
        get { seenJoints.contains(joint) ? points[joint] : nil }
        set {
            if let newValue {
                points[joint] = newValue
                seenJoints.insert(joint)
            } else {
                seenJoints.remove(joint)
                confidentJoints.remove(joint)
            }
        }
    }

    /// Sets or clears the detector's confidence for a seen joint.
    /// - Parameters:
    ///   - value: The confidence, usually 0…1, or nil when the detector gave none.
    ///   - joint: The joint; ignored when it is not seen.
    public mutating func setConfidence(_ value: Double?, for joint: Joint) {
        guard let value, seenJoints.contains(joint) else {
            confidentJoints.remove(joint)
            return
        }
        confidences[joint] = value
        confidentJoints.insert(joint)
    }

    /// The detector's confidence for `joint`, or nil when unseen or not given.
    /// - Parameter joint: The joint.
    public func confidence(of joint: Joint) -> Double? {
        confidentJoints.contains(joint) ? confidences[joint] : nil
    }

    /// The lowest confidence among the given joints that were seen with a confidence, or nil when none was.
    /// - Parameter joints: The joints to consider.
    /// - Complexity: O(number of joints in the set), no allocation.
    public func confidence(of joints: JointSet) -> Double? {
        var lowest: Double?
        for joint in joints.intersection(confidentJoints) {
            let value = confidences[joint]
            if lowest.map({ value < $0 }) ?? true { lowest = value }
        }
        return lowest
    }

    /// The lowest confidence among the given joints that were seen with a confidence, or nil when none was.
    /// - Parameter joints: The joints to consider.
    public func confidence(of joints: some Sequence<Joint>) -> Double? { confidence(of: JointSet(joints)) }

    /// Whether no joint was seen: the person left the frame.
    public var isEmpty: Bool { seenJoints.isEmpty }

    /// Whether the timestamp, the image size and every seen point are finite, and the image size positive.
    public var isFinite: Bool {
        guard timestamp.isFinite else { return false }
        if let imageSize {
            guard imageSize.width.isFinite, imageSize.height.isFinite, imageSize.width > 0, imageSize.height > 0
            else { return false }
        }
        for joint in seenJoints where !points[joint].isFinite { return false }
        for joint in confidentJoints where !confidences[joint].isFinite { return false }
        return true
    }

    /// The pose with left and right swapped, as seen through a mirrored (selfie) camera.
    ///
    /// Only the labels change: a point labelled left becomes the right joint at the same position.
    public func swappingSides() -> Pose {
        var swapped = Pose(timestamp: timestamp, imageSize: imageSize)
        for joint in seenJoints {
            swapped[joint.mirrored] = points[joint]
            swapped.setConfidence(confidence(of: joint), for: joint.mirrored)
        }
        return swapped
    }

    /// Fills `neck` and `root` from the shoulders and hips when they are missing and both parents were seen.
    ///
    /// A derived joint's confidence is the lower of its parents'.
    public mutating func deriveCentralJoints() {
        for (joint, parents) in Self.centralJointParents { derive(joint, from: parents.0, parents.1) }
    }

    /// The joints ``deriveCentralJoints()`` fills, each with the two joints it is the midpoint of.
    public static let centralJointParents: [(joint: Joint, parents: (Joint, Joint))] = [
        (.neck, (.leftShoulder, .rightShoulder)),
        (.root, (.leftHip, .rightHip)),
    ]

    private mutating func derive(_ joint: Joint, from first: Joint, _ second: Joint) {
        guard self[joint] == nil, let a = self[first], let b = self[second] else { return }
        self[joint] = a.midpoint(to: b)
        let confidences = (confidence(of: first), confidence(of: second))
        let lower = confidences.0.map { first in confidences.1.map { min(first, $0) } ?? first } ?? confidences.1
        setConfidence(lower, for: joint)
    }
}

extension Pose: Equatable {
    /// Two poses are equal when their time, image size, seen points and confidences are equal.
    public static func == (lhs: Pose, rhs: Pose) -> Bool {
        guard lhs.timestamp == rhs.timestamp, lhs.imageSize == rhs.imageSize, lhs.seenJoints == rhs.seenJoints,
            lhs.confidentJoints == rhs.confidentJoints
        else { return false }
        for joint in lhs.seenJoints where lhs.points[joint] != rhs.points[joint] { return false }
        for joint in lhs.confidentJoints where lhs.confidences[joint] != rhs.confidences[joint] {
            return false
        }
        return true
    }
}

extension Pose: CustomStringConvertible {
    /// A compact description listing the seen joints.
    public var description: String {
        let joints = seenJoints.map { joint in
            let p = points[joint]
            return "\(joint.rawValue)=(\(p.x), \(p.y))"
        }
        return "Pose(t: \(timestamp), \(joints.joined(separator: ", ")))"
    }
}
