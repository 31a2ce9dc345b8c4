public import MotionCore

/// The keypoint arrays of the input formats (docs/protocol.md §4): which joint each `[x, y, c]` triple is, so a client
/// that converts on the device reads them exactly as the server does.
///
/// ```swift
/// KeypointLayout.joints(of: .coco)[5]        // .leftShoulder
/// KeypointLayout.joints(of: .mediapipe)[1]   // nil: BlazePose's left inner eye is not used
/// ```
public enum KeypointLayout {
    /// The joint of each keypoint of `format`, in array order; nil for a keypoint that is not used.
    /// - Parameter format: The input format (`joints` and `vision` are the 19 joints of docs/protocol.md §1 in order).
    /// - Returns: 19 entries for `joints` and `vision`, 33 for `mediapipe`, 17 for `coco`.
    public static func joints(of format: InputFormat) -> [Joint?] { RawJoints.layout(of: format) }
}
