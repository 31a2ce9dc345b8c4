import MotionCore
import Testing

@testable import MotionWire

/// `motion` messages and motion bodies (docs/protocol.md §3.3): samples judged one by one like the frames of a batch,
/// the whole message refused only for what is wrong with it as a whole.
@Suite struct MotionDecodingTests {
    /// A `motion` message of the given sample texts.
    static func message(_ samples: [String]) -> String {
        #"{"type":"motion","samples":["# + samples.joined(separator: ",") + "]}"
    }

    static func sample(_ t: Double, _ x: Double, _ y: Double, _ z: Double) -> MotionSample {
        MotionSample(t: t, acceleration: MotionVector(x: x, y: y, z: z))
    }

    static let badSample = "must be [t, ax, ay, az] or [t, ax, ay, az, rx, ry, rz]"

    @Test func readsSamplesWithAndWithoutRotation() throws {
        let json = Self.message(["[12.3,0.12,-9.71,0.85]", "[12.317, 0.1 ,-9.69,0.88,1.5,-2,3e1]"])
        #expect(
            try decodeMessage(json)
                == .motion([
                    .success(Self.sample(12.3, 0.12, -9.71, 0.85)),
                    .success(
                        MotionSample(
                            t: 12.317, acceleration: MotionVector(x: 0.1, y: -9.69, z: 0.88),
                            rotation: MotionVector(x: 1.5, y: -2, z: 30))),
                ]))
    }

    @Test func readsNumbersOffTheFastPathToTheSameValues() throws {
        // 20 significant digits, a large exponent, whitespace everywhere: read step by step.
        let json = Self.message(["[ 1.0000000000000000001 , 1e2 ,\n-0.5E-1, 0.25e+1 ]", "[2,1,1,1]"])
        #expect(
            try decodeMessage(json)
                == .motion([.success(Self.sample(1, 100, -0.05, 2.5)), .success(Self.sample(2, 1, 1, 1))]))
    }

    @Test func acceptsAnEmptyBatchAndSkipsUnknownMembers() throws {
        #expect(try decodeMessage(#"{"type":"motion","samples":[]}"#) == .motion([]))
        #expect(
            try decodeMessage(#"{"device":{"name":"x"},"samples":[[1,0,0,9.8]],"type":"motion","rate":100}"#)
                == .motion([.success(Self.sample(1, 0, 0, 9.8))]))
    }

    /// Every kind of sample refused alone, with its message.
    static let badSamples: [(String, String)] = [
        ("[]", badSample),
        ("[1]", badSample),
        ("[1,2,3]", badSample),
        ("[1,2,3,4,5]", badSample),
        ("[1,2,3,4,5,6]", badSample),
        ("[1,2,3,4,5,6,7,8]", badSample),
        (#"[1,2,3,"4"]"#, badSample),
        ("[1,2,3,null]", badSample),
        ("[1,2,3,[4]]", badSample),
        ("[1,2,3,{}]", badSample),
        ("[1,2,3,true]", badSample),
        ("12", badSample),
        ("null", badSample),
        (#""1,2,3,4""#, badSample),
        (#"{"t":1,"ax":0,"ay":0,"az":9.8}"#, badSample),
        ("[1e400,0,0,9.8]", "t must be finite and within ±1e12 s"),
        ("[-1e400,0,0,9.8]", "t must be finite and within ±1e12 s"),
        ("[2e12,0,0,9.8]", "t must be finite and within ±1e12 s"),
        ("[1,1e400,0,9.8]", "readings must be finite and within ±1e6"),
        ("[1,0,-1e309,9.8]", "readings must be finite and within ±1e6"),
        ("[1,0,0,2e6]", "readings must be finite and within ±1e6"),
        ("[1,0,0,9.8,0,0,1e400]", "readings must be finite and within ±1e6"),
        ("[1,0,0,9.8,0,-1e7,0]", "readings must be finite and within ±1e6"),
        // Refused deep inside nested values: the reader must come back out of them for the next sample.
        ("[1,0,0,[[[{}]]]]", badSample),
    ]

    @Test(arguments: badSamples)
    func refusesABadSampleAloneWithItsError(_ sample: String, _ message: String) throws {
        let json = Self.message(["[1,0,0,9.8]", sample, "[3,0,0,9.8]"])
        let expected = WireError(code: .invalidMessage, message: "samples[1]: \(message)")
        #expect(
            try decodeMessage(json)
                == .motion([
                    .success(Self.sample(1, 0, 0, 9.8)), .failure(expected), .success(Self.sample(3, 0, 0, 9.8)),
                ]))
        let body = #"{"samples":[[1,0,0,9.8],"# + sample + "]}"
        #expect(
            try MotionDecoder().decodeSamples(bytes(body)) == [.success(Self.sample(1, 0, 0, 9.8)), .failure(expected)])
    }

    @Test func leavesTimeOrderToTheSession() throws {
        // Non-increasing t is the stream's to judge, across messages: the decoder passes it on.
        let json = Self.message(["[2,0,0,9.8]", "[2,0,0,9.8]", "[1,0,0,9.8]"])
        guard case .motion(let samples) = try decodeMessage(json) else {
            Issue.record("not a motion message")
            return
        }
        #expect(samples.map { (try? $0.get())?.t } == [2, 2, 1])
    }

    // MARK: Whole-message refusals

    @Test(arguments: [
        MotionDecodingTests.message(["[1,0,0,9.8]", "[2,0,0,]"]),
        MotionDecodingTests.message(["[1,0,0]", "[2,0,0,9.8]", "[3,0,0,01]"]),
        MotionDecodingTests.message(["[1,0,0,\"x\",tru]"]),
        MotionDecodingTests.message(["[1,0,0,9.8]", ""]),
        MotionDecodingTests.message(["[1,0,0,NaN]"]),
        MotionDecodingTests.message(["[1,0,0,Infinity]"]),
        MotionDecodingTests.message(["[1,0,0,9.8]"]) + "x",
        #"{"type":"motion","samples":[[1,0,0,9.8]],"more":[1,]}"#,
        #"{"type":"motion","samples":[[1,0,0,9.8]]"#,
        #"{"type":"motion","samples":[[1,0,0,9.8]"#,
    ])
    func refusesTheWholeMessageForASyntaxErrorAnywhere(_ json: String) {
        #expect(decodingErrorCode(json) == .invalidJSON)
        let body = json.replacingOccurrences(of: #""type":"motion","#, with: "")
        #expect(
            wireError { () throws(WireError) in try MotionDecoder().decodeSamples(bytes(body)) }?.code == .invalidJSON)
    }

    @Test func refusesEveryTruncationOfAMessage() {
        let json = Array(Self.message(["[12.3,0.12,-9.71,0.85]", "[12.317,0.1,-9.69,0.88,1.5,-2,30]"]).utf8)
        for end in 0..<json.count {
            let code = wireError { () throws(WireError) in try MessageDecoder().decode(Array(json[..<end])) }?.code
            #expect(code == .invalidJSON, "prefix of \(end) bytes")
        }
    }

    @Test(arguments: [
        (#"{"type":"motion"}"#, "samples is required"),
        (#"{"type":"motion","samples":null}"#, "samples must be an array"),
        (#"{"type":"motion","samples":{"t":1}}"#, "samples must be an array"),
        (#"{"type":"motion","samples":[[1,0,0,9.8]]"#, ""),
        (#"{"type":"motion","samples":[],"samples":[[1,0,0,9.8]]}"#, #"duplicate member "samples""#),
        (#"{"type":"motion","samples":[],"type":"motion"}"#, #"duplicate member "type""#),
    ])
    func refusesTheWholeMessageWhenSamplesIsWrong(_ json: String, _ message: String) {
        let error = wireError { () throws(WireError) in try MessageDecoder().decode(bytes(json)) }
        if message.isEmpty {
            #expect(error?.code == .invalidJSON)
        } else {
            #expect(error == WireError(code: .invalidMessage, message: message))
        }
    }

    @Test func refusesABodyThatIsNotAnObject() {
        #expect(
            wireError { () throws(WireError) in try MotionDecoder().decodeSamples(bytes("[[1,0,0,9.8]]")) }
                == WireError(code: .invalidMessage, message: "a motion message must be a JSON object"))
    }

    // MARK: Limits

    @Test func countsBadSamplesAgainstTheSampleLimit() throws {
        let decoder = MessageDecoder(poseDecoder: PoseDecoder(limits: WireLimits(maxSamplesPerMessage: 3)))
        let three = Self.message(["[1,0,0,9.8]", "[]", "[3,0,0,9.8]"])
        guard case .motion(let samples) = try decodeMessage(three, decoder: decoder) else {
            Issue.record("not a motion message")
            return
        }
        #expect(samples.count == 3)
        let four = Self.message(["[1,0,0,9.8]", "[]", "[3,0,0,9.8]", "[4,0,0,9.8]"])
        #expect(
            wireError { () throws(WireError) in try decoder.decode(bytes(four)) }
                == WireError(code: .messageTooBig, message: "more than 3 samples"))
    }

    @Test func boundsTheDefaultSampleCount() throws {
        let limit = WireLimits().maxSamplesPerMessage
        let full = Self.message((0..<limit).map { "[\($0),0,0,9.8]" })
        guard case .motion(let samples) = try decodeMessage(full) else {
            Issue.record("not a motion message")
            return
        }
        #expect(samples.count == limit)
        #expect(samples.last == .success(Self.sample(Double(limit - 1), 0, 0, 9.8)))
        #expect(decodingErrorCode(Self.message((0...limit).map { "[\($0),0,0,9.8]" })) == .messageTooBig)
    }

    @Test func refusesAnOversizedMessageBeforeReadingIt() {
        let decoder = MessageDecoder(poseDecoder: PoseDecoder(limits: WireLimits(maxMessageBytes: 64)))
        let json = Self.message(Array(repeating: "[1,0,0,9.8]", count: 10))
        #expect(decodingErrorCode(json, decoder: decoder) == .messageTooBig)
    }

    @Test func refusesNestingPastTheDepthLimit() throws {
        // A sample needs depth 3 (object, samples, sample): with 2 the fast path must not read past the limit.
        let decoder = MessageDecoder(poseDecoder: PoseDecoder(limits: WireLimits(maxDepth: 2)))
        #expect(decodingErrorCode(Self.message(["[1,0,0,9.8]"]), decoder: decoder) == .invalidJSON)
        let deep = String(repeating: "[", count: 100) + String(repeating: "]", count: 100)
        #expect(decodingErrorCode(Self.message([deep])) == .invalidJSON)
    }
}
