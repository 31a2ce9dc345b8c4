import MotionCore
import Testing

@testable import MotionWire

/// Every malformed message is answered with the right error code, and no input crashes the decoder.
@Suite struct MalformedInputTests {
    struct Case: Sendable, CustomTestStringConvertible {
        var json: String
        var code: ErrorCode
        var format: InputFormat = .joints
        var testDescription: String { "\(code.rawValue): \(json.prefix(80))" }
    }

    static let mediapipe99 = "[" + Array(repeating: "0.5", count: 99).joined(separator: ",") + "]"
    static let joints57 = "[" + Array(repeating: "1", count: 57).joined(separator: ",") + "]"

    static let cases: [Case] = [
        // Not JSON, or not an object.
        Case(json: #"{"type":"pose","t":1"#, code: .invalidJSON),
        Case(json: #"{"type":"pose","t":1,"points":{"nose":[1,2]}"#, code: .invalidJSON),
        Case(json: #"{"type":"start","exercise":"\q"}"#, code: .invalidJSON),
        Case(json: #"{"type":"start","exercise":"\ud800"}"#, code: .invalidJSON),
        Case(json: #"{"type":"start","exercise":"\udc00x"}"#, code: .invalidJSON),
        Case(json: #"{"type":"pose","t":NaN}"#, code: .invalidJSON),
        Case(json: #"{"type":"pose","t":Infinity}"#, code: .invalidJSON),
        Case(json: #"{"type":"pose","t":-Infinity}"#, code: .invalidJSON),
        Case(json: #"{"type":"pose","t":1}x"#, code: .invalidJSON),
        Case(json: #"{"type":"pose","t":1} {}"#, code: .invalidJSON),
        Case(json: #"{"type":"pose","t":01}"#, code: .invalidJSON),
        Case(json: #"{"type":"pose","t":1,}"#, code: .invalidJSON),
        Case(json: #"{'type':'pose'}"#, code: .invalidJSON),
        Case(json: "", code: .invalidJSON),
        Case(json: "[]", code: .invalidJSON),
        Case(json: #""pose""#, code: .invalidJSON),
        Case(json: "null", code: .invalidJSON),
        Case(json: #"{"type":"pose","t":"1","extra":[}"#, code: .invalidJSON),  // syntax outranks the bad t
        Case(json: #"{"type":"dance","x":[}"#, code: .invalidJSON),  // syntax outranks the unknown type
        Case(
            json: #"{"type":"pose","x":"# + String(repeating: "[", count: 70) + String(repeating: "]", count: 70) + "}",
            code: .invalidJSON),
        // Unknown or missing type.
        Case(json: #"{"type":"dance"}"#, code: .unknownType),
        Case(json: #"{"type":"Pose","t":1}"#, code: .unknownType),
        Case(json: #"{"t":1,"points":{}}"#, code: .unknownType),
        Case(json: "{}", code: .unknownType),
        Case(json: #"{"type":1}"#, code: .unknownType),
        Case(json: #"{"type":null}"#, code: .unknownType),
        // Bad poses.
        Case(json: #"{"type":"pose"}"#, code: .invalidPose),
        Case(json: #"{"type":"pose","points":{}}"#, code: .invalidPose),
        Case(json: #"{"type":"pose","t":"1.5"}"#, code: .invalidPose),
        Case(json: #"{"type":"pose","t":null}"#, code: .invalidPose),
        Case(json: #"{"type":"pose","t":1e400}"#, code: .invalidPose),
        Case(json: #"{"type":"pose","t":1e13}"#, code: .invalidPose),
        Case(json: #"{"type":"pose","t":1,"points":[[1,2]]}"#, code: .invalidPose),
        Case(json: #"{"type":"pose","t":1,"points":{"nose":[1]}}"#, code: .invalidPose),
        Case(json: #"{"type":"pose","t":1,"points":{"nose":[1,2,3]}}"#, code: .invalidPose),
        Case(json: #"{"type":"pose","t":1,"points":{"nose":["1",2]}}"#, code: .invalidPose),
        Case(json: #"{"type":"pose","t":1,"points":{"nose":{"x":1,"y":2}}}"#, code: .invalidPose),
        Case(json: #"{"type":"pose","t":1,"points":{"nose":[1e400,2]}}"#, code: .invalidPose),
        Case(json: #"{"type":"pose","t":1,"points":{"nose":[1000001,2]}}"#, code: .invalidPose),
        Case(json: #"{"type":"pose","t":1,"points":{"nose":[1,2]},"confidence":{"nose":1.5}}"#, code: .invalidPose),
        Case(json: #"{"type":"pose","t":1,"points":{"nose":[1,2]},"confidence":{"nose":-0.1}}"#, code: .invalidPose),
        Case(json: #"{"type":"pose","t":1,"confidence":[0.5]}"#, code: .invalidPose),
        Case(json: #"{"type":"pose","t":1,"width":0,"height":720}"#, code: .invalidPose),
        Case(json: #"{"type":"pose","t":1,"width":-1280,"height":720}"#, code: .invalidPose),
        Case(json: #"{"type":"pose","t":1,"width":1280}"#, code: .invalidPose),
        Case(json: #"{"type":"pose","t":1,"width":1e7,"height":720}"#, code: .invalidPose),
        Case(json: #"{"type":"pose","t":1,"width":"1280","height":720}"#, code: .invalidPose),
        Case(json: #"{"type":"pose","t":1,"keypoints":[1,2,0.5]}"#, code: .invalidPose),
        Case(json: #"{"type":"pose","t":1,"keypoints":\#(joints57.dropLast()),1]}"#, code: .invalidPose),
        Case(json: #"{"type":"pose","t":1,"keypoints":{"nose":[1,2]}}"#, code: .invalidPose),
        Case(
            json: #"{"type":"pose","t":1,"keypoints":[1,null,0.5\#(String(repeating: ",1", count: 54))]}"#,
            code: .invalidPose),
        Case(
            json: #"{"type":"pose","t":1,"keypoints":[1,2,"x"\#(String(repeating: ",1", count: 54))]}"#,
            code: .invalidPose),
        Case(json: #"{"type":"pose","t":1,"keypoints":\#(mediapipe99)}"#, code: .invalidPose, format: .mediapipe),
        Case(
            json: #"{"type":"pose","t":1,"width":10,"height":10,"keypoints":\#(joints57)}"#, code: .invalidPose,
            format: .mediapipe),
        Case(json: #"{"type":"pose","t":1,"points":{"nose":[0.5,0.5]}}"#, code: .invalidPose, format: .vision),
        Case(
            json: #"{"type":"pose","t":1,"width":9,"height":9,"points":{"nose":[1,2]}}"#, code: .invalidPose,
            format: .coco),
        Case(json: #"{"type":"poses"}"#, code: .invalidPose),
        Case(json: #"{"type":"poses","frames":{"t":1}}"#, code: .invalidPose),
        Case(json: #"{"type":"poses","frames":null}"#, code: .invalidPose),
        // Bad starts.
        Case(json: #"{"type":"start"}"#, code: .invalidMessage),
        Case(json: #"{"type":"start","exercise":""}"#, code: .invalidMessage),
        Case(json: #"{"type":"start","exercise":7}"#, code: .invalidMessage),
        Case(json: #"{"type":"start","exercise":"x","side":"middle"}"#, code: .invalidMessage),
        Case(json: #"{"type":"start","exercise":"x","format":"openpose"}"#, code: .invalidMessage),
        Case(json: #"{"type":"start","exercise":"x","mirrored":"yes"}"#, code: .invalidMessage),
        Case(json: #"{"type":"start","exercise":"x","minConfidence":2}"#, code: .invalidMessage),
        Case(
            json: #"{"type":"start","exercise":"x","subject":"\#(String(repeating: "s", count: 129))"}"#,
            code: .invalidMessage),
        Case(json: #"{"type":"start","exercise":"x","options":[]}"#, code: .invalidMessage),
        Case(json: #"{"type":"start","exercise":"x","options":{"snapshots":"sometimes"}}"#, code: .invalidMessage),
        Case(json: #"{"type":"start","exercise":"x","options":{"snapshots":0}}"#, code: .invalidMessage),
        Case(json: #"{"type":"start","exercise":"x","options":{"baselineReps":2.5}}"#, code: .invalidMessage),
        Case(json: #"{"type":"start","exercise":"x","options":{"baselineReps":0}}"#, code: .invalidMessage),
        Case(json: #"{"type":"start","exercise":"x","options":{"holdSeconds":-5}}"#, code: .invalidMessage),
        Case(json: #"{"type":"start","exercise":"x","options":{"target":1e400}}"#, code: .invalidMessage),
    ]

    @Test(arguments: cases)
    func answersMalformedMessageWithTheRightCode(_ testCase: Case) {
        let decoder = MessageDecoder(poseDecoder: PoseDecoder(format: testCase.format))
        #expect(decodingErrorCode(testCase.json, decoder: decoder) == testCase.code)
    }

    @Test func acceptsASubjectOfExactly128Characters() throws {
        let subject = String(repeating: "ü", count: 128)
        let message = try decodeMessage(#"{"type":"start","exercise":"x","subject":"\#(subject)"}"#)
        #expect(message == .start(StartRequest(exercise: "x", subject: subject)))
    }

    @Test func refusesHugeInputBeforeReadingIt() {
        let huge = #"{"type":"pose","t":1,"pad":""# + String(repeating: "x", count: 1 << 20) + #""}"#
        #expect(decodingErrorCode(huge) == .messageTooBig)
        let small = MessageDecoder(poseDecoder: PoseDecoder(limits: WireLimits(maxMessageBytes: 10)))
        #expect(decodingErrorCode(#"{"type":"stop"}"#, decoder: small) == .messageTooBig)
    }

    @Test func refusesInvalidUTF8() {
        var input = bytes(#"{"type":"start","exercise":"x"}"#)
        input[28] = 0xFF
        #expect(wireError { () throws(WireError) in try MessageDecoder().decode(input) }?.code == .invalidJSON)
    }

    @Test func carriesTheOffsetInTheMessage() {
        let error = wireError { () throws(WireError) in try MessageDecoder().decode(bytes(#"{"type":"pose","t":01}"#)) }
        #expect(error == WireError(code: .invalidJSON, message: "invalid number at byte 20"))
    }

    @Test func neverCrashesOnRandomBytesOrMutations() {
        var random = SeededGenerator(seed: 7)
        let seeds =
            Self.cases.map(\.json) + [
                #"{"type":"pose","t":1,"points":{"nose":[1,2]},"confidence":{"nose":0.5}}"#,
                #"{"type":"poses","frames":[{"t":1,"keypoints":\#(Self.joints57)}]}"#,
            ]
        for format in InputFormat.allCases {
            let decoder = MessageDecoder(poseDecoder: PoseDecoder(format: format, normalized: true))
            for _ in 0..<400 {
                let seed = seeds.randomElement(using: &random) ?? "{}"
                var input = JSONGenerator.mutate(bytes(seed), using: &random)
                if Int.random(in: 0..<4, using: &random) == 0 {
                    input = (0..<Int.random(in: 0...40, using: &random)).map { _ in
                        UInt8.random(in: 0...255, using: &random)
                    }
                }
                _ = wireError { () throws(WireError) in try decoder.decode(input) }
            }
        }
    }
}
