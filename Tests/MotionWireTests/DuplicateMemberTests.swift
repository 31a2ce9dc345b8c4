import MotionCore
import Testing

@testable import MotionWire

/// A member name the decoders know, given twice in one object, is refused rather than resolved first-wins or
/// last-wins; unknown members are skipped, repeated or not; a syntax error still outranks the refusal.
@Suite struct DuplicateMemberTests {
    /// The error decoding `json` as a WebSocket message throws, or nil.
    static func error(_ json: String) -> WireError? {
        wireError { () throws(WireError) in try MessageDecoder().decode(bytes(json)) }
    }

    static func duplicate(_ name: String, in object: String? = nil, code: ErrorCode) -> WireError {
        WireError(code: code, message: #"duplicate member "\#(name)""# + (object.map { " in \($0)" } ?? ""))
    }

    @Test(arguments: [
        #"{"type":"pose","type":"pose","t":1}"#, #"{"type":"pose","type":"stop","t":1}"#,
        #"{"type":"stop","type":"pose","t":1}"#, #"{"type":"pose","t":1,"type":"dance"}"#,
        #"{"type":"dance","type":"pose","t":1}"#, #"{"type":1,"type":"pose","t":1}"#,
        #"{"type":"pose","t":1,"\u0074ype":"pose"}"#, #"{"type":"start","exercise":"x","type":"start"}"#,
        #"{"type":"start","type":"stop","exercise":"x"}"#, #"{"type":"poses","frames":[],"type":"poses"}"#,
        #"{"type":"poses","type":"pose","t":1,"frames":[]}"#, #"{"type":"reset","type":"reset"}"#,
        #"{"type":"baseline","type":"stop"}"#, #"{"type":"stop","type":"stop"}"#,
        #"{"type":"stop","reason":"done","type":"pose","t":1}"#,
    ])
    func refusesARepeatedTypeWhateverTheValues(_ json: String) {
        #expect(Self.error(json) == Self.duplicate("type", code: .invalidMessage))
    }

    @Test(arguments: [
        (#"{"type":"pose","t":1,"t":2}"#, "t"), (#"{"type":"pose","t":1,"t":1}"#, "t"),
        (#"{"t":1,"type":"pose","\u0074":2}"#, "t"),
        (#"{"type":"pose","t":1,"width":9,"height":9,"width":9}"#, "width"),
        (#"{"type":"pose","t":1,"height":null,"height":9}"#, "height"),
        (#"{"type":"pose","t":1,"points":{},"points":{"nose":[1,2]}}"#, "points"),
        (#"{"type":"pose","t":1,"keypoints":null,"keypoints":null}"#, "keypoints"),
        (#"{"type":"pose","t":1,"confidence":{},"confidence":null}"#, "confidence"),
    ])
    func refusesARepeatedPoseMember(_ json: String, _ name: String) {
        #expect(Self.error(json) == Self.duplicate(name, code: .invalidPose))
    }

    @Test(arguments: [
        (#"{"type":"pose","t":1,"points":{"rightElbow":[1,2],"rightElbow":[3,4]}}"#, "rightElbow", "points"),
        (#"{"type":"pose","t":1,"points":{"nose":null,"nose":[3,4]}}"#, "nose", "points"),
        (#"{"type":"pose","t":1,"points":{"right\u0045lbow":[1,2],"rightElbow":[1,2]}}"#, "rightElbow", "points"),
        (#"{"type":"pose","t":1,"points":{"nose":[1,2]},"confidence":{"nose":0.5,"nose":0.9}}"#, "nose", "confidence"),
        (#"{"type":"pose","t":1,"confidence":{"neck":null,"neck":1}}"#, "neck", "confidence"),
    ])
    func refusesAJointNamedTwice(_ json: String, _ joint: String, _ object: String) {
        #expect(Self.error(json) == Self.duplicate(joint, in: object, code: .invalidPose))
    }

    @Test(arguments: [
        (#"{"type":"start","exercise":"x","exercise":"y"}"#, "exercise"),
        (#"{"type":"start","exercise":"x","side":"left","side":"right"}"#, "side"),
        (#"{"type":"start","exercise":"x","subject":"a","subject":"b"}"#, "subject"),
        (#"{"type":"start","exercise":"x","format":"joints","format":"coco"}"#, "format"),
        (#"{"type":"start","exercise":"x","mirrored":false,"mirrored":true}"#, "mirrored"),
        (#"{"type":"start","exercise":"x","normalized":true,"normalized":true}"#, "normalized"),
        (#"{"type":"start","exercise":"x","minConfidence":0.1,"minConfidence":0.9}"#, "minConfidence"),
        (#"{"type":"start","exercise":"x","options":null,"options":{}}"#, "options"),
    ])
    func refusesARepeatedStartMember(_ json: String, _ name: String) {
        #expect(Self.error(json) == Self.duplicate(name, code: .invalidMessage))
        let body = json.replacingOccurrences(of: #""type":"start","#, with: "")
        let rest = wireError { () throws(WireError) in try StartRequest(decoding: bytes(body)) }
        #expect(rest == Self.duplicate(name, code: .invalidMessage), "REST body \(body)")
    }

    @Test(arguments: [
        (#"{"target":90,"target":120}"#, "target"), (#"{"holdSeconds":1,"holdSeconds":null}"#, "holdSeconds"),
        (#"{"baselineReps":3,"baselineReps":3}"#, "baselineReps"),
        (#"{"snapshots":"off","snapshots":"every"}"#, "snapshots"),
    ])
    func refusesARepeatedOption(_ options: String, _ name: String) {
        let json = #"{"type":"start","exercise":"x","options":\#(options)}"#
        #expect(Self.error(json) == Self.duplicate(name, in: "options", code: .invalidMessage))
    }

    @Test func refusesARepeatedMemberInAFrameOfABatchAlone() throws {
        #expect(
            try decodeMessage(#"{"type":"poses","frames":[{"t":1},{"t":2,"t":3}]}"#)
                == .poses([.success(.make(t: 1)), .failure(.invalidPose(#"frames[1]: duplicate member "t""#))]))
        #expect(
            try decodeMessage(#"{"type":"poses","frames":[{"t":1,"points":{"nose":[1,2],"nose":[1,2]}}]}"#)
                == .poses([.failure(.invalidPose(#"frames[0]: duplicate member "nose" in points"#))]))
        #expect(
            Self.error(#"{"type":"poses","frames":[],"frames":[{"t":1}]}"#)
                == Self.duplicate("frames", code: .invalidPose))
    }

    @Test func refusesRepeatedMembersInRESTBodies() throws {
        let decoder = PoseDecoder()
        func frames(_ json: String) -> WireError? {
            wireError { () throws(WireError) in try decoder.decodeFrames(bytes(json)) }
        }
        #expect(
            try decoder.decodeFrames(bytes(#"{"frames":[{"t":1,"t":2}]}"#))
                == [.failure(.invalidPose(#"frames[0]: duplicate member "t""#))])
        #expect(frames(#"{"t":1,"t":2}"#) == Self.duplicate("t", code: .invalidPose))
        // An analyze body is read twice: its start members by StartRequest, its frames by the batch decoder.
        let analyze = #"{"exercise":"squat","frames":[],"frames":[{"t":1}]}"#
        #expect(try StartRequest(decoding: bytes(analyze)) == StartRequest(exercise: "squat"))
        #expect(frames(analyze) == Self.duplicate("frames", code: .invalidPose))
        let ndjson = bytes("{\"t\":1}\n{\"t\":2,\"t\":3}\n")
        #expect(
            try decoder.decodeNDJSON(ndjson)
                == [.success(.make(t: 1)), .failure(.invalidPose(#"line 2: duplicate member "t""#))])
    }

    @Test func refusesAnyRepeatedNameInAControlMessage() throws {
        #expect(
            Self.error(#"{"type":"stop","reason":"a","reason":"b"}"#) == Self.duplicate("reason", code: .invalidMessage)
        )
        #expect(Self.error(#"{"type":"reset","x":1,"\u0078":1}"#) == Self.duplicate("x", code: .invalidMessage))
        #expect(try decodeMessage(#"{"type":"stop","meta":{"a":1,"a":2}}"#) == .stop)
    }

    @Test func acceptsRepeatedUnknownMembers() throws {
        #expect(try decodeMessage(#"{"type":"pose","t":1,"extra":1,"extra":[2]}"#) == .pose(.make(t: 1)))
        let unknownJoints =
            #"{"type":"pose","t":1,"points":{"leftThumb":[1,2],"leftThumb":[3,4]},"confidence":{"leftToe":1,"leftToe":2}}"#
        #expect(try decodeMessage(unknownJoints) == .pose(.make(t: 1)))
        let start = #"{"type":"start","exercise":"x","future":1,"future":2,"options":{"later":1,"later":2}}"#
        #expect(try decodeMessage(start) == .start(StartRequest(exercise: "x")))
        let batch = #"{"type":"poses","frames":[{"t":1,"x":1,"x":2}],"note":1,"note":2}"#
        #expect(try decodeMessage(batch) == .poses([.success(.make(t: 1))]))
    }

    @Test(arguments: [
        #"{"type":"pose","t":1,"t":2,"x":[}"#, #"{"type":"dance","type":"pose","x":[}"#,
        #"{"type":"stop","type":"stop",}"#,
        #"{"type":"start","exercise":"x","exercise":"y","z":tru}"#,
        #"{"type":"pose","t":1,"points":{"nose":[1,2],"nose":[1,2]},"x":"\q"}"#,
    ])
    func letsASyntaxErrorOutrankARepeatedMember(_ json: String) {
        #expect(Self.error(json)?.code == .invalidJSON)
    }
}
