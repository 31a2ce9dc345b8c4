import MotionCore
import Testing

@testable import MotionWire

@Suite struct MessageDecodingTests {
    @Test func decodesTheProtocolStartExample() throws {
        let json = """
            {"type":"start","exercise":"elbowFlexion","side":"right","subject":"patient-17",
             "format":"joints","mirrored":false,
             "options":{"target":140,"holdSeconds":5,"baselineReps":3,"snapshots":"every"}}
            """
        let expected = StartRequest(
            exercise: "elbowFlexion", side: .right, subject: "patient-17", format: .joints, mirrored: false,
            options: .init(prescription: Prescription(target: 140, holdSeconds: 5), baselineReps: 3, snapshots: .every))
        #expect(try decodeMessage(json) == .start(expected))
    }

    @Test func fillsStartDefaultsWhenOnlyTheExerciseIsGiven() throws {
        #expect(try decodeMessage(#"{"type":"start","exercise":"squat"}"#) == .start(StartRequest(exercise: "squat")))
    }

    @Test func decodesEveryStartField() throws {
        let json = """
            {"exercise":"squat","side":null,"subject":null,"format":"coco","normalized":true,"mirrored":true,
             "minConfidence":0.4,"options":{"snapshots":0.5,"target":null},"type":"start","future":{"x":1}}
            """
        let expected = StartRequest(
            exercise: "squat", format: .coco, mirrored: true, minConfidence: 0.4, normalized: true,
            options: .init(snapshots: .interval(0.5)))
        #expect(try decodeMessage(json) == .start(expected))
        #expect(
            try decodeMessage(#"{"type":"start","exercise":"x","options":{"snapshots":"off"}}"#)
                == .start(StartRequest(exercise: "x", options: .init(snapshots: .off))))
    }

    @Test func decodesStartBodiesWithoutType() throws {
        let start = try StartRequest(decoding: bytes(#"{"exercise":"squat","side":"left","frames":[{"t":1}]}"#))
        #expect(start == StartRequest(exercise: "squat", side: .left))
    }

    @Test func decodesTheProtocolPoseExample() throws {
        let json = """
            {"type":"pose","t":12.345,"width":1280,"height":720,
             "points":{"rightShoulder":[600.5,210.0],"rightElbow":[612.5,380.0],"rightWrist":[700.0,330.25]},
             "confidence":{"rightShoulder":0.98,"rightElbow":0.91,"rightWrist":0.88}}
            """
        let expected = Pose(
            timestamp: 12.345, imageSize: ImageSize(width: 1280, height: 720),
            points: [
                .rightShoulder: Point(x: 600.5, y: 210), .rightElbow: Point(x: 612.5, y: 380),
                .rightWrist: Point(x: 700, y: 330.25),
            ],
            confidence: [.rightShoulder: 0.98, .rightElbow: 0.91, .rightWrist: 0.88])
        #expect(try decodeMessage(json) == .pose(expected))
    }

    @Test func decodesPoseWhateverTheMemberOrder() throws {
        let json = #"{"confidence":{"nose":0.5},"points":{"nose":[1,2]},"t":3,"type":"pose"}"#
        let expected = Pose(timestamp: 3, points: [.nose: Point(x: 1, y: 2)], confidence: [.nose: 0.5])
        #expect(try decodeMessage(json) == .pose(expected))
    }

    @Test func decodesAnEmptyPose() throws {
        #expect(try decodeMessage(#"{"type":"pose","t":4}"#) == .pose(Pose(timestamp: 4)))
        #expect(try decodeMessage(#"{"type":"pose","t":4,"points":{}}"#) == .pose(Pose(timestamp: 4)))
    }

    @Test func decodesABatch() throws {
        let json = #"{"type":"poses","frames":[{"t":1,"points":{"nose":[1,2]}},{"t":2},{"type":"pose","t":3}]}"#
        let expected = [Pose.make(t: 1, [.nose: Point(x: 1, y: 2)]), Pose.make(t: 2), Pose.make(t: 3)]
        #expect(try decodeMessage(json) == .poses(accepted(expected)))
        #expect(try decodeMessage(#"{"type":"poses","frames":[]}"#) == .poses([]))
    }

    @Test(arguments: [("reset", ClientMessage.reset), ("baseline", .baseline), ("stop", .stop)])
    func decodesControlMessages(_ type: String, _ expected: ClientMessage) throws {
        #expect(try decodeMessage(#"{"type":"\#(type)"}"#) == expected)
        #expect(try decodeMessage(#"{"reason":["ignored"], "type" : "\#(type)" }"#) == expected)
    }

    @Test func readsPosesInTheConfiguredFormatAfterStart() throws {
        var decoder = MessageDecoder()
        guard case .start(let start) = try decoder.decode(bytes(#"{"type":"start","exercise":"x","format":"vision"}"#))
        else {
            Issue.record("not a start")
            return
        }
        decoder.configure(for: start)
        #expect(decoder.poseDecoder.format == .vision)
        let pose = try decoder.decode(
            bytes(#"{"type":"pose","t":1,"width":100,"height":50,"points":{"nose":[0.5,0.2]}}"#))
        #expect(pose == .pose(Pose.make(t: 1, size: ImageSize(width: 100, height: 50), [.nose: Point(x: 50, y: 40)])))
    }

    @Test func decodesSplitBuffersLikeWholeOnes() throws {
        let json = bytes(#"{"type":"pose","t":1,"keypoints":null,"points":{"nose":[1,2]}}"#)
        let whole = try MessageDecoder().decode(json)
        let viaPointer = try json.withUnsafeBytes { raw in try MessageDecoder().decode(raw) }
        #expect(whole == viaPointer)
    }
}
