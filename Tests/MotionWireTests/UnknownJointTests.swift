import MotionCore
import Testing

@testable import MotionWire

/// Joint names that are not joints of docs/protocol.md §1: ignored for the pose, which is accepted, but reported in a
/// ``DecodingReport`` so the session can answer the first one with `unknownJoint` (docs/protocol.md §3).
@Suite struct UnknownJointTests {
    /// The message `json` decodes to, and the report after decoding it into `report`.
    private func decode(
        _ json: String, format: InputFormat = .joints, report: DecodingReport = DecodingReport()
    ) throws -> (ClientMessage, DecodingReport) {
        var report = report
        let decoder = MessageDecoder(poseDecoder: PoseDecoder(format: format))
        let message = try decoder.decode(bytes(json), report: &report)
        return (message, report)
    }

    @Test func reportsAnUnknownNameInPointsAndKeepsTheKnownJoints() throws {
        let json = #"{"type":"pose","t":1,"points":{"nose":[1,2],"leftHeel":[3,4],"rightWrist":[5,6]}}"#
        let (message, report) = try decode(json)
        #expect(message == .pose(.make(t: 1, [.nose: Point(x: 1, y: 2), .rightWrist: Point(x: 5, y: 6)])))
        #expect(report.unknownJoint == "leftHeel")
    }

    @Test func reportsVisionsRawNamesInTheVisionFormat() throws {
        let json = """
            {"type":"pose","t":1,"width":100,"height":50,
             "points":{"left_shoulder_1_joint":[0.5,0.5],"nose":[0.5,0.2],"right_shoulder_1_joint":[0.4,0.5]}}
            """
        let (message, report) = try decode(json, format: .vision)
        let size = ImageSize(width: 100, height: 50)
        #expect(message == .pose(.make(t: 1, size: size, [.nose: Point(x: 50, y: 40)])))
        #expect(report.unknownJoint == "left_shoulder_1_joint")
    }

    @Test func reportsAnUnknownNameInConfidence() throws {
        let json = #"{"type":"pose","t":1,"points":{"nose":[1,2]},"confidence":{"nose":0.5,"noze":0.9}}"#
        let (message, report) = try decode(json)
        #expect(message == .pose(Pose(timestamp: 1, points: [.nose: Point(x: 1, y: 2)], confidence: [.nose: 0.5])))
        #expect(report.unknownJoint == "noze")
    }

    @Test(arguments: [
        (#"{"t":1,"points":{"a":[1,2],"b":[1,2]},"confidence":{"c":1}}"#, "a"),
        (#"{"t":1,"confidence":{"c":1},"points":{"a":[1,2]}}"#, "c"),
        (#"{"t":1,"points":{"nose":[1,2],"LeftElbow":[1,2]}}"#, "LeftElbow"),
        (#"{"t":1,"points":{"leftHeel":null}}"#, "leftHeel"),
        (#"{"t":1,"points":{"leftThumb":[1,2],"leftThumb":[3,4]}}"#, "leftThumb"),
        (#"{"t":1,"points":{"leftHeel":{"x":1}}}"#, "leftHeel"),
        (#"{"t":1,"points":{"":[1,2]}}"#, ""),
        // Points overridden by a later keypoints member: the name was sent all the same.
        (#"{"t":1,"points":{"leftHeel":[1,2]},"keypoints":null}"#, "leftHeel"),
    ])
    func reportsTheFirstUnknownNameInOrder(_ json: String, _ name: String) throws {
        var report = DecodingReport()
        _ = try PoseDecoder().decodePose(bytes(json), report: &report)
        #expect(report.unknownJoint == name)
    }

    @Test(arguments: try FormatVectors.load())
    func reportsNothingForKnownNames(_ vector: FormatVectors.Case) throws {
        let decoder = PoseDecoder(try StartRequest(decoding: vector.start))
        var report = DecodingReport()
        _ = try decoder.decodePose(vector.pose, report: &report)
        _ = try decoder.decodeFrames(bytes(#"{"frames":["#) + vector.pose + bytes("]}"), report: &report)
        _ = try decoder.decodeNDJSON(vector.pose, report: &report)
        #expect(report.unknownJoint == nil)
    }

    @Test func reportsNothingForAPoseWithEveryJoint() throws {
        var report = DecodingReport()
        let message = try MessageDecoder().decode(fullJointsPoseMessage(), report: &report)
        guard case .pose(let pose) = message else {
            Issue.record("not a pose")
            return
        }
        #expect(pose.seenJoints.count == 19)
        #expect(report == DecodingReport())
    }

    // MARK: Escapes and length

    @Test func readsEscapedNames() throws {
        var report = DecodingReport()
        let known = #"{"t":1,"points":{"left\u0045lbow":[1,2]},"confidence":{"\u006eose":0.5}}"#
        #expect(
            try PoseDecoder().decodePose(bytes(known), report: &report) == .make(t: 1, [.leftElbow: Point(x: 1, y: 2)]))
        #expect(report.unknownJoint == nil)
        let unknown = #"{"t":1,"points":{"left\u005fshoulder":[1,2],"\u00e9paule\ud83d\ude00\"":[1,2]}}"#
        _ = try PoseDecoder().decodePose(bytes(unknown), report: &report)
        #expect(report.unknownJoint == "left_shoulder")
        var second = DecodingReport()
        _ = try PoseDecoder().decodePose(
            bytes(#"{"t":1,"points":{"\u00e9paule\ud83d\ude00\"":[1,2]}}"#), report: &second)
        #expect(second.unknownJoint == "épaule😀\"")
    }

    @Test(arguments: [
        (String(repeating: "x", count: 100), String(repeating: "x", count: 64)),
        (String(repeating: "x", count: 64), String(repeating: "x", count: 64)),
        (String(repeating: "a", count: 63) + "é", String(repeating: "a", count: 63)),
        (String(repeating: "a", count: 62) + "😀", String(repeating: "a", count: 62)),
        (String(repeating: "a", count: 60) + "😀", String(repeating: "a", count: 60) + "😀"),
        (String(repeating: "é", count: 40), String(repeating: "é", count: 32)),
    ])
    func cutsALongNameBetweenTwoScalars(_ name: String, _ kept: String) throws {
        var report = DecodingReport()
        _ = try PoseDecoder().decodePose(bytes(#"{"t":1,"points":{"\#(name)":[1,2]}}"#), report: &report)
        #expect(report.unknownJoint == kept)
        var escaped = DecodingReport()
        let json = #"{"t":1,"points":{"\#(name.unicodeEscaped)":[1,2]}}"#
        _ = try PoseDecoder().decodePose(bytes(json), report: &escaped)
        #expect(escaped.unknownJoint == kept)
    }

    // MARK: What the report keeps

    @Test func keepsTheNameItAlreadyHolds() throws {
        let (_, report) = try decode(
            #"{"type":"pose","t":1,"points":{"leftHeel":[1,2]}}"#, report: DecodingReport(unknownJoint: "leftToe"))
        #expect(report.unknownJoint == "leftToe")
    }

    @Test func namesTheFirstUnknownJointOfASessionAcrossMessages() throws {
        let decoder = MessageDecoder()
        var report = DecodingReport()
        for (t, name) in [(1, "nose"), (2, "leftHeel"), (3, "leftToe"), (4, "rightHeel")] {
            let message = try decoder.decode(
                bytes(#"{"type":"pose","t":\#(t),"points":{"\#(name)":[1,2]}}"#), report: &report)
            #expect(
                message == .pose(name == "nose" ? .make(t: Double(t), [.nose: Point(x: 1, y: 2)]) : .make(t: Double(t)))
            )
            #expect(report.unknownJoint == (t == 1 ? nil : "leftHeel"))
        }
    }

    @Test(arguments: [
        #"{"type":"pose","t":"x","points":{"leftHeel":[1,2]}}"#,
        #"{"type":"pose","points":{"leftHeel":[1,2]}}"#,
        #"{"type":"pose","t":1,"points":{"leftHeel":[1,2]},"width":5}"#,
        #"{"type":"pose","t":1,"points":{"leftHeel":[1,2],"nose":[1]}}"#,
        #"{"type":"pose","t":1,"points":{"leftHeel":[1,2]}} x"#,
        #"{"type":"pose","t":1,"points":{"leftHeel":[1,2]},"x":[}"#,
        #"{"type":"poses","frames":[{"t":1,"points":{"leftHeel":[1,2]}}],"x":tru}"#,
        #"{"type":"poses","frames":[{"t":1,"points":{"leftHeel":[1,2]}},{"t":2},{"t":3}]}"#,
    ])
    func reportsNothingFromARefusedMessage(_ json: String) throws {
        let decoder = MessageDecoder(poseDecoder: PoseDecoder(limits: WireLimits(maxFramesPerBatch: 2)))
        var report = DecodingReport()
        #expect(wireError { () throws(WireError) in try decoder.decode(bytes(json), report: &report) } != nil)
        #expect(report.unknownJoint == nil)
    }

    // MARK: Batches

    @Test func reportsTheFirstUnknownNameOfAnAcceptedFrame() throws {
        let json = """
            {"type":"poses","frames":[{"t":"x","points":{"bad1":[1,2]}},{"t":2,"points":{"nose":[1,2]}},
             {"t":3,"points":{"bad3":[1,2],"nose":[3,4]}},{"t":4,"points":{"bad4":[1,2]}}]}
            """
        let (message, report) = try decode(json)
        #expect(
            message
                == .poses([
                    .failure(.invalidPose("frames[0]: t must be a number")),
                    .success(.make(t: 2, [.nose: Point(x: 1, y: 2)])),
                    .success(.make(t: 3, [.nose: Point(x: 3, y: 4)])),
                    .success(.make(t: 4)),
                ]))
        #expect(report.unknownJoint == "bad3")
    }

    @Test func reportsUnknownNamesOfRESTBodies() throws {
        let decoder = PoseDecoder()
        var frames = DecodingReport()
        let body = #"{"frames":[{"t":1,"points":{"leftHeel":[1,2]}},{"t":2,"points":{"leftToe":[1,2]}}]}"#
        #expect(try decoder.decodeFrames(bytes(body), report: &frames) == accepted([.make(t: 1), .make(t: 2)]))
        #expect(frames.unknownJoint == "leftHeel")
        var single = DecodingReport()
        _ = try decoder.decodeFrames(bytes(#"{"t":1,"points":{"leftToe":[1,2]}}"#), report: &single)
        #expect(single.unknownJoint == "leftToe")
        var lines = DecodingReport()
        let ndjson =
            "{\"t\":1,\"points\":{\"a\":[1,2],}}\n{\"t\":\"x\",\"points\":{\"b\":[1,2]}}\n{\"t\":3,\"points\":{\"c\":[1,2]}}"
        #expect(try decoder.decodeNDJSON(bytes(ndjson), report: &lines).count == 3)
        #expect(lines.unknownJoint == "c")
        var refused = DecodingReport()
        let tooMany = PoseDecoder(limits: WireLimits(maxFramesPerBatch: 1))
        #expect(
            wireError { () throws(WireError) in
                try tooMany.decodeNDJSON(bytes("{\"t\":1,\"points\":{\"c\":[1,2]}}\n{}"), report: &refused)
            }?
            .code == .messageTooBig)
        #expect(refused.unknownJoint == nil)
    }

    // MARK: The error

    @Test func encodesTheUnknownJointError() {
        var buffer: [UInt8] = []
        WireEncoder.encodeError(.unknownJoint("left_shoulder_1_joint"), frame: 3, into: &buffer)
        #expect(
            text(buffer)
                == #"{"type":"error","code":"unknownJoint","message":"unknown joint \"left_shoulder_1_joint\" (ignored)","#
                + #""frame":3}"#)
        #expect(ErrorCode.unknownJoint.rawValue == "unknownJoint")
    }
}

extension String {
    /// The string with every scalar written as a JSON `\u` escape (surrogate pairs above U+FFFF).
    fileprivate var unicodeEscaped: String {
        utf16.map { "\\u" + String($0, radix: 16).leftPadded(to: 4) }.joined()
    }

    private func leftPadded(to count: Int) -> String {
        String(repeating: "0", count: Swift.max(0, count - self.count)) + self
    }
}
