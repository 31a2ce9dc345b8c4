import Testing

@testable import MotionCore

@Suite("Pose")
struct PoseTests {
    private static let size = ImageSize(width: 1280, height: 720)

    @Test func subscriptSetsAndGetsAPoint() {
        var pose = Pose(timestamp: 1, imageSize: Self.size)
        #expect(pose.isEmpty)
        #expect(pose[.rightElbow] == nil)
        pose[.rightElbow] = Point(x: 612, y: 380)
        #expect(pose[.rightElbow] == Point(x: 612, y: 380))
        #expect(pose[.leftElbow] == nil)
        #expect(pose.seenJoints == [.rightElbow])
        #expect(!pose.isEmpty)
        pose[.rightElbow] = Point(x: 1, y: 2)
        #expect(pose[.rightElbow] == Point(x: 1, y: 2))
    }

    @Test func settingNilRemovesTheJointAndItsConfidence() {
        var pose = Pose(timestamp: 1)
        pose[.leftKnee] = Point(x: 10, y: 20)
        pose.setConfidence(0.8, for: .leftKnee)
        #expect(pose.confidence(of: .leftKnee) == 0.8)
        pose[.leftKnee] = nil
        #expect(pose[.leftKnee] == nil)
        #expect(pose.confidence(of: .leftKnee) == nil)
        #expect(pose.isEmpty)
        // Seen again without a new confidence: the old one does not come back.
        pose[.leftKnee] = Point(x: 10, y: 20)
        #expect(pose.confidence(of: .leftKnee) == nil)
    }

    @Test func settingNilConfidenceClearsIt() {
        var pose = Pose(timestamp: 1, points: [.nose: Point(x: 1, y: 1)], confidence: [.nose: 0.5])
        pose.setConfidence(nil, for: .nose)
        #expect(pose.confidence(of: .nose) == nil)
        #expect(pose[.nose] == Point(x: 1, y: 1))
    }

    @Test func confidenceOfASetIsTheLowestAmongJointsSeenWithConfidence() {
        var pose = Pose(timestamp: 1)
        pose[.rightShoulder] = Point(x: 0, y: 0)  // seen, no confidence
        pose[.rightElbow] = Point(x: 0, y: 10)
        pose[.rightWrist] = Point(x: 0, y: 20)
        pose.setConfidence(0.9, for: .rightElbow)
        pose.setConfidence(0.4, for: .rightWrist)
        #expect(pose.confidence(of: [.rightShoulder, .rightElbow, .rightWrist] as JointSet) == 0.4)
        #expect(pose.confidence(of: [.rightShoulder, .rightElbow] as JointSet) == 0.9)
        #expect(pose.confidence(of: [.rightWrist, .rightElbow, .leftKnee] as JointSet) == 0.4)
        #expect(pose.confidence(of: [Joint.rightWrist, .rightElbow]) == 0.4)
    }

    @Test func confidenceOfASetIsNilWhenNoneHasConfidence() {
        var pose = Pose(timestamp: 1)
        pose[.rightShoulder] = Point(x: 0, y: 0)
        pose[.rightElbow] = Point(x: 0, y: 10)
        pose.setConfidence(0.7, for: .rightElbow)
        #expect(pose.confidence(of: [.rightShoulder] as JointSet) == nil)
        #expect(pose.confidence(of: [.leftAnkle, .leftKnee] as JointSet) == nil)
        #expect(pose.confidence(of: [] as JointSet) == nil)
    }

    @Test func confidenceIsIgnoredForUnseenJoints() {
        var pose = Pose(timestamp: 1)
        pose.setConfidence(0.5, for: .nose)
        #expect(pose.confidence(of: .nose) == nil)
        pose[.nose] = Point(x: 3, y: 4)
        #expect(pose.confidence(of: .nose) == nil)

        let fromDictionaries = Pose(
            timestamp: 1, points: [.nose: Point(x: 3, y: 4)], confidence: [.nose: 0.6, .leftEye: 0.1])
        #expect(fromDictionaries.confidence(of: .nose) == 0.6)
        #expect(fromDictionaries.confidence(of: .leftEye) == nil)
        #expect(fromDictionaries.confidence(of: [.nose, .leftEye] as JointSet) == 0.6)
    }

    @Test func aWellFormedPoseIsFinite() {
        let pose = Pose(
            timestamp: 12.5, imageSize: Self.size, points: [.neck: Point(x: 640, y: 200)], confidence: [.neck: 0.9])
        #expect(pose.isFinite)
        #expect(Pose(timestamp: 0).isFinite)
    }

    enum Corruption: String, CaseIterable, Sendable {
        case nanTimestamp, infiniteTimestamp, nanX, infiniteY, nanConfidence, infiniteConfidence
        case zeroWidth, zeroHeight, negativeWidth, infiniteHeight, nanWidth
    }

    @Test(arguments: Corruption.allCases)
    func isFiniteRejects(_ corruption: Corruption) {
        var pose = Pose(
            timestamp: 3, imageSize: Self.size, points: [.root: Point(x: 640, y: 400)], confidence: [.root: 0.8])
        switch corruption {
        case .nanTimestamp: pose.timestamp = .nan
        case .infiniteTimestamp: pose.timestamp = .infinity
        case .nanX: pose[.root] = Point(x: .nan, y: 400)
        case .infiniteY: pose[.root] = Point(x: 640, y: -.infinity)
        case .nanConfidence: pose.setConfidence(.nan, for: .root)
        case .infiniteConfidence: pose.setConfidence(.infinity, for: .root)
        case .zeroWidth: pose.imageSize = ImageSize(width: 0, height: 720)
        case .zeroHeight: pose.imageSize = ImageSize(width: 1280, height: 0)
        case .negativeWidth: pose.imageSize = ImageSize(width: -1280, height: 720)
        case .infiniteHeight: pose.imageSize = ImageSize(width: 1280, height: .infinity)
        case .nanWidth: pose.imageSize = ImageSize(width: .nan, height: 720)
        }
        #expect(!pose.isFinite)
    }

    @Test func nonFiniteValuesInRemovedSlotsDoNotCount() {
        var pose = Pose(timestamp: 1)
        pose[.root] = Point(x: .nan, y: .nan)
        pose.setConfidence(.nan, for: .root)
        #expect(!pose.isFinite)
        pose[.root] = nil
        #expect(pose.isFinite)
    }

    @Test func swappingSidesSwapsLabelsAndKeepsPositions() {
        let pose = Pose(
            timestamp: 2, imageSize: Self.size,
            points: [
                .leftShoulder: Point(x: 100, y: 50), .rightElbow: Point(x: 300, y: 80), .neck: Point(x: 200, y: 40),
            ],
            confidence: [.leftShoulder: 0.3, .neck: 0.6])
        let swapped = pose.swappingSides()
        #expect(swapped.timestamp == 2)
        #expect(swapped.imageSize == Self.size)
        #expect(swapped.seenJoints == [.rightShoulder, .leftElbow, .neck])
        #expect(swapped[.rightShoulder] == Point(x: 100, y: 50))
        #expect(swapped[.leftElbow] == Point(x: 300, y: 80))
        #expect(swapped[.neck] == Point(x: 200, y: 40))
        #expect(swapped[.leftShoulder] == nil)
        #expect(swapped[.rightElbow] == nil)
        #expect(swapped.confidence(of: .rightShoulder) == 0.3)
        #expect(swapped.confidence(of: .leftElbow) == nil)
        #expect(swapped.confidence(of: .neck) == 0.6)
        #expect(swapped.swappingSides() == pose)
    }

    @Test func deriveCentralJointsUsesMidpointsAndTheLowerConfidence() {
        var pose = Pose(
            timestamp: 1,
            points: [
                .leftShoulder: Point(x: 100, y: 50), .rightShoulder: Point(x: 200, y: 70),
                .leftHip: Point(x: 110, y: 300), .rightHip: Point(x: 190, y: 310),
            ],
            confidence: [.leftShoulder: 0.9, .rightShoulder: 0.6, .leftHip: 0.5, .rightHip: 0.8])
        pose.deriveCentralJoints()
        #expect(pose[.neck] == Point(x: 150, y: 60))
        #expect(pose[.root] == Point(x: 150, y: 305))
        #expect(pose.confidence(of: .neck) == 0.6)
        #expect(pose.confidence(of: .root) == 0.5)
    }

    @Test func deriveCentralJointsWithoutParentConfidenceGivesNone() {
        var pose = Pose(
            timestamp: 1, points: [.leftShoulder: Point(x: 100, y: 50), .rightShoulder: Point(x: 200, y: 70)])
        pose.deriveCentralJoints()
        #expect(pose[.neck] == Point(x: 150, y: 60))
        #expect(pose.confidence(of: .neck) == nil)
    }

    @Test func deriveCentralJointsNeedsBothParents() {
        var pose = Pose(
            timestamp: 1,
            points: [.leftShoulder: Point(x: 100, y: 50), .rightHip: Point(x: 190, y: 310)],
            confidence: [.leftShoulder: 0.9, .rightHip: 0.8])
        let before = pose
        pose.deriveCentralJoints()
        #expect(pose[.neck] == nil)
        #expect(pose[.root] == nil)
        #expect(pose == before)
    }

    @Test func deriveCentralJointsNeverOverwritesAGivenNeck() {
        var pose = Pose(
            timestamp: 1,
            points: [
                .leftShoulder: Point(x: 100, y: 50), .rightShoulder: Point(x: 200, y: 70),
                .neck: Point(x: 160, y: 30),
            ],
            confidence: [.leftShoulder: 0.9, .rightShoulder: 0.6, .neck: 0.95])
        pose.deriveCentralJoints()
        #expect(pose[.neck] == Point(x: 160, y: 30))
        #expect(pose.confidence(of: .neck) == 0.95)
        #expect(pose[.root] == nil)
    }

    @Test func equalityIgnoresValuesInUnseenSlots() {
        var used = Pose(timestamp: 1, points: [.nose: Point(x: 1, y: 2)], confidence: [.nose: 0.5])
        used[.leftWrist] = Point(x: 99, y: 99)
        used.setConfidence(0.1, for: .leftWrist)
        used[.leftWrist] = nil
        let fresh = Pose(timestamp: 1, points: [.nose: Point(x: 1, y: 2)], confidence: [.nose: 0.5])
        #expect(used == fresh)

        var withoutConfidence = fresh
        withoutConfidence.setConfidence(nil, for: .nose)
        var reset = withoutConfidence
        reset.setConfidence(0.2, for: .nose)
        reset.setConfidence(nil, for: .nose)
        #expect(reset == withoutConfidence)
    }

    @Test func equalityComparesTimeImageSizePointsAndConfidences() {
        let base = Pose(
            timestamp: 1, imageSize: Self.size, points: [.nose: Point(x: 1, y: 2)], confidence: [.nose: 0.5])
        var other = base
        other.timestamp = 2
        #expect(other != base)
        other = base
        other.imageSize = nil
        #expect(other != base)
        other = base
        other[.nose] = Point(x: 1, y: 3)
        #expect(other != base)
        other = base
        other.setConfidence(0.6, for: .nose)
        #expect(other != base)
        other = base
        other.setConfidence(nil, for: .nose)
        #expect(other != base)
        other = base
        other[.neck] = Point(x: 0, y: 0)
        #expect(other != base)
    }

    @Test func storageIsInlineAndFixedSize() {
        #expect(MemoryLayout<Pose>.size < 512)
        // Inline storage: the size grows with the slots, not a reference to a buffer.
        #expect(MemoryLayout<Pose>.size >= Joint.count * MemoryLayout<Point>.size)
    }
}
