import MotionClient
import MotionCore
import Testing

/// The pure conversions from detector output to ``Pose`` (docs/protocol.md §2, §4).
@Suite("pose adapters")
struct PoseAdapterTests {
    static let size = ImageSize(width: 1000, height: 500)

    @Test func convertsVisionPointsToPixelsWithYDown() {
        let pose = PoseAdapter.pose(
            vision: [
                .rightElbow: DetectedPoint(x: 0.25, y: 0.2, confidence: 0.9),
                .rightWrist: DetectedPoint(x: 0.5, y: 1, confidence: 0.8),
            ], timestamp: 2.5, imageSize: Self.size)
        #expect(pose.timestamp == 2.5)
        #expect(pose.imageSize == Self.size)
        #expect(pose[.rightElbow] == Point(x: 250, y: 400))
        #expect(pose[.rightWrist] == Point(x: 500, y: 0))
        #expect(pose.confidence(of: .rightElbow) == 0.9)
        #expect(pose.seenJoints == [.rightElbow, .rightWrist])
    }

    @Test func dropsLowConfidenceVisionPoints() {
        let pose = PoseAdapter.pose(
            vision: [
                .leftHip: DetectedPoint(x: 0.5, y: 0.5, confidence: 0.29),
                .rightHip: DetectedPoint(x: 0.5, y: 0.5, confidence: 0.3),
                .nose: DetectedPoint(x: .nan, y: 0.5, confidence: 1),
            ], timestamp: 0, imageSize: Self.size)
        #expect(pose.seenJoints == [.rightHip])
        let strict = PoseAdapter.pose(
            vision: [.rightHip: DetectedPoint(x: 0.5, y: 0.5, confidence: 0.6)], timestamp: 0, imageSize: Self.size,
            minConfidence: 0.7)
        #expect(strict.isEmpty)
    }

    @Test func unmirrorsAFrontCameraImage() {
        // In the selfie image the patient's right elbow appears on the image's left and is labelled left.
        let pose = PoseAdapter.pose(
            vision: [.leftElbow: DetectedPoint(x: 0.2, y: 0.5, confidence: 1)], timestamp: 0, imageSize: Self.size,
            mirrored: true)
        #expect(pose.seenJoints == [.rightElbow])
        #expect(pose[.rightElbow] == Point(x: 800, y: 250))
        #expect(pose.confidence(of: .rightElbow) == 1)
    }

    @Test func readsMediaPipeLandmarksByTheirBlazePoseIndex() {
        var landmarks = [DetectedPoint](repeating: DetectedPoint(x: 0.9, y: 0.9, confidence: 0.1), count: 33)
        landmarks[0] = DetectedPoint(x: 0.5, y: 0.1, confidence: 0.99)
        landmarks[11] = DetectedPoint(x: 0.6, y: 0.3, confidence: 0.9)
        landmarks[12] = DetectedPoint(x: 0.4, y: 0.3, confidence: 0.9)
        landmarks[14] = DetectedPoint(x: 0.3, y: 0.5, confidence: 0.4)
        landmarks[1] = DetectedPoint(x: 0.5, y: 0.1, confidence: 1)
        let pose = PoseAdapter.pose(mediaPipe: landmarks, timestamp: 1, imageSize: Self.size)
        #expect(pose.seenJoints == [.nose, .leftShoulder, .rightShoulder, .neck])
        #expect(pose[.nose] == Point(x: 500, y: 50))
        #expect(pose[.leftShoulder] == Point(x: 600, y: 150))
        #expect(pose[.neck] == Point(x: 500, y: 150))
        #expect(pose.confidence(of: .neck) == 0.9)
    }

    @Test func readsCOCOKeypointsInPixelsOrNormalised() {
        var keypoints = [DetectedPoint](repeating: DetectedPoint(x: 0, y: 0, confidence: 0), count: 17)
        keypoints[11] = DetectedPoint(x: 420, y: 300, confidence: 0.8)
        keypoints[12] = DetectedPoint(x: 380, y: 300, confidence: 0.31)
        keypoints[16] = DetectedPoint(x: 390, y: 480, confidence: 0.2)
        let pixels = PoseAdapter.pose(coco: keypoints, timestamp: 0, imageSize: Self.size)
        #expect(pixels.seenJoints == [.leftHip, .rightHip, .root])
        #expect(pixels[.root] == Point(x: 400, y: 300))
        let normalized = PoseAdapter.pose(
            coco: keypoints.map { DetectedPoint(x: $0.x / 1000, y: $0.y / 500, confidence: $0.confidence) },
            timestamp: 0, imageSize: Self.size, normalized: true)
        #expect(normalized[.leftHip] == Point(x: 420, y: 300))
        let mirrored = PoseAdapter.pose(coco: keypoints, timestamp: 0, imageSize: Self.size, mirrored: true)
        #expect(mirrored[.rightHip] == Point(x: 580, y: 300))
    }

    @Test func ignoresMissingAndExtraKeypoints() {
        let short = PoseAdapter.pose(
            coco: [DetectedPoint(x: 10, y: 20, confidence: 1)], timestamp: 0, imageSize: Self.size)
        #expect(short.seenJoints == [.nose])
        let long = PoseAdapter.pose(
            coco: Array(repeating: DetectedPoint(x: 10, y: 20, confidence: 1), count: 40), timestamp: 0,
            imageSize: Self.size)
        #expect(long.seenJoints.count == 19)
    }
}
