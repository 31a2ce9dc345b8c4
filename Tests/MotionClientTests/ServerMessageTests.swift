import MotionCore
import MotionWire
import Testing

/// ``ServerMessage`` reads back what ``WireEncoder`` writes, member for member.
@Suite("server messages")
struct ServerMessageTests {
    static func decode(_ write: (inout [UInt8]) -> Void) throws -> ServerMessage {
        var bytes: [UInt8] = []
        write(&bytes)
        return try ServerMessage(decoding: bytes)
    }

    static let rep = Rep(
        index: 3, peak: 142.5, trough: 20.25, start: 12.1, end: 14.2, timeToPeak: 1.2, side: .left,
        faults: [.keepUpperArmStill, .keepTrunkUpright])

    @Test func readsEveryEvent() throws {
        let events: [MotionEvent] = [
            .repCompleted(Self.rep), .repRejected(Self.rep), .holdStarted, .formFault(.keepHipsLevel),
            .visibilityChanged(Visibility(missingJoints: [.rightWrist, .nose])), .setupChanged([.tooFar, .notFacing]),
            .baselineCompleted(128.5), .setCompleted(number: 2),
        ]
        for event in events {
            let message = try Self.decode { WireEncoder.encodeEvent(event, at: 14.2, into: &$0) }
            #expect(message == .event(t: 14.2, event))
        }
    }

    @Test func readsASnapshotWithEveryMember() throws {
        let snapshot = MotionSnapshot(
            timestamp: 14.2, value: 138.2, best: 142.5, repCount: 3, rejectedCount: 1, lastRep: Self.rep,
            holdProgress: 0.5, confidence: 0.88, setupIssues: [.notCentered], isVisible: false,
            missingJoints: [.leftAnkle], isRunning: true, baseline: BaselineStatus(progress: 0.66, value: nil),
            side: .right, set: SetProgress(number: 1, of: 3, reps: 4, goal: 10),
            motion: MotionLevel(rms: 0.2, tremor: 0.05))
        #expect(try Self.decode { WireEncoder.encodeSnapshot(snapshot, into: &$0) } == .snapshot(snapshot))
        let empty = MotionSnapshot()
        #expect(try Self.decode { WireEncoder.encodeSnapshot(empty, into: &$0) } == .snapshot(empty))
    }

    @Test func readsASummaryWithoutItsSeries() throws {
        let summary = SessionSummary(
            exercise: "shoulderAbduction", exerciseVersion: 2, side: nil,
            prescription: Prescription(target: 50, rest: 20, enter: 35.5, exit: 30, reps: 10, sets: 3),
            firstTimestamp: 0, lastTimestamp: 93.5, frames: 2802, visibleFrames: 2718, repCount: 10,
            rejectedCount: 2, best: 142.5, baseline: 128, reps: [Self.rep], faultCounts: [.keepUpperArmStill: 2],
            perSide: [.left: SideTally(repCount: 4, rejectedCount: 1, best: 140), .right: SideTally(repCount: 6)])
        let metadata = SummaryMetadata(id: "s-1", status: .finished, startedAt: 0, endedAt: 93)
        let message = try Self.decode {
            WireEncoder.encodeSummary(summary, metadata: metadata, includeType: true, into: &$0)
        }
        #expect(message == .summary(id: "s-1", summary))
    }

    @Test func readsTheSessionMessages() throws {
        #expect(
            try Self.decode { WireEncoder.encodeStarted(session: "a", exercise: .squat, resume: "tok", into: &$0) }
                == .started(session: "a", resume: "tok"))
        #expect(
            try Self.decode { WireEncoder.encodeStarted(session: "a", exercise: .squat, into: &$0) }
                == .started(session: "a", resume: nil))
        #expect(
            try Self.decode { WireEncoder.encodeResumed(session: "a", t: nil, exercise: .squat, into: &$0) }
                == .resumed(session: "a", t: nil))
        #expect(
            try Self.decode {
                WireEncoder.encodeResumed(session: "a", t: 4.5, motionT: 4.49, exercise: .squat, into: &$0)
            } == .resumed(session: "a", t: 4.5, motionT: 4.49))
        #expect(try Self.decode { WireEncoder.encodeCheckpoint(at: 5.5, into: &$0) } == .checkpoint(t: 5.5))
        #expect(
            try Self.decode { WireEncoder.encodeError(WireError(code: .invalidPose, message: "no"), into: &$0) }
                == .error(code: .invalidPose, message: "no"))
        #expect(try ServerMessage(decoding: Array(#"{"type":"later","x":1}"#.utf8)) == .other(type: "later"))
    }

    @Test(arguments: [
        ("", ServerMessageError.notJSON), ("[1]", .notJSON), (#"{"t":1}"#, .missingType),
        (#"{"type":"checkpoint"}"#, .invalid(type: "checkpoint", member: "t")),
        (#"{"type":"event","t":1,"event":"repCompleted"}"#, .invalid(type: "event", member: "rep")),
        (#"{"type":"event","t":1,"event":"jumped"}"#, .invalid(type: "event", member: "event")),
    ])
    func refusesWhatIsNotAServerMessage(text: String, error: ServerMessageError) {
        #expect(throws: error) { try ServerMessage(decoding: Array(text.utf8)) }
    }
}
