import Foundation
import MotionCore
import Testing

@testable import MotionWire

/// `poses` messages, `{"frames":[…]}` bodies and NDJSON judged frame by frame (docs/protocol.md §3, flow control): a
/// frame that is well-formed JSON but not a valid pose is refused alone; what is wrong with the whole message
/// (syntax, size, frame count, `frames` itself) still refuses all of it.
@Suite struct BatchDecodingTests {
    /// A `poses` message of the given frame texts.
    static func batch(_ frames: [String]) -> String {
        #"{"type":"poses","frames":["# + frames.joined(separator: ",") + "]}"
    }

    @Test func keepsTheFramesAroundABadOne() throws {
        let json = Self.batch([#"{"t":1,"points":{"nose":[1,2]}}"#, #"{"t":"2"}"#, #"{"t":3}"#])
        #expect(
            try decodeMessage(json)
                == .poses([
                    .success(.make(t: 1, [.nose: Point(x: 1, y: 2)])),
                    .failure(WireError(code: .invalidPose, message: "frames[1]: t must be a number")),
                    .success(.make(t: 3)),
                ]))
    }

    @Test func judgesEveryFrameEvenWhenAllAreBad() throws {
        let json = Self.batch([#"{}"#, #"{"t":"x"}"#, "7"])
        #expect(
            try decodeMessage(json)
                == .poses([
                    .failure(.invalidPose("frames[0]: t is required")),
                    .failure(.invalidPose("frames[1]: t must be a number")),
                    .failure(.invalidPose("frames[2]: a pose must be a JSON object")),
                ]))
    }

    /// Every kind of error a frame can be refused for alone, with the message it gets.
    static let badFrames: [(String, WireError)] = [
        (#"{}"#, .invalidPose("t is required")),
        (#"{"points":{"nose":[1,2]}}"#, .invalidPose("t is required")),
        (#"{"t":null}"#, .invalidPose("t must be a number")),
        (#"{"t":"2"}"#, .invalidPose("t must be a number")),
        (#"{"t":[2]}"#, .invalidPose("t must be a number")),
        (#"{"t":1e400}"#, .invalidPose("t must be finite and within ±1e12 s")),
        (#"{"t":-2e12}"#, .invalidPose("t must be finite and within ±1e12 s")),
        ("2", .invalidPose("a pose must be a JSON object")),
        ("null", .invalidPose("a pose must be a JSON object")),
        (#""pose""#, .invalidPose("a pose must be a JSON object")),
        (#"[{"t":2}]"#, .invalidPose("a pose must be a JSON object")),
        (#"{"t":2,"points":[1,2]}"#, .invalidPose("points must be an object")),
        (#"{"t":2,"points":{"nose":[1]}}"#, .invalidPose("points.nose must be [x, y]")),
        (#"{"t":2,"points":{"nose":[1,2,3]}}"#, .invalidPose("points.nose must be [x, y]")),
        (#"{"t":2,"points":{"nose":{"x":1,"y":2}}}"#, .invalidPose("points.nose must be [x, y]")),
        (#"{"t":2,"points":{"nose":[1,"2"]}}"#, .invalidPose("points.nose must be [x, y]")),
        (#"{"t":2,"points":{"nose":[1e400,2]}}"#, .invalidPose("nose must be finite and within ±1e6 pixels")),
        (#"{"t":2,"points":{"nose":[1,2000000]}}"#, .invalidPose("nose must be finite and within ±1e6 pixels")),
        (#"{"t":2,"confidence":{"nose":1.5}}"#, .invalidPose("confidence.nose must be within 0…1")),
        (#"{"t":2,"confidence":{"nose":"high"}}"#, .invalidPose("confidence.nose must be a number or null")),
        (#"{"t":2,"confidence":[0.5]}"#, .invalidPose("confidence must be an object")),
        (#"{"t":2,"width":1280}"#, .invalidPose("width and height go together")),
        (#"{"t":2,"width":0,"height":720}"#, .invalidPose("width and height must be within 0…1e6 pixels")),
        (#"{"t":2,"width":"1280","height":720}"#, .invalidPose("width must be a number")),
        (
            #"{"t":2,"keypoints":[1,2,0.5]}"#,
            .invalidPose("keypoints must hold 57 numbers (19 × [x, y, c]) for joints")
        ),
        (#"{"t":2,"t":3}"#, .invalidPose(#"duplicate member "t""#)),
        (#"{"t":2,"points":{"nose":[1,2],"nose":[3,4]}}"#, .invalidPose(#"duplicate member "nose" in points"#)),
        (#"{"t":2,"confidence":{"nose":1,"n\u006fse":1}}"#, .invalidPose(#"duplicate member "nose" in confidence"#)),
        (#"{"type":"pose","type":"pose","t":2}"#, WireError.duplicateMember("type", code: .invalidMessage)),
        // Refused deep inside nested values: the reader must come back out of them for the next frame.
        (#"{"x":{"y":[[{}]]},"points":{"nose":[1,[2]]},"t":2}"#, .invalidPose("points.nose must be [x, y]")),
    ]

    @Test(arguments: badFrames)
    func refusesABadFrameAloneWithItsError(_ frame: String, _ error: WireError) throws {
        let json = Self.batch([#"{"t":1}"#, frame, #"{"t":3,"points":{"nose":[5,6]}}"#])
        let expected = WireError(code: error.code, message: "frames[1]: \(error.message)")
        let after = Pose.make(t: 3, [.nose: Point(x: 5, y: 6)])
        #expect(try decodeMessage(json) == .poses([.success(.make(t: 1)), .failure(expected), .success(after)]))
        let body = #"{"frames":[{"t":1},"# + frame + "]}"
        #expect(try PoseDecoder().decodeFrames(bytes(body)) == [.success(.make(t: 1)), .failure(expected)])
    }

    @Test(arguments: badFrames)
    func refusesABadLineOfNDJSONAlone(_ frame: String, _ error: WireError) throws {
        let ndjson = "{\"t\":1}\n" + frame + "\n{\"t\":3}"
        let expected = WireError(code: error.code, message: "line 2: \(error.message)")
        #expect(
            try PoseDecoder().decodeNDJSON(bytes(ndjson)) == [
                .success(.make(t: 1)), .failure(expected), .success(.make(t: 3)),
            ])
    }

    @Test func judgesFramesInTheSessionsFormat() throws {
        let decoder = MessageDecoder(poseDecoder: PoseDecoder(format: .vision))
        let json = Self.batch([
            #"{"t":1,"width":100,"height":50,"points":{"nose":[0.5,0.2]}}"#, #"{"t":2,"points":{"nose":[0.5,0.2]}}"#,
        ])
        #expect(
            try decodeMessage(json, decoder: decoder)
                == .poses([
                    .success(.make(t: 1, size: ImageSize(width: 100, height: 50), [.nose: Point(x: 50, y: 40)])),
                    .failure(.invalidPose("frames[1]: vision poses need width and height")),
                ]))
        let coco = MessageDecoder(poseDecoder: PoseDecoder(format: .coco))
        #expect(
            try decodeMessage(Self.batch([#"{"t":1,"points":{}}"#, #"{"t":2}"#]), decoder: coco)
                == .poses([
                    .failure(.invalidPose("frames[0]: coco poses carry their points in keypoints")),
                    .success(.make(t: 2)),
                ]))
    }

    // MARK: Whole-message refusals

    @Test(arguments: [
        // A syntax error in a frame, in a frame after a bad one, inside a bad frame after what refused it.
        BatchDecodingTests.batch([#"{"t":1}"#, #"{"t":}"#]),
        BatchDecodingTests.batch([#"{"t":"x"}"#, #"{"t":1}"#, #"{"t":01}"#]),
        BatchDecodingTests.batch([#"{"t":"x","a":tru}"#, #"{"t":1}"#]),
        BatchDecodingTests.batch([#"{"t":2,"points":{"nose":[1,"2"]},"x":[}"#]),
        BatchDecodingTests.batch([#"{"t":"x"}"#, "nul"]),
        BatchDecodingTests.batch([#"{"t":"x"}"#, "NaN"]),
        BatchDecodingTests.batch([#"{"t":"x","s":"\q"}"#]),
        // Around the frames: a trailing comma, bytes after the message, a bad member after the array.
        BatchDecodingTests.batch([#"{"t":1}"#, ""]),
        BatchDecodingTests.batch([#"{"t":"x"}"#]) + "x",
        #"{"type":"poses","frames":[{"t":"x"}],"more":[1,]}"#,
        #"{"type":"poses","frames":[{"t":"x"}]"#,
    ])
    func refusesTheWholeBatchForASyntaxErrorAnywhere(_ json: String) {
        #expect(decodingErrorCode(json) == .invalidJSON)
        let body = json.replacingOccurrences(of: #""type":"poses","#, with: "")
        #expect(wireError { () throws(WireError) in try PoseDecoder().decodeFrames(bytes(body)) }?.code == .invalidJSON)
    }

    @Test func namesWhereTheSyntaxErrorIs() {
        let json = Self.batch([#"{"t":"x"}"#, #"{"t":01}"#])
        #expect(
            wireError { () throws(WireError) in try MessageDecoder().decode(bytes(json)) }
                == WireError(code: .invalidJSON, message: "invalid number at byte 42"))
    }

    @Test func refusesTheWholeBatchForInvalidUTF8InAFrame() {
        var input = bytes(Self.batch([#"{"t":"x"}"#, #"{"t":1,"s":"é"}"#]))
        let index = input.firstIndex(of: 0xC3) ?? 0
        input[index] = 0xFF
        #expect(wireError { () throws(WireError) in try MessageDecoder().decode(input) }?.code == .invalidJSON)
    }

    @Test(arguments: [
        #"{"type":"poses"}"#, #"{"type":"poses","frames":null}"#, #"{"type":"poses","frames":{"t":1}}"#,
        #"{"type":"poses","frames":[{"t":"x"}],"frames":[]}"#,
    ])
    func refusesTheWholeBatchWhenFramesIsWrong(_ json: String) {
        #expect(decodingErrorCode(json) == .invalidPose)
    }

    @Test func throwsTheErrorOfASinglePoseBody() {
        #expect(
            wireError { () throws(WireError) in try PoseDecoder().decodeFrames(bytes(#"{"t":"x"}"#)) }
                == .invalidPose("t must be a number"))
    }

    // MARK: Limits

    @Test func countsBadFramesAgainstTheBatchLimit() throws {
        let decoder = MessageDecoder(poseDecoder: PoseDecoder(limits: WireLimits(maxFramesPerBatch: 3)))
        let three = Self.batch([#"{"t":1}"#, "{}", #"{"t":3}"#])
        #expect(
            try decodeMessage(three, decoder: decoder)
                == .poses([
                    .success(.make(t: 1)), .failure(.invalidPose("frames[1]: t is required")), .success(.make(t: 3)),
                ]))
        let four = Self.batch(["{}", "{}", "{}", "{}"])
        #expect(
            wireError { () throws(WireError) in try decoder.decode(bytes(four)) }
                == WireError(code: .messageTooBig, message: "more than 3 frames"))
        let body = #"{"frames":[{"t":1},1,{"t":3},2]}"#
        #expect(
            wireError { () throws(WireError) in try decoder.poseDecoder.decodeFrames(bytes(body)) }?.code
                == .messageTooBig)
    }

    @Test func boundsTheErrorsOfABatchByTheFrameLimit() throws {
        let limit = WireLimits().maxFramesPerBatch
        let full = Self.batch(Array(repeating: #"{"t":"x"}"#, count: limit))
        guard case .poses(let frames) = try decodeMessage(full) else {
            Issue.record("not a batch")
            return
        }
        #expect(frames.count == limit)
        #expect(frames.last == .failure(.invalidPose("frames[\(limit - 1)]: t must be a number")))
        let over = Self.batch(Array(repeating: #"{"t":"x"}"#, count: limit + 1))
        #expect(decodingErrorCode(over) == .messageTooBig)
    }

    @Test func refusesAnOversizedBatchBeforeReadingIt() {
        let decoder = MessageDecoder(poseDecoder: PoseDecoder(limits: WireLimits(maxMessageBytes: 40)))
        #expect(decodingErrorCode(Self.batch([#"{"t":1}"#, #"{"t":"x"}"#, "{}"]), decoder: decoder) == .messageTooBig)
    }

    // MARK: NDJSON

    @Test func refusesALineThatIsNotJSONAlone() throws {
        let ndjson = "{\"t\":1}\r\n\n{\"t\":}\n  \n{\"t\":3}\n"
        #expect(
            try PoseDecoder().decodeNDJSON(bytes(ndjson))
                == [
                    .success(.make(t: 1)),
                    .failure(WireError(code: .invalidJSON, message: "line 3: unexpected byte at byte 5")),
                    .success(.make(t: 3)),
                ])
        var invalidUTF8 = bytes("{\"t\":1,\"s\":\"é\"}\n{\"t\":2}")
        invalidUTF8[12] = 0xFF
        let frames = try PoseDecoder().decodeNDJSON(invalidUTF8)
        #expect(frames.count == 2)
        #expect((try? frames[0].get()) == nil)
        #expect(frames[1] == .success(.make(t: 2)))
    }

    @Test func countsBadLinesAgainstTheBatchLimitButNotBlankOnes() throws {
        let decoder = PoseDecoder(limits: WireLimits(maxFramesPerBatch: 3))
        let three = bytes("{\"t\":1}\n\n{\"t\":}\n\n\n{}\n")
        #expect(try decoder.decodeNDJSON(three).count == 3)
        let four = bytes("{\"t\":1}\n{\"t\":}\n{}\n{\"t\":4}")
        #expect(
            wireError { () throws(WireError) in try decoder.decodeNDJSON(four) }
                == WireError(code: .messageTooBig, message: "more than 3 frames"))
        let small = PoseDecoder(limits: WireLimits(maxMessageBytes: 8))
        #expect(wireError { () throws(WireError) in try small.decodeNDJSON(four) }?.code == .messageTooBig)
    }

    // MARK: Frames alone and in a batch

    /// A frame of a batch reads as the same frame sent alone: the same pose, or the same error named after its
    /// index, whatever surrounds it.
    @Test func readsEachFrameAsItReadsAlone() throws {
        var random = SeededGenerator(seed: 0xBA7C4)
        let good = [
            #"{"t":4,"points":{"leftWrist":[10.5,20.25],"rightWrist":null},"confidence":{"leftWrist":0.5}}"#,
            #"{"type":"pose","t":5,"width":640,"height":480}"#,
            #"{"t":6,"keypoints":\#(MalformedInputTests.joints57)}"#,
        ]
        let pool = good + Self.badFrames.map(\.0)
        let decoder = PoseDecoder()
        for _ in 0..<200 {
            let frames = (0..<Int.random(in: 0...8, using: &random)).map { _ in pool.randomElement(using: &random) ?? ""
            }
            let expected: [Result<Pose, WireError>] = frames.enumerated().map { index, frame in
                Result { () throws(WireError) in try decoder.decodePose(bytes(frame)) }
                    .mapError { WireError(code: $0.code, message: "frames[\(index)]: \($0.message)") }
            }
            #expect(try decodeMessage(Self.batch(frames)) == .poses(expected))
            let ndjson = frames.joined(separator: "\n")
            let lines = try decoder.decodeNDJSON(bytes(ndjson))
            #expect(lines.map { try? $0.get() } == expected.map { try? $0.get() })
        }
    }
}
