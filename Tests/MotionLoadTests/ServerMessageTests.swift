import Glibc
import Testing

@testable import motion_load

/// What motion-load reads of the server's messages, including malformed, truncated and hostile ones.
@Suite struct ServerMessageTests {
    static func withBytes<T>(_ text: String, _ body: (UnsafeRawBufferPointer) -> T) -> T {
        Array(text.utf8).withUnsafeBytes(body)
    }

    @Test(arguments: [
        (#"{"type":"snapshot","t":1.5}"#, "snapshot"), (#"{"type":"event","t":1,"event":"repCompleted"}"#, "event"),
        (#"{"type":"started","session":"x"}"#, "started"), (#"{"type":"summary","frames":3}"#, "summary"),
        (#"{"type":"error","code":"rateLimited"}"#, "error"), (#"{"type":"bogus"}"#, "other"), ("", "other"),
        (#"{"type":""#, "other"), (#"{"typ":"snapshot"}"#, "other"), ("not json at all", "other"),
        (#"{"type":"sn"#, "other"), (#"{"type":"checkpoint","t":4.9}"#, "checkpoint"),
        (#"{"type":"checkpointed","t":4.9}"#, "other"),
    ])
    func classifiesByType(message: String, expected: String) {
        let kind = Self.withBytes(message) { ServerMessage.kind(of: $0) }
        #expect("\(kind)" == expected)
    }

    @Test func readsTheFieldsItNeedsAndNothingElse() {
        let snapshot = #"{"type":"snapshot","t":12.033333,"value":1.5}"#
        let number = Self.withBytes(snapshot) { bytes in
            ServerMessage.numberField(ServerMessage.timeKey, in: bytes).map { Array($0) }
        }
        #expect(number.map { String(decoding: $0, as: UTF8.self) } == "12.033333")
        let event = #"{"type":"event","t":1,"event":"formFault","fault":"x"}"#
        #expect(Self.withBytes(event) { ServerMessage.stringField(ServerMessage.eventKey, in: $0) } == "formFault")
        let error = #"{"type":"error","code":"invalidPose","message":"m"}"#
        #expect(Self.withBytes(error) { ServerMessage.stringField(ServerMessage.codeKey, in: $0) } == "invalidPose")
        // Missing, truncated or mistyped values read as nothing.
        for broken in [#"{"type":"snapshot"}"#, #"{"type":"snapshot","t":"#, #"{"type":"snapshot","t":"1"}"#] {
            #expect(Self.withBytes(broken) { ServerMessage.numberField(ServerMessage.timeKey, in: $0) } == nil)
        }
        for broken in [#"{"type":"error","code":"unterminated"#, #"{"type":"error","code":7}"#, #"{"code":"#] {
            #expect(Self.withBytes(broken) { ServerMessage.stringField(ServerMessage.codeKey, in: $0) } == nil)
        }
    }

    @Test(arguments: [30.0, 60.0, 7.0, 29.97])
    func timestampsRoundTripToTheirFrameNumber(rate: Double) {
        var buffer: [UInt8] = []
        for frame in [0, 1, 2, 29, 30, 31, 999, 54_321, 3_000_000] {
            buffer.removeAll()
            Timestamp.append(frame: frame, microsecondsPerFrame: 1e6 / rate, to: &buffer)
            // The server echoes the shortest form of the same Double; both must give back the frame.
            let text = String(decoding: buffer, as: UTF8.self)
            let echoed = Array((Double(text) ?? -1).description.utf8)
            for form in [buffer, echoed] {
                #expect(form.withUnsafeBytes { Timestamp.frame(of: $0, framesPerSecond: rate) } == frame, "\(text)")
            }
        }
    }

    @Test func aTimestampThatIsNoNumberIsRefused() {
        for text in ["", "-1", "abc", "1.5x", "nan", "inf", String(repeating: "9", count: 60), "1e999"] {
            #expect(Array(text.utf8).withUnsafeBytes { Timestamp.frame(of: $0, framesPerSecond: 30) } == nil, "\(text)")
        }
    }

    @Test func aMalformedRecordingIsRefusedWithItsReason() throws {
        let path = "/tmp/motion-load-test-\(getpid()).ndjson"
        defer { unlink(path) }
        for content in ["", "{\"t\":1,\"points\":{\"nose\":[1,2]}\n{\"t\":2,\"points\":", "[1,2,3]", "{\"frames\":["] {
            let file = fopen(path, "w")
            fputs(content, file)
            fclose(file)
            #expect(throws: PoseScript.Failure.self) { try PoseScript.recorded(path: path) }
        }
        #expect(throws: PoseScript.Failure.self) { try PoseScript.recorded(path: "/nonexistent/poses.ndjson") }
    }

    @Test func anOversizedRecordingIsRefusedBeforeItIsRead() throws {
        let path = "/tmp/motion-load-test-big-\(getpid()).ndjson"
        defer { unlink(path) }
        let fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0o600)
        try #require(fd >= 0)
        ftruncate(fd, off_t(PoseScript.maxRecordingBytes + 1))  // sparse: no disk space used
        close(fd)
        do {
            _ = try PoseScript.recorded(path: path)
            Issue.record("an oversized recording was accepted")
        } catch {
            #expect(error.description.contains("more than"))
        }
    }
}
