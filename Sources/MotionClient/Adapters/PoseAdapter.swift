public import MotionCore
public import MotionWire

/// One detector point before conversion: coordinates as the detector gives them, and its confidence.
public struct DetectedPoint: Sendable, Hashable {
    /// The horizontal coordinate.
    public var x: Double
    /// The vertical coordinate.
    public var y: Double
    /// The detector's confidence (Vision's `confidence`, MediaPipe's `visibility`, COCO's `score`), 0…1.
    public var confidence: Double

    /// Creates a point.
    public init(x: Double, y: Double, confidence: Double) {
        self.x = x
        self.y = y
        self.confidence = confidence
    }
}

/// Converts detector output into the ``Pose`` the engine and the server take (docs/protocol.md §2): image pixels with y
/// down, anatomical sides, only trusted points. Pure functions: the same conversions the server applies to its
/// `vision`, `mediapipe` and `coco` input formats (§4), done on the phone so poses can go as `joints` (and binary).
public enum PoseAdapter {
    /// Converts Apple Vision points: normalised 0…1 with the origin at the bottom left.
    ///
    /// x = x·width, y = (1 − y)·height. A point below `minConfidence` is left out (unseen). With `mirrored` (a front
    /// camera's selfie image) the pose is un-mirrored: x = width − x, and left and right swap, so `leftElbow` is the
    /// patient's own left elbow where the unmirrored camera would see it.
    ///
    /// ```swift
    /// let pose = PoseAdapter.pose(
    ///     vision: [.rightElbow: DetectedPoint(x: 0.5, y: 0.25, confidence: 0.9)], timestamp: 1.0,
    ///     imageSize: ImageSize(width: 1280, height: 720))
    /// pose[.rightElbow]   // Point(x: 640.0, y: 540.0)
    /// ```
    /// - Parameters:
    ///   - points: The detected joints, normalised, bottom-left origin.
    ///   - timestamp: Seconds on the app's clock.
    ///   - imageSize: The camera image size in pixels.
    ///   - mirrored: Whether the image is mirrored (front camera preview).
    ///   - minConfidence: The confidence below which a point is dropped. Default 0.3.
    /// - Returns: The pose.
    public static func pose(
        vision points: [Joint: DetectedPoint], timestamp: Double, imageSize: ImageSize, mirrored: Bool = false,
        minConfidence: Double = 0.3
    ) -> Pose {
        var pose = Pose(timestamp: timestamp, imageSize: imageSize)
        for (joint, point) in points where point.confidence >= minConfidence {
            guard point.x.isFinite, point.y.isFinite else { continue }
            pose[joint] = Point(x: point.x * imageSize.width, y: (1 - point.y) * imageSize.height)
            pose.setConfidence(point.confidence, for: joint)
        }
        return mirrored ? unmirrored(pose) : pose
    }

    /// Converts BlazePose's 33 landmarks (MediaPipe): normalised 0…1, origin top-left, `visibility` as confidence.
    ///
    /// Landmarks are read as docs/protocol.md §4 lists (``KeypointLayout/joints(of:)``); `neck` and `root` are the
    /// midpoints of the shoulders and hips when both are seen.
    /// - Parameters:
    ///   - landmarks: The landmarks in BlazePose order (extra entries are ignored, missing ones unseen).
    ///   - timestamp: Seconds on the app's clock.
    ///   - imageSize: The camera image size in pixels.
    ///   - mirrored: Whether the image is mirrored (front camera preview).
    ///   - minConfidence: The visibility below which a landmark is dropped. Default 0.5, as the server's.
    /// - Returns: The pose.
    public static func pose(
        mediaPipe landmarks: [DetectedPoint], timestamp: Double, imageSize: ImageSize, mirrored: Bool = false,
        minConfidence: Double = InputFormat.mediapipe.defaultMinConfidence ?? 0.5
    ) -> Pose {
        pose(
            keypoints: landmarks, layout: KeypointLayout.joints(of: .mediapipe), timestamp: timestamp,
            imageSize: imageSize, scale: (imageSize.width, imageSize.height), mirrored: mirrored,
            minConfidence: minConfidence)
    }

    /// Converts the 17 COCO keypoints (MoveNet, OpenPose-COCO, ML Kit's subset), in pixels or normalised 0…1,
    /// origin top-left.
    /// - Parameters:
    ///   - keypoints: The keypoints in COCO order.
    ///   - timestamp: Seconds on the app's clock.
    ///   - imageSize: The camera image size in pixels.
    ///   - normalized: Whether the coordinates are 0…1 rather than pixels.
    ///   - mirrored: Whether the image is mirrored (front camera preview).
    ///   - minConfidence: The score below which a keypoint is dropped. Default 0.3, as the server's.
    /// - Returns: The pose.
    public static func pose(
        coco keypoints: [DetectedPoint], timestamp: Double, imageSize: ImageSize, normalized: Bool = false,
        mirrored: Bool = false, minConfidence: Double = InputFormat.coco.defaultMinConfidence ?? 0.3
    ) -> Pose {
        pose(
            keypoints: keypoints, layout: KeypointLayout.joints(of: .coco), timestamp: timestamp, imageSize: imageSize,
            scale: normalized ? (imageSize.width, imageSize.height) : (1, 1), mirrored: mirrored,
            minConfidence: minConfidence)
    }

    private static func pose(
        keypoints: [DetectedPoint], layout: [Joint?], timestamp: Double, imageSize: ImageSize,
        scale: (Double, Double), mirrored: Bool, minConfidence: Double
    ) -> Pose {
        var pose = Pose(timestamp: timestamp, imageSize: imageSize)
        for (point, joint) in zip(keypoints, layout) {
            guard let joint, point.confidence >= minConfidence, point.x.isFinite, point.y.isFinite else { continue }
            pose[joint] = Point(x: point.x * scale.0, y: point.y * scale.1)
            pose.setConfidence(point.confidence, for: joint)
        }
        pose.deriveCentralJoints()
        return mirrored ? unmirrored(pose) : pose
    }

    /// The pose as the unmirrored camera sees it: x flipped within the image, and sides swapped.
    static func unmirrored(_ pose: Pose) -> Pose {
        let swapped = pose.swappingSides()
        guard let width = pose.imageSize?.width else { return swapped }
        var result = Pose(timestamp: pose.timestamp, imageSize: pose.imageSize)
        for joint in swapped.seenJoints {
            guard let point = swapped[joint] else { continue }
            result[joint] = Point(x: width - point.x, y: point.y)
            result.setConfidence(swapped.confidence(of: joint), for: joint)
        }
        return result
    }
}
