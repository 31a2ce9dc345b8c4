import MotionCore
import MotionSimulation
import Testing

@testable import MotionWire

@Suite("Binary pose frames (docs/protocol.md §3.2)")
struct BinaryPoseFrameTests {
    static let decoder = PoseDecoder()

    static func frame(_ pose: Pose) -> [UInt8] {
        var bytes: [UInt8] = []
        BinaryPoseFrame.encode(pose, into: &bytes)
        return bytes
    }

    /// `pose` as the frame carries it: coordinates narrowed to Float, confidences to 255ths.
    static func narrowed(_ pose: Pose) -> Pose {
        var result = Pose(timestamp: pose.timestamp, imageSize: pose.imageSize)
        for joint in pose.seenJoints {
            guard let point = pose[joint] else { continue }
            result[joint] = Point(x: Double(Float(point.x)), y: Double(Float(point.y)))
            if let confidence = pose.confidence(of: [joint]) {
                result.setConfidence((confidence * 255).rounded() / 255, for: joint)
            }
        }
        return result
    }

    static func error(_ bytes: [UInt8], decoder: PoseDecoder = decoder) -> WireError? {
        wireError { () throws(WireError) in try decoder.decodeBinaryPose(bytes) }
    }

    @Test func aHandWrittenFrameDecodesToItsPose() throws {
        // kind 1, confidences, 1280 × 720, t = 1.5, seen: nose (bit 0) and rightAnkle (bit 18).
        var bytes: [UInt8] = [1, 1, 0x00, 0x05, 0xD0, 0x02, 0, 0]
        bytes += [0, 0, 0, 0, 0, 0, 0xF8, 0x3F]  // 1.5
        bytes += [0x01, 0x00, 0x04, 0x00]  // bits 0 and 18
        bytes += [0x00, 0x00, 0x48, 0x43, 0x00, 0x00, 0xC8, 0x42]  // nose (200, 100)
        bytes += [0x00, 0x80, 0x3B, 0x44, 0x00, 0x00, 0x25, 0x44]  // rightAnkle (750, 660)
        bytes += [255, 51]
        let pose = try Self.decoder.decodeBinaryPose(bytes)
        #expect(pose.timestamp == 1.5)
        #expect(pose.imageSize == ImageSize(width: 1280, height: 720))
        #expect(pose.seenJoints == [.nose, .rightAnkle])
        #expect(pose[.nose] == Point(x: 200, y: 100))
        #expect(pose[.rightAnkle] == Point(x: 750, y: 660))
        #expect(pose.confidence(of: [.nose]) == 1)
        #expect(pose.confidence(of: [.rightAnkle]) == 0.2)
    }

    @Test func simulatedPosesRoundTripAtTheFramesPrecision() throws {
        var simulation = Simulation(exercise: .squat, side: .left, reps: [.init(peak: 90)])
        simulation.noise = 2
        simulation.dropoutRate = 0.2
        for pose in simulation.poses() {
            let bytes = Self.frame(pose)
            #expect(bytes.count == BinaryPoseFrame.length(seen: pose.seenJoints.count, confidences: true))
            #expect(try Self.decoder.decodeBinaryPose(bytes) == Self.narrowed(pose))
        }
    }

    @Test(arguments: [
        (ImageSize(width: 70_000, height: 720), nil),
        (ImageSize(width: 1280, height: 0.2), nil),
        (ImageSize(width: 1279.6, height: 720.4), ImageSize(width: 1280, height: 720)),
    ])
    func anImageSideTheFrameCannotHoldSendsNeither(size: ImageSize, sent: ImageSize?) throws {
        var pose = Pose(timestamp: 2, imageSize: size)
        pose[.nose] = Point(x: 10, y: 20)
        let bytes = Self.frame(pose)
        #expect(try Self.decoder.decodeBinaryPose(bytes).imageSize == sent)
    }

    @Test func nineteenJointsWithConfidencesTake191Bytes() {
        var pose = Pose(timestamp: 3, imageSize: ImageSize(width: 640, height: 480))
        for joint in Joint.allCases {
            pose[joint] = Point(x: 10, y: 20)
            pose.setConfidence(0.5, for: joint)
        }
        #expect(Self.frame(pose).count == 191)
        pose = Pose(timestamp: 3)
        pose[.nose] = Point(x: 1, y: 2)
        let bare = Self.frame(pose)
        #expect(bare.count == 28)
        #expect(bare[1] == 0, "no confidences: the flag is clear")
    }

    @Test func mirroredAndMinConfidenceApplyAsForJSON() throws {
        var pose = Pose(timestamp: 1)
        pose[.leftWrist] = Point(x: 5, y: 6)
        pose.setConfidence(0.9, for: .leftWrist)
        pose[.rightKnee] = Point(x: 7, y: 8)
        pose.setConfidence(0.2, for: .rightKnee)
        let bytes = Self.frame(pose)
        let mirrored = try PoseDecoder(mirrored: true).decodeBinaryPose(bytes)
        #expect(mirrored.seenJoints == [.rightWrist, .leftKnee])
        let confident = try PoseDecoder(minConfidence: 0.5).decodeBinaryPose(bytes)
        #expect(confident.seenJoints == [.leftWrist])
    }

    @Test(arguments: [InputFormat.vision, .mediapipe, .coco])
    func onlyJointsSessionsTakeBinaryFrames(format: InputFormat) {
        var pose = Pose(timestamp: 1)
        pose[.nose] = Point(x: 1, y: 1)
        #expect(Self.error(Self.frame(pose), decoder: PoseDecoder(format: format))?.code == .invalidPose)
    }

    @Test func everyTruncationAndExtraByteIsRefused() {
        var pose = Pose(timestamp: 2, imageSize: ImageSize(width: 100, height: 100))
        for joint in [Joint.nose, .neck, .leftHip, .rightAnkle] {
            pose[joint] = Point(x: 50, y: 50)
            pose.setConfidence(0.7, for: joint)
        }
        let bytes = Self.frame(pose)
        for length in 0..<bytes.count {
            #expect(Self.error(Array(bytes.prefix(length)))?.code == .invalidPose, "length \(length)")
        }
        #expect(Self.error(bytes + [0])?.code == .invalidPose)
        #expect(Self.error(bytes) == nil)
    }

    @Test func malformedHeadersAndNumbersAreRefused() {
        var pose = Pose(timestamp: 2)
        pose[.nose] = Point(x: 50, y: 50)
        let good = Self.frame(pose)
        func changed(_ change: (inout [UInt8]) -> Void) -> [UInt8] {
            var bytes = good
            change(&bytes)
            return bytes
        }
        func putFloat(_ value: Float, at offset: Int, _ bytes: inout [UInt8]) {
            let bits = value.bitPattern
            for i in 0..<4 { bytes[offset + i] = UInt8(truncatingIfNeeded: bits >> (8 * i)) }
        }
        func putDouble(_ value: Double, _ bytes: inout [UInt8]) {
            let bits = value.bitPattern
            for i in 0..<8 { bytes[8 + i] = UInt8(truncatingIfNeeded: bits >> (8 * i)) }
        }
        let broken: [(String, [UInt8])] = [
            ("kind 0", changed { $0[0] = 0 }),
            ("kind 2", changed { $0[0] = 2 }),
            ("unknown flag", changed { $0[1] = 2 }),
            ("reserved", changed { $0[6] = 1 }),
            ("width without height", changed { $0[2] = 10 }),
            ("mask bit 19", changed { $0[18] |= 0x08 }),
            ("mask bit 31", changed { $0[19] = 0x80 }),
            ("t NaN", changed { putDouble(.nan, &$0) }),
            ("t infinite", changed { putDouble(-.infinity, &$0) }),
            ("t too large", changed { putDouble(2e12, &$0) }),
            ("x NaN", changed { putFloat(.nan, at: 20, &$0) }),
            ("y infinite", changed { putFloat(.infinity, at: 24, &$0) }),
            ("x beyond 1e6", changed { putFloat(2e6, at: 20, &$0) }),
        ]
        for (name, bytes) in broken {
            #expect(Self.error(bytes)?.code == .invalidPose, "\(name)")
        }
    }

    @Test func randomAndMutatedFramesNeverCrash() throws {
        var random = SeededRandom(seed: 42)
        var simulation = Simulation(exercise: .elbowFlexion, side: .right, reps: [.init(peak: 120)])
        simulation.dropoutRate = 0.3
        let frames = simulation.poses().prefix(60).map(Self.frame)
        var accepted = 0
        for round in 0..<6000 {
            var bytes: [UInt8]
            if round % 3 == 0 {
                bytes = (0..<Int(random.unit() * 200)).map { _ in UInt8(truncatingIfNeeded: Int(random.unit() * 256)) }
                if round % 2 == 0, !bytes.isEmpty { bytes[0] = 1 }
            } else {
                bytes = frames[round % frames.count]
                for _ in 0..<1 + Int(random.unit() * 3) {
                    bytes[Int(random.unit() * Double(bytes.count))] = UInt8(
                        truncatingIfNeeded: Int(random.unit() * 256))
                }
            }
            do {
                let pose = try Self.decoder.decodeBinaryPose(bytes)
                #expect(pose.isFinite)
                accepted += 1
            } catch {
                #expect(error.code == .invalidPose)
            }
        }
        #expect(accepted > 0)
    }
}
