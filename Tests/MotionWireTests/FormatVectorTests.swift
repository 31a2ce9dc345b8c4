import MotionCore
import Testing

@testable import MotionWire

@Suite struct FormatVectorTests {
    @Test func vectorFileHasEveryFormat() throws {
        let cases = try FormatVectors.load()
        let names = Set(cases.map(\.name))
        #expect(cases.count >= 6)
        for required in ["joints-points", "joints-keypoints", "vision", "mediapipe", "coco-pixels", "joints-mirrored"] {
            #expect(names.contains(required), "missing case \(required)")
        }
    }

    @Test(arguments: try FormatVectors.load())
    func decodesVectorToExpectedPixels(_ vector: FormatVectors.Case) throws {
        var decoder = MessageDecoder()
        guard case .start(let start) = try decoder.decode(vector.start) else {
            Issue.record("start did not decode as start")
            return
        }
        decoder.configure(for: start)
        guard case .pose(let pose) = try decoder.decode(vector.pose) else {
            Issue.record("pose did not decode as pose")
            return
        }
        #expect(pose.timestamp == 2.0)
        #expect(pose.imageSize == ImageSize(width: 1280, height: 720))
        for joint in Joint.allCases {
            let expected = vector.expected[joint]
            let actual = pose[joint]
            #expect((expected == nil) == (actual == nil), "\(vector.name): \(joint) seen \(actual != nil)")
            if let expected, let actual {
                #expect(abs(expected.x - actual.x) <= 0.01, "\(vector.name): \(joint).x \(actual.x) ≠ \(expected.x)")
                #expect(abs(expected.y - actual.y) <= 0.01, "\(vector.name): \(joint).y \(actual.y) ≠ \(expected.y)")
            }
        }
    }

    @Test(arguments: try FormatVectors.load())
    func decodesVectorSplitIntoFramesBatch(_ vector: FormatVectors.Case) throws {
        let start = try StartRequest(decoding: vector.start)
        let decoder = PoseDecoder(start)
        let single = try decoder.decodePose(vector.pose)
        let batch = try decoder.decodeFrames(
            bytes(#"{"frames":["#) + vector.pose + bytes(",") + vector.pose + bytes("]}"))
        #expect(batch == accepted([single, single]))
        #expect(try decoder.decodeFrames(vector.pose) == accepted([single]))
        let ndjson = vector.pose + bytes("\n\n") + vector.pose + bytes("\n")
        #expect(try decoder.decodeNDJSON(ndjson) == accepted([single, single]))
    }
}
