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
            .repCompleted(Self.rep), .repRejected(Self.rep), .holdStarted,
            .holdEnded(Hold(start: 1.5, held: 12.625, completed: true)),
            .holdEnded(Hold(start: 13.5, held: 0.5, completed: false)), .formFault(.keepHipsLevel),
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
            rejectedCount: 2, best: 142.5, baseline: 128, reps: [Self.rep],
            holds: [Hold(start: 2.5, held: 4.25, completed: false), Hold(start: 9, held: 121.5, completed: true)],
            faultCounts: [.keepUpperArmStill: 2],
            perSide: [.left: SideTally(repCount: 4, rejectedCount: 1, best: 140), .right: SideTally(repCount: 6)])
        let metadata = SummaryMetadata(id: "s-1", status: .finished, startedAt: 0, endedAt: 93)
        let message = try Self.decode {
            WireEncoder.encodeSummary(summary, metadata: metadata, includeType: true, into: &$0)
        }
        #expect(message == .summary(id: "s-1", summary))
    }

    /// A summary message without holds, its `holds` and `bestHold` members then replaced by `members`.
    static func summaryText(holds members: String) -> String {
        let summary = SessionSummary(exercise: "plankHold", firstTimestamp: 0, lastTimestamp: 60, frames: 1800)
        let metadata = SummaryMetadata(id: "s-2", status: .finished, startedAt: 0, endedAt: 60)
        var bytes: [UInt8] = []
        WireEncoder.encodeSummary(summary, metadata: metadata, includeType: true, into: &bytes)
        let text = String(decoding: bytes, as: UTF8.self)
        let tail = #","holds":[],"bestHold":null,"goal":null,"programme":null,"demo":false}"#
        #expect(text.hasSuffix(tail))
        return text.dropLast(tail.count) + members + #","goal":null,"programme":null,"demo":false}"#
    }

    @Test func readsASummaryFromAServerWithoutHolds() throws {
        let message = try ServerMessage(decoding: Array(Self.summaryText(holds: "").utf8))
        guard case .summary(_, let summary) = message else { return #expect(Bool(false), "\(message)") }
        #expect(summary.holds.isEmpty)
        #expect(summary.bestHold == nil)
    }

    @Test func readsAHoldEndedWithoutItsStartAsHeldUntilItsPose() throws {
        let text = #"{"type":"event","t":50.5,"event":"holdEnded","held":42.25,"completed":true}"#
        #expect(
            try ServerMessage(decoding: Array(text.utf8))
                == .event(t: 50.5, .holdEnded(Hold(start: 8.25, held: 42.25, completed: true))))
    }

    @Test(arguments: [
        (#"{"type":"event","t":1,"event":"holdEnded","completed":true}"#, "held"),
        (#"{"type":"event","t":1,"event":"holdEnded","held":-0.5,"completed":true}"#, "held"),
        (#"{"type":"event","t":1,"event":"holdEnded","held":null,"completed":true}"#, "held"),
        (#"{"type":"event","t":1,"event":"holdEnded","held":"4","completed":true}"#, "held"),
        (#"{"type":"event","t":1,"event":"holdEnded","held":1e999,"completed":true}"#, "held"),
        (#"{"type":"event","t":1,"event":"holdEnded","held":4}"#, "completed"),
        (#"{"type":"event","t":1,"event":"holdEnded","held":4,"completed":1}"#, "completed"),
        (#"{"type":"event","t":1,"event":"holdEnded","held":4,"completed":true,"start":"0"}"#, "start"),
        (#"{"type":"event","t":1,"event":"holdEnded","held":4,"completed":true,"start":-1e999}"#, "start"),
    ])
    func refusesAMalformedHoldEnded(text: String, member: String) {
        #expect(throws: ServerMessageError.invalid(type: "event", member: member)) {
            try ServerMessage(decoding: Array(text.utf8))
        }
    }

    @Test(arguments: [
        (#","holds":{},"bestHold":null"#, "summary", "holds"),
        (#","holds":[1],"bestHold":1"#, "summary", "holds"),
        (#","holds":[{"start":1,"held":-2,"completed":true}],"bestHold":-2"#, "summary.holds", "held"),
        (#","holds":[{"start":1,"held":null,"completed":true}],"bestHold":null"#, "summary.holds", "held"),
        (#","holds":[{"start":1,"held":"2","completed":true}],"bestHold":2"#, "summary.holds", "held"),
        (#","holds":[{"start":1,"held":1e400,"completed":true}],"bestHold":null"#, "summary.holds", "held"),
        (#","holds":[{"held":2,"completed":true}],"bestHold":2"#, "summary.holds", "start"),
        (#","holds":[{"start":1,"held":2,"completed":"yes"}],"bestHold":2"#, "summary.holds", "completed"),
        (#","holds":[{"start":1,"held":2,"completed":true}],"bestHold":3"#, "summary", "bestHold"),
        (#","holds":[{"start":1,"held":2,"completed":true}],"bestHold":null"#, "summary", "bestHold"),
        (#","holds":[{"start":1,"held":2,"completed":true}],"bestHold":"2""#, "summary", "bestHold"),
        (#","holds":[],"bestHold":0"#, "summary", "bestHold"),
    ])
    func refusesMalformedHolds(members: String, type: String, member: String) {
        #expect(throws: ServerMessageError.invalid(type: type, member: member)) {
            try ServerMessage(decoding: Array(Self.summaryText(holds: members).utf8))
        }
    }

    /// A hold whose time is not a number (NaN, written `null`) does not read back as a hold.
    @Test func refusesASummaryWhoseHoldWasNotANumber() {
        var summary = SessionSummary(exercise: "plankHold")
        summary.holds = [Hold(start: 1, held: .nan, completed: false)]
        #expect(throws: ServerMessageError.invalid(type: "summary.holds", member: "held")) {
            try Self.decode {
                WireEncoder.encodeSummary(
                    summary, metadata: SummaryMetadata(id: "s", status: .finished, startedAt: 0), includeType: true,
                    into: &$0)
            }
        }
    }

    @Test func refusesMoreHoldsThanItsLimit() throws {
        let hold = #"{"start":1,"held":2,"completed":true}"#
        let three = Self.summaryText(holds: #","holds":["# + [hold, hold, hold].joined(separator: ",") + "]")
        var limits = WireLimits()
        limits.maxHoldsPerSummary = 3
        guard case .summary(_, let summary) = try ServerMessage(decoding: Array(three.utf8), limits: limits) else {
            return #expect(Bool(false))
        }
        #expect(summary.holds.count == 3)
        limits.maxHoldsPerSummary = 2
        #expect(throws: ServerMessageError.tooMany(type: "summary", member: "holds", limit: 2)) {
            try ServerMessage(decoding: Array(three.utf8), limits: limits)
        }
        // The default: 10,000.
        let many = Self.summaryText(
            holds: #","holds":["# + [String](repeating: hold, count: 10_001).joined(separator: ",") + "]")
        #expect(throws: ServerMessageError.tooMany(type: "summary", member: "holds", limit: 10_000)) {
            try ServerMessage(decoding: Array(many.utf8))
        }
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
