import MotionCore
import MotionWire

/// Writes poses as a client using each input format would send them (docs/protocol.md §4), so a simulated session can
/// be replayed through the wire decoder in every format.
enum FormatEncoding {
    /// BlazePose landmark index of each joint the format carries (`neck` and `root` are derived by the server).
    static let mediapipeIndex: [Joint: Int] = [
        .nose: 0, .leftEye: 2, .rightEye: 5, .leftEar: 7, .rightEar: 8, .leftShoulder: 11, .rightShoulder: 12,
        .leftElbow: 13, .rightElbow: 14, .leftWrist: 15, .rightWrist: 16, .leftHip: 23, .rightHip: 24,
        .leftKnee: 25, .rightKnee: 26, .leftAnkle: 27, .rightAnkle: 28,
    ]

    /// COCO keypoint index of each joint the format carries.
    static let cocoIndex: [Joint: Int] = [
        .nose: 0, .leftEye: 1, .rightEye: 2, .leftEar: 3, .rightEar: 4, .leftShoulder: 5, .rightShoulder: 6,
        .leftElbow: 7, .rightElbow: 8, .leftWrist: 9, .rightWrist: 10, .leftHip: 11, .rightHip: 12, .leftKnee: 13,
        .rightKnee: 14, .leftAnkle: 15, .rightAnkle: 16,
    ]

    /// The `pose` message for `pose` in `format`. Joints the format derives (`neck`, `root` in `mediapipe` and
    /// `coco`) are left out; an unseen joint is sent with confidence 0 in the array formats. `pose` must have an
    /// image size.
    static func message(_ pose: Pose, format: InputFormat) -> [UInt8] {
        let size = pose.imageSize ?? ImageSize(width: 1, height: 1)
        var out: [UInt8] = []
        out.appendLiteral(#"{"type":"pose","t":"#)
        out.appendJSONNumber(pose.timestamp)
        out.appendLiteral(#","width":"#)
        out.appendJSONNumber(size.width)
        out.appendLiteral(#","height":"#)
        out.appendJSONNumber(size.height)
        switch format {
        case .joints, .vision:
            out.appendLiteral(#","points":{"#)
            var first = true
            for joint in Joint.allCases {
                guard let point = pose[joint] else { continue }
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                out.appendJSONString(joint.rawValue)
                out.appendLiteral(":[")
                if format == .vision {
                    out.appendJSONNumber(point.x / size.width)
                    out.append(UInt8(ascii: ","))
                    out.appendJSONNumber(1 - point.y / size.height)
                } else {
                    out.appendJSONNumber(point.x)
                    out.append(UInt8(ascii: ","))
                    out.appendJSONNumber(point.y)
                }
                out.append(UInt8(ascii: "]"))
            }
            out.appendLiteral(#"},"confidence":{"#)
            first = true
            for joint in Joint.allCases {
                guard pose[joint] != nil, let confidence = pose.confidence(of: [joint]) else { continue }
                if !first { out.append(UInt8(ascii: ",")) }
                first = false
                out.appendJSONString(joint.rawValue)
                out.append(UInt8(ascii: ":"))
                out.appendJSONNumber(confidence)
            }
            out.append(UInt8(ascii: "}"))
        case .mediapipe, .coco:
            let index = format == .mediapipe ? mediapipeIndex : cocoIndex
            var triples = [(Double, Double, Double)](repeating: (0, 0, 0), count: format == .mediapipe ? 33 : 17)
            for (joint, position) in index {
                guard let point = pose[joint] else { continue }
                let confidence = pose.confidence(of: [joint]) ?? 0.9
                triples[position] =
                    format == .mediapipe
                    ? (point.x / size.width, point.y / size.height, confidence) : (point.x, point.y, confidence)
            }
            out.appendLiteral(#","keypoints":["#)
            for (position, triple) in triples.enumerated() {
                if position > 0 { out.append(UInt8(ascii: ",")) }
                out.appendJSONNumber(triple.0)
                out.append(UInt8(ascii: ","))
                out.appendJSONNumber(triple.1)
                out.append(UInt8(ascii: ","))
                out.appendJSONNumber(triple.2)
            }
            out.append(UInt8(ascii: "]"))
        }
        out.append(UInt8(ascii: "}"))
        return out
    }

    /// Every pose of `poses` sent in `format` and decoded as the server decodes a session started with it.
    static func roundTrip(_ poses: [Pose], format: InputFormat) throws -> [Pose] {
        let decoder = PoseDecoder(format: format)
        return try poses.map { pose throws(WireError) in try decoder.decodePose(message(pose, format: format)) }
    }
}
