import MotionCore
import MotionWire
import Testing

@Suite struct PoseEncodingTests {
    static func encode(_ pose: Pose, decimals: Int? = nil) -> String {
        var buffer: [UInt8] = []
        WireEncoder.encodePose(pose, decimals: decimals, into: &buffer)
        return String(decoding: buffer, as: UTF8.self)
    }

    static var armPose: Pose {
        var pose = Pose(timestamp: 12.345, imageSize: ImageSize(width: 1280, height: 720))
        pose[.rightShoulder] = Point(x: 600.5, y: 210)
        pose[.rightElbow] = Point(x: 612.456, y: 380.004)
        pose.setConfidence(0.9876, for: .rightElbow)
        return pose
    }

    @Test func writesThePoseMessageOfTheProtocol() {
        #expect(
            Self.encode(Self.armPose)
                == #"{"type":"pose","t":12.345,"width":1280.0,"height":720.0,"#
                + #""points":{"rightShoulder":[600.5,210.0],"rightElbow":[612.456,380.004]},"#
                + #""confidence":{"rightElbow":0.9876}}"#)
    }

    @Test func roundsToTheDecimalsAsked() {
        #expect(
            Self.encode(Self.armPose, decimals: 2)
                == #"{"type":"pose","t":12.345,"width":1280.0,"height":720.0,"#
                + #""points":{"rightShoulder":[600.5,210.0],"rightElbow":[612.46,380.0]},"#
                + #""confidence":{"rightElbow":0.99}}"#)
    }

    @Test func leavesOutWhatThePoseLacks() {
        var pose = Pose(timestamp: 1)
        pose[.nose] = Point(x: 1, y: 2)
        #expect(Self.encode(pose) == #"{"type":"pose","t":1.0,"points":{"nose":[1.0,2.0]}}"#)
        #expect(Self.encode(Pose(timestamp: 2)) == #"{"type":"pose","t":2.0,"points":{}}"#)
    }

    @Test func decodesBackToTheSamePose() throws {
        var pose = Pose(timestamp: 0.1 + 0.2, imageSize: ImageSize(width: 640, height: 480))
        for (index, joint) in Joint.allCases.enumerated() {
            pose[joint] = Point(x: Double(index) * 33.3333333333, y: 479.99999999 - Double(index) / 7)
            pose.setConfidence(Double(index) / 19, for: joint)
        }
        var buffer: [UInt8] = []
        WireEncoder.encodePose(pose, into: &buffer)
        let decoded = try PoseDecoder().decodePose(buffer)
        #expect(decoded == pose)
        for joint in Joint.allCases { #expect(decoded.confidence(of: joint) == pose.confidence(of: joint)) }
    }
}
