/// How a session's poses are laid out on the wire: `format` in `start` (docs/protocol.md §4). Every format ends as the
/// 19 joints of §1 in image pixels, y down.
public enum InputFormat: String, Sendable, Hashable, CaseIterable {
    /// docs/protocol.md §2 as is: pixels, y down, a `points` object or the compact 19 × `[x, y, c]` `keypoints`.
    case joints
    /// Apple Vision: `points` normalised 0…1 with origin bottom-left; needs `width` and `height`.
    case vision
    /// BlazePose: 33 × `[x, y, visibility]` `keypoints`, normalised 0…1, origin top-left; needs `width`/`height`.
    case mediapipe
    /// COCO: 17 × `[x, y, score]` `keypoints` in pixels, or normalised with `normalized: true`.
    case coco

    /// The confidence below which a joint counts as unseen when `start` gives no `minConfidence`:
    /// 0.5 for `mediapipe`, 0.3 for `coco`, none (keep every joint sent) for `joints` and `vision`.
    public var defaultMinConfidence: Double? {
        switch self {
        case .joints, .vision: nil
        case .mediapipe: 0.5
        case .coco: 0.3
        }
    }

    /// What the format's coordinates are measured in.
    public enum Coordinates: String, Sendable {
        /// Image pixels.
        case pixels
        /// Fractions 0…1 of the image's `width` and `height`.
        case normalized
        /// Pixels, or normalised when `start` says `"normalized": true`.
        case pixelsOrNormalized
    }

    /// What the coordinates are measured in.
    public var coordinates: Coordinates {
        switch self {
        case .joints: .pixels
        case .vision, .mediapipe: .normalized
        case .coco: .pixelsOrNormalized
        }
    }

    /// Whether y grows upwards from the image's bottom edge (Apple Vision) rather than down from its top.
    public var isYUp: Bool { self == .vision }

    /// Whether `neck` and `root` are derived from the shoulders and hips (``Pose/centralJointParents``): the
    /// formats whose keypoints do not have them.
    public var derivesCentralJoints: Bool { self == .mediapipe || self == .coco }
}
