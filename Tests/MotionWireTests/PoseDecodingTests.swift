import MotionCore
import Testing

@testable import MotionWire

@Suite struct PoseDecodingTests {
    private let size = #""width":1000,"height":500"#

    private func keypoints(_ count: Int, _ fill: (Int) -> String) -> String {
        "[" + (0..<count).map(fill).joined(separator: ",") + "]"
    }

    @Test func readsCompactKeypointsWithUnseenJointsAndNullConfidence() throws {
        let values = keypoints(19) { joint in
            switch joint {
            case 0: "10,20,0.5"
            case 1: "null,null,null"
            case 2: "30,40,null"
            default: "null,0,0"
            }
        }
        let pose = try PoseDecoder().decodePose(bytes(#"{"t":1,"keypoints":\#(values)}"#))
        #expect(
            pose
                == Pose(
                    timestamp: 1, points: [.nose: Point(x: 10, y: 20), .rightEye: Point(x: 30, y: 40)],
                    confidence: [.nose: 0.5]))
    }

    @Test func dropsJointsBelowMinConfidenceButKeepsThoseWithout() throws {
        let decoder = PoseDecoder(minConfidence: 0.5)
        let json = #"{"t":1,"points":{"nose":[1,1],"neck":[2,2],"root":[3,3]},"confidence":{"nose":0.4,"neck":0.5}}"#
        let pose = try decoder.decodePose(bytes(json))
        #expect(pose[.nose] == nil)
        #expect(pose[.neck] == Point(x: 2, y: 2))
        #expect(pose.confidence(of: .neck) == 0.5)
        #expect(pose[.root] == Point(x: 3, y: 3))
        #expect(pose.confidence(of: .root) == nil)
    }

    @Test func keepsEveryJointWithoutMinConfidenceForJoints() throws {
        let pose = try PoseDecoder().decodePose(bytes(#"{"t":1,"points":{"nose":[1,1]},"confidence":{"nose":0}}"#))
        #expect(pose[.nose] != nil)
    }

    @Test func convertsVisionFromBottomLeftOrigin() throws {
        let decoder = PoseDecoder(format: .vision, minConfidence: 0.3)
        let json = #"{"t":1,\#(size),"points":{"nose":[0.25,0.1],"neck":[0.5,0.5]},"confidence":{"neck":0.2}}"#
        let pose = try decoder.decodePose(bytes(json))
        #expect(
            pose
                == Pose(
                    timestamp: 1, imageSize: ImageSize(width: 1000, height: 500),
                    points: [.nose: Point(x: 250, y: 450)]))
    }

    @Test func readsMediapipeLandmarksAndDerivesNeckAndRoot() throws {
        let values = keypoints(33) { index in
            switch index {
            case 11: "0.6,0.2,0.9"
            case 12: "0.4,0.2,0.8"
            case 23: "0.55,0.6,0.9"
            case 24: "0.45,0.6,0.4"  // below the default 0.5: unseen, so no root either
            case 0: "0.5,0.1,0.5"
            default: "0.5,0.5,0.1"
            }
        }
        let pose = try PoseDecoder(format: .mediapipe).decodePose(bytes(#"{"t":1,\#(size),"keypoints":\#(values)}"#))
        #expect(pose[.leftShoulder] == Point(x: 600, y: 100))
        #expect(pose[.rightShoulder] == Point(x: 400, y: 100))
        #expect(pose[.neck] == Point(x: 500, y: 100))
        #expect(pose.confidence(of: .neck) == 0.8)
        #expect(pose[.leftHip] == Point(x: 550, y: 300))
        #expect(pose[.rightHip] == nil)
        #expect(pose[.root] == nil)
        #expect(pose[.nose] == Point(x: 500, y: 50))
        #expect(pose.seenJoints.count == 5)
    }

    @Test func readsCocoInPixelsOrNormalised() throws {
        let pixels = keypoints(17) { index in index == 5 ? "600,100,0.9" : index == 6 ? "400,100,0.9" : "1,1,0.2" }
        let pose = try PoseDecoder(format: .coco).decodePose(bytes(#"{"t":1,"keypoints":\#(pixels)}"#))
        #expect(pose.seenJoints == [.neck, .leftShoulder, .rightShoulder])
        #expect(pose[.neck] == Point(x: 500, y: 100))
        let normalised = keypoints(17) { index in index == 0 ? "0.5,0.5,0.9" : "null,null,null" }
        let decoder = PoseDecoder(format: .coco, normalized: true)
        let scaled = try decoder.decodePose(bytes(#"{"t":1,\#(size),"keypoints":\#(normalised)}"#))
        #expect(scaled[.nose] == Point(x: 500, y: 250))
        let code = wireError { () throws(WireError) in
            try decoder.decodePose(bytes(#"{"t":1,"keypoints":\#(normalised)}"#))
        }
        #expect(code?.code == .invalidPose)
    }

    @Test func swapsSidesWhenMirrored() throws {
        let decoder = PoseDecoder(mirrored: true)
        let json = #"{"t":1,"points":{"leftWrist":[1,2],"nose":[3,4]},"confidence":{"leftWrist":0.7}}"#
        let pose = try decoder.decodePose(bytes(json))
        #expect(
            pose
                == Pose(
                    timestamp: 1, points: [.rightWrist: Point(x: 1, y: 2), .nose: Point(x: 3, y: 4)],
                    confidence: [.rightWrist: 0.7]))
    }

    @Test func skipsUnknownJointNamesAndTreatsNullPointsAsUnseen() throws {
        let json = #"{"t":1,"points":{"leftThumb":[1,2],"nose":null,"neck":[5,6]},"confidence":{"leftToe":2}}"#
        #expect(try PoseDecoder().decodePose(bytes(json)) == Pose.make(t: 1, [.neck: Point(x: 5, y: 6)]))
    }

    @Test func letsTheLaterOfPointsAndKeypointsWin() throws {
        let json = #"{"t":1,"points":{"nose":[1,1]},"keypoints":null}"#
        #expect(try PoseDecoder().decodePose(bytes(json)) == Pose.make(t: 1))
        let later = #"{"t":1,"keypoints":null,"points":{"nose":[2,2]}}"#
        #expect(try PoseDecoder().decodePose(bytes(later)) == Pose.make(t: 1, [.nose: Point(x: 2, y: 2)]))
    }

    @Test func acceptsBoundaryValues() throws {
        let json = #"{"t":-1e12,"width":1e6,"height":0.5,"points":{"nose":[-1e6,1e6]},"confidence":{"nose":1}}"#
        let pose = try PoseDecoder().decodePose(bytes(json))
        #expect(pose[.nose] == Point(x: -1e6, y: 1e6))
    }

    @Test func limitsTheFramesOfABatch() throws {
        let decoder = MessageDecoder(poseDecoder: PoseDecoder(limits: WireLimits(maxFramesPerBatch: 3)))
        let three = #"{"type":"poses","frames":[{"t":1},{"t":2},{"t":3}]}"#
        #expect(
            try decodeMessage(three, decoder: decoder) == .poses(accepted([.make(t: 1), .make(t: 2), .make(t: 3)])))
        let four = #"{"type":"poses","frames":[{"t":1},{"t":2},{"t":3},{"t":4}]}"#
        #expect(decodingErrorCode(four, decoder: decoder) == .messageTooBig)
        let ndjson = bytes("{\"t\":1}\n{\"t\":2}\n{\"t\":3}\n{\"t\":4}\n")
        let error = wireError { () throws(WireError) in try decoder.poseDecoder.decodeNDJSON(ndjson) }
        #expect(error?.code == .messageTooBig)
    }
}
