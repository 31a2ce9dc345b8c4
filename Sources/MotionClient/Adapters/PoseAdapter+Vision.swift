#if canImport(Vision)
public import MotionCore
public import Vision

extension PoseAdapter {
    /// Vision's joint names, in the order of docs/protocol.md §1.
    static let visionJoints: [(VNHumanBodyPoseObservation.JointName, Joint)] = [
        (.nose, .nose), (.leftEye, .leftEye), (.rightEye, .rightEye), (.leftEar, .leftEar),
        (.rightEar, .rightEar), (.neck, .neck), (.root, .root), (.leftShoulder, .leftShoulder),
        (.rightShoulder, .rightShoulder), (.leftElbow, .leftElbow), (.rightElbow, .rightElbow),
        (.leftWrist, .leftWrist), (.rightWrist, .rightWrist), (.leftHip, .leftHip), (.rightHip, .rightHip),
        (.leftKnee, .leftKnee), (.rightKnee, .rightKnee), (.leftAnkle, .leftAnkle), (.rightAnkle, .rightAnkle),
    ]

    /// Converts a body pose observation of Apple Vision, through ``pose(vision:timestamp:imageSize:mirrored:minConfidence:)``.
    /// - Parameters:
    ///   - observation: The observation.
    ///   - timestamp: Seconds on the app's clock (the frame's presentation time).
    ///   - imageSize: The size in pixels of the image Vision analysed.
    ///   - mirrored: Whether that image is mirrored (front camera preview).
    ///   - minConfidence: The confidence below which a point is dropped. Default 0.3.
    /// - Returns: The pose; empty when Vision has no points.
    public static func pose(
        _ observation: VNHumanBodyPoseObservation, timestamp: Double, imageSize: ImageSize,
        mirrored: Bool = false, minConfidence: Double = 0.3
    ) -> Pose {
        let recognized = (try? observation.recognizedPoints(.all)) ?? [:]
        var points: [Joint: DetectedPoint] = [:]
        for (name, joint) in visionJoints {
            guard let point = recognized[name] else { continue }
            points[joint] = DetectedPoint(
                x: Double(point.location.x), y: Double(point.location.y), confidence: Double(point.confidence))
        }
        return pose(
            vision: points, timestamp: timestamp, imageSize: imageSize, mirrored: mirrored,
            minConfidence: minConfidence)
    }
}
#endif
