import MotionCore
import Testing

@testable import MotionWire

/// A recording's `motion` member in `POST /v1/analyze`, and the stored motion series as
/// `GET /v1/sessions/{id}/motion` writes it (docs/protocol.md §3.3, §5.2).
@Suite struct RecordingMotionTests {
    static func decode(
        _ json: String, limits: WireLimits = WireLimits()
    ) throws(WireError) -> [Result<
        MotionSample, WireError
    >] {
        try MotionDecoder(limits: limits).decodeRecordingSamples(Array(json.utf8))
    }

    @Test func readsTheMotionMemberBesideTheFrames() throws {
        let samples = try Self.decode(
            #"{"exercise":"squat","frames":[{"t":1,"points":{}}],"motion":[[1,0,-9.8,0],[2,1],[3,0,0,0,1,2,3]]}"#)
        #expect(samples.count == 3)
        #expect(try samples[0].get() == MotionSample(t: 1, acceleration: MotionVector(x: 0, y: -9.8, z: 0)))
        #expect(throws: WireError.self) { try samples[1].get() }
        if case .failure(let error) = samples[1] {
            #expect(error.code == .invalidMessage)
            #expect(error.message.hasPrefix("motion[1]: "))
        }
        #expect(try samples[2].get().rotation == MotionVector(x: 1, y: 2, z: 3))
    }

    @Test func aRecordingWithoutMotionHasNoSamples() throws {
        #expect(try Self.decode(#"{"exercise":"squat","frames":[]}"#).isEmpty)
        #expect(try Self.decode(#"{"exercise":"squat","samples":[[1,0,0,0]]}"#).isEmpty, "samples is not read here")
    }

    @Test(arguments: [
        (#"{"motion":{"t":1}}"#, ErrorCode.invalidMessage),
        (#"{"motion":[],"motion":[]}"#, .invalidMessage),
        (#"{"motion":[[1,0,0,0]"#, .invalidJSON),
        (#"{"motion":[[1,0,0,0]],"frames":[}"#, .invalidJSON),
        ("[]", .invalidMessage),
    ])
    func refusesAMotionMemberThatIsNoSampleArray(_ json: String, _ code: ErrorCode) {
        #expect {
            try Self.decode(json)
        } throws: { ($0 as? WireError)?.code == code }
    }

    @Test func refusesMoreSamplesThanARecordingMayHold() throws {
        var limits = WireLimits()
        limits.maxSamplesPerRecording = 3
        let three = #"{"motion":[[1,0,0,0],[2,0,0,0],[3,0,0,0]]}"#
        #expect(try Self.decode(three, limits: limits).count == 3)
        #expect {
            try Self.decode(#"{"motion":[[1,0,0,0],[2,0,0,0],[3,0,0,0],[4,0,0,0]]}"#, limits: limits)
        } throws: { ($0 as? WireError)?.code == .messageTooBig }
        // The default is the recording's own limit, not a message's.
        let many = "[" + Array(repeating: "[1,0,0,0]", count: 2000).joined(separator: ",") + "]"
        #expect(try Self.decode(#"{"motion":\#(many)}"#).count == 2000)
    }

    @Test func encodesTheMotionSeries() {
        var series = MotionSeries()
        series.record(MotionSample(t: 1, acceleration: MotionVector(x: 0.5, y: -9.75, z: 0)))
        series.record(MotionSample(t: 1.01, acceleration: MotionVector(x: 9, y: 9, z: 9)))  // same 0.05 s slot
        series.record(MotionSample(t: 1.05, acceleration: MotionVector(x: -1, y: 2, z: 0.25)))
        var buffer: [UInt8] = []
        WireEncoder.encodeMotionSeries(series, into: &buffer)
        #expect(
            String(decoding: buffer, as: UTF8.self)
                == #"{"interval":0.05,"t":[1.0,1.05],"x":[0.5,-1.0],"y":[-9.75,2.0],"z":[0.0,0.25]}"#)
        buffer.removeAll()
        WireEncoder.encodeMotionSeries(MotionSeries(), into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == #"{"interval":0.05,"t":[],"x":[],"y":[],"z":[]}"#)
    }
}
