/// How a session's poses are laid out on the wire: `format` in `start` (PROTOCOL.md §4). Every format ends as the
/// 19 joints of §1 in image pixels, y down.
public enum InputFormat: String, Sendable, Hashable, CaseIterable {
    /// PROTOCOL.md §2 as is: pixels, y down, a `points` object or the compact 19 × `[x, y, c]` `keypoints`.
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
}
