public import MotionCore
import PortableBasics

/// Snapshots and summaries: the state of a session.
extension WireEncoder {
    /// Writes `snapshot`, members in docs/protocol.md §3 order, then those of §5.2:
    ///
    ///     {"type":"snapshot","t":14.2,"value":138.2,"best":142.5,"repCount":3,"rejectedCount":1,
    ///      "lastRep":{…rep…},"holdProgress":null,"confidence":0.88,"setupIssues":[],
    ///      "isVisible":true,"missingJoints":[],"isRunning":true,"baseline":{"progress":0.66,"value":null},
    ///      "side":null,"set":{"number":1,"of":3,"reps":4,"goal":10,"complete":false}}
    ///
    /// `t` is `null` before the first pose; `lastRep` and `baseline` are `null` when absent; `side` is `null`
    /// unless the exercise is `alternating` (then the side `value` belongs to); `set` is `null` without a
    /// prescribed rep goal.
    /// - Parameters:
    ///   - snapshot: The engine's snapshot.
    ///   - includeType: Whether to write `"type":"snapshot"` first (false inside a REST body).
    ///   - buffer: The buffer to append to.
    public static func encodeSnapshot(_ snapshot: MotionSnapshot, includeType: Bool = true, into buffer: inout [UInt8])
    {
        var cache = SnapshotCache()
        encodeSnapshot(snapshot, includeType: includeType, cache: &cache, into: &buffer)
    }

    /// Writes `snapshot` as ``encodeSnapshot(_:includeType:into:)`` does, reusing from `cache` the encoded parts that
    /// rarely change between one session's snapshots (its last rep): a live session keeps one cache.
    /// - Parameters:
    ///   - snapshot: The engine's snapshot.
    ///   - includeType: Whether to write `"type":"snapshot"` first.
    ///   - cache: The session's cache, updated.
    ///   - buffer: The buffer to append to.
    public static func encodeSnapshot(
        _ snapshot: MotionSnapshot, includeType: Bool = true, cache: inout SnapshotCache, into buffer: inout [UInt8]
    ) {
        buffer.appendLiteral(includeType ? #"{"type":"snapshot","t":"# : #"{"t":"#)
        buffer.appendJSONNumber(snapshot.timestamp)
        buffer.appendLiteral(#","value":"#)
        buffer.appendJSONNumber(snapshot.value)
        buffer.appendLiteral(#","best":"#)
        cache.best.append(snapshot.best, to: &buffer)
        buffer.appendLiteral(#","repCount":"#)
        buffer.appendJSONInteger(snapshot.repCount)
        buffer.appendLiteral(#","rejectedCount":"#)
        buffer.appendJSONInteger(snapshot.rejectedCount)
        buffer.appendLiteral(#","lastRep":"#)
        if let rep = snapshot.lastRep {
            if cache.rep != rep {
                cache.rep = rep
                cache.repBytes.removeAll(keepingCapacity: true)
                encodeRep(rep, into: &cache.repBytes)
            }
            buffer.append(contentsOf: cache.repBytes)
        } else {
            buffer.appendLiteral("null")
        }
        buffer.appendLiteral(#","holdProgress":"#)
        buffer.appendJSONNumber(snapshot.holdProgress)
        buffer.appendLiteral(#","confidence":"#)
        cache.confidence.append(snapshot.confidence, to: &buffer)
        buffer.appendLiteral(#","setupIssues":"#)
        buffer.appendJSONStrings(snapshot.setupIssues)
        buffer.appendLiteral(#","isVisible":"#)
        buffer.appendJSONBool(snapshot.isVisible)
        buffer.appendLiteral(#","missingJoints":"#)
        buffer.appendJSONStrings(snapshot.missingJoints)
        buffer.appendLiteral(#","isRunning":"#)
        buffer.appendJSONBool(snapshot.isRunning)
        buffer.appendLiteral(#","baseline":"#)
        if let baseline = snapshot.baseline {
            buffer.appendLiteral(#"{"progress":"#)
            buffer.appendJSONNumber(baseline.progress)
            buffer.appendLiteral(#","value":"#)
            buffer.appendJSONNumber(baseline.value)
            buffer.append(UInt8(ascii: "}"))
        } else {
            buffer.appendLiteral("null")
        }
        if let motion = snapshot.motion {
            // docs/protocol.md §3.3: present only once motion samples arrived.
            buffer.appendLiteral(#","motion":{"rms":"#)
            buffer.appendJSONNumber(motion.rms)
            buffer.appendLiteral(#","tremor":"#)
            buffer.appendJSONNumber(motion.tremor)
            buffer.append(UInt8(ascii: "}"))
        }
        guard snapshot.side != nil || snapshot.set != nil else {
            // Most sessions: neither alternating nor prescribed a goal. One copy, not four.
            buffer.appendLiteral(#","side":null,"set":null}"#)
            return
        }
        buffer.appendLiteral(#","side":"#)
        buffer.appendJSONSide(snapshot.side)
        buffer.appendLiteral(#","set":"#)
        if let set = snapshot.set {
            buffer.appendLiteral(#"{"number":"#)
            buffer.appendJSONInteger(set.number)
            buffer.appendLiteral(#","of":"#)
            buffer.appendJSONInteger(set.of)
            buffer.appendLiteral(#","reps":"#)
            buffer.appendJSONInteger(set.reps)
            buffer.appendLiteral(#","goal":"#)
            buffer.appendJSONInteger(set.goal)
            buffer.appendLiteral(#","complete":"#)
            buffer.appendJSONBool(set.isComplete)
            buffer.append(UInt8(ascii: "}"))
        } else {
            buffer.appendLiteral("null")
        }
        buffer.append(UInt8(ascii: "}"))
    }

    /// Writes a session summary (docs/protocol.md §5), members in the documented order, then those of §5.2:
    ///
    ///     {"id":"…","subject":"patient-17","exercise":"elbowFlexion","side":"right",
    ///      "status":"finished","startedAt":"2026-11-29T14:00:00Z","endedAt":"2026-11-29T14:01:33Z",
    ///      "duration":93.4,"frames":2802,"visibleRatio":0.97,"repCount":10,"rejectedCount":2,
    ///      "best":142.5,"baseline":128.0,"reps":[…],"faultCounts":{"keepUpperArmStill":2},
    ///      "exerciseVersion":1,"prescription":{"target":150.0,"rest":30.0,"enter":60.0,"exit":40.0,
    ///      "holdSeconds":null,"reps":10,"sets":3},"perSide":null,"holds":[],"bestHold":null}
    ///
    /// Server times are ISO-8601 UTC to the whole second; `endedAt` is `null` while live, `subject`, `side`,
    /// `best` and `baseline` are `null` when absent, and `faultCounts` lists faults in vocabulary order.
    /// `prescription` is the effective one, every member present: `holdSeconds` is `null` for rep exercises,
    /// `reps` and `sets` when no goal was prescribed, and all of them for sessions stored before prescriptions
    /// were recorded. `perSide` is `{"left":{"repCount":…,"rejectedCount":…,"best":…},"right":{…}}` for
    /// `alternating` exercises and `null` otherwise. `holds` lists every hold attempt that ended, in order
    /// (``encodeHold(_:into:)``; empty for rep exercises), and `bestHold` is the longest time held, `null` without
    /// one (docs/protocol.md §5.4).
    /// - Parameters:
    ///   - summary: The engine's summary.
    ///   - metadata: What the server adds: id, subject, status, times.
    ///   - includeType: Whether to write `"type":"summary"` first: true for the WebSocket message after `stop`,
    ///     false (the default) for REST bodies.
    ///   - buffer: The buffer to append to.
    public static func encodeSummary(
        _ summary: SessionSummary, metadata: SummaryMetadata, includeType: Bool = false, into buffer: inout [UInt8]
    ) {
        appendSummaryHead(
            metadata: metadata, exercise: summary.exercise, side: summary.side, includeType: includeType,
            into: &buffer)
        encodeSummaryMeasures(summary, into: &buffer)
        appendSummaryTail(metadata: metadata, into: &buffer)
    }

    /// Writes a session summary whose measures were written before by ``encodeSummaryMeasures(_:into:)`` (a stored
    /// rendering of version ``summaryMeasuresVersion``): the same bytes as
    /// ``encodeSummary(_:metadata:includeType:into:)`` writes for that summary, without encoding it again.
    /// - Parameters:
    ///   - measures: The rendered measures.
    ///   - exercise: The summary's exercise.
    ///   - side: The summary's side.
    ///   - metadata: What the server adds: id, subject, status, times.
    ///   - buffer: The buffer to append to.
    public static func encodeSummary(
        measures: [UInt8], exercise: String, side: BodySide?, metadata: SummaryMetadata, into buffer: inout [UInt8]
    ) {
        appendSummaryHead(metadata: metadata, exercise: exercise, side: side, includeType: false, into: &buffer)
        buffer.append(contentsOf: measures)
        appendSummaryTail(metadata: metadata, into: &buffer)
    }

    /// Writes the members after the measures that the server knows of a session (docs/protocol.md §5.3):
    /// `"programme":{"id","version","item"}` (`null` for a session of no programme) and `"demo"`, and the closing
    /// brace.
    private static func appendSummaryTail(metadata: SummaryMetadata, into buffer: inout [UInt8]) {
        buffer.appendLiteral(#","programme":"#)
        if let programme = metadata.programme {
            buffer.appendLiteral(#"{"id":"#)
            buffer.appendJSONString(programme.id)
            buffer.appendLiteral(#","version":"#)
            buffer.appendJSONInteger(programme.version)
            buffer.appendLiteral(#","item":"#)
            buffer.appendJSONString(programme.item)
            buffer.append(UInt8(ascii: "}"))
        } else {
            buffer.appendLiteral("null")
        }
        buffer.appendLiteral(#","demo":"#)
        buffer.appendJSONBool(metadata.demo)
        buffer.append(UInt8(ascii: "}"))
    }

    /// The version of what ``encodeSummaryMeasures(_:into:)`` writes. Stores keep an ended session's measures
    /// rendered with their version, and use them only at this one: any change to the members it writes, their order
    /// or their number formatting must raise it (`EncoderTests` fails until it does). Version 2 appended `holds` and
    /// `bestHold` (docs/protocol.md §5.4), version 3 `goal` (§5.3), version 4 counts the goal's sets as the session
    /// ran them (``SetCount``).
    public static let summaryMeasuresVersion = 4

    /// Writes the members of a summary (docs/protocol.md §5) that come from the engine's summary alone, from `duration`
    /// to `bestHold`, without braces: everything but the id, subject, exercise, side, status, `connected` and the
    /// times, which a store keeps in columns of their own. Encoded once when a session ends, they are what a
    /// listing copies for it (``encodeSummary(measures:exercise:side:metadata:into:)``).
    /// - Parameters:
    ///   - summary: The engine's summary.
    ///   - buffer: The buffer to append to.
    public static func encodeSummaryMeasures(_ summary: SessionSummary, into buffer: inout [UInt8]) {
        buffer.appendLiteral(#""duration":"#)
        buffer.appendJSONNumber(summary.duration)
        buffer.appendLiteral(#","frames":"#)
        buffer.appendJSONInteger(summary.frames)
        buffer.appendLiteral(#","visibleRatio":"#)
        buffer.appendJSONNumber(summary.visibleRatio)
        buffer.appendLiteral(#","repCount":"#)
        buffer.appendJSONInteger(summary.repCount)
        buffer.appendLiteral(#","rejectedCount":"#)
        buffer.appendJSONInteger(summary.rejectedCount)
        buffer.appendLiteral(#","best":"#)
        buffer.appendJSONNumber(summary.best)
        buffer.appendLiteral(#","baseline":"#)
        buffer.appendJSONNumber(summary.baseline)
        buffer.appendLiteral(#","reps":["#)
        for (position, rep) in summary.reps.enumerated() {
            if position > 0 { buffer.append(UInt8(ascii: ",")) }
            encodeRep(rep, into: &buffer)
        }
        buffer.appendLiteral(#"],"faultCounts":"#)
        encodeFaultCounts(summary.faultCounts, into: &buffer)
        buffer.appendLiteral(#","exerciseVersion":"#)
        buffer.appendJSONInteger(summary.exerciseVersion)
        buffer.appendLiteral(#","prescription":"#)
        encodePrescription(summary.prescription, into: &buffer)
        buffer.appendLiteral(#","perSide":"#)
        if summary.perSide.isEmpty {
            buffer.appendLiteral("null")
        } else {
            buffer.append(UInt8(ascii: "{"))
            var first = true
            for side in [BodySide.left, .right] {
                guard let tally = summary.perSide[side] else { continue }
                if !first { buffer.append(UInt8(ascii: ",")) }
                first = false
                buffer.appendJSONSide(side)
                buffer.appendLiteral(#":{"repCount":"#)
                buffer.appendJSONInteger(tally.repCount)
                buffer.appendLiteral(#","rejectedCount":"#)
                buffer.appendJSONInteger(tally.rejectedCount)
                buffer.appendLiteral(#","best":"#)
                buffer.appendJSONNumber(tally.best)
                buffer.append(UInt8(ascii: "}"))
            }
            buffer.append(UInt8(ascii: "}"))
        }
        buffer.appendLiteral(#","holds":["#)
        for (position, hold) in summary.holds.enumerated() {
            if position > 0 { buffer.append(UInt8(ascii: ",")) }
            encodeHold(hold, into: &buffer)
        }
        buffer.appendLiteral(#"],"bestHold":"#)
        buffer.appendJSONNumber(summary.bestHold)
        buffer.appendLiteral(#","goal":"#)
        if let goal = summary.goal {
            buffer.appendLiteral(#"{"sets":"#)
            buffer.appendJSONInteger(goal.sets)
            buffer.appendLiteral(#","setsDone":"#)
            buffer.appendJSONInteger(goal.setsDone)
            buffer.appendLiteral(#","repsPerSet":"#)
            buffer.appendJSONInteger(goal.repsPerSet)
            buffer.appendLiteral(#","met":"#)
            buffer.appendJSONBool(goal.met)
            buffer.append(UInt8(ascii: "}"))
        } else {
            buffer.appendLiteral("null")
        }
    }

    /// Writes one hold attempt of a summary's `holds` (docs/protocol.md §5.4):
    /// `{"start":12.5,"held":42.3,"completed":true}`.
    /// - Parameters:
    ///   - hold: The hold.
    ///   - buffer: The buffer to append to.
    public static func encodeHold(_ hold: Hold, into buffer: inout [UInt8]) {
        buffer.appendLiteral(#"{"start":"#)
        buffer.appendJSONNumber(hold.start)
        buffer.appendLiteral(#","held":"#)
        buffer.appendJSONNumber(hold.held)
        buffer.appendLiteral(#","completed":"#)
        buffer.appendJSONBool(hold.completed)
        buffer.append(UInt8(ascii: "}"))
    }

    /// Writes a summary's opening brace and its members up to `endedAt`, with the comma after it.
    private static func appendSummaryHead(
        metadata: SummaryMetadata, exercise: String, side: BodySide?, includeType: Bool, into buffer: inout [UInt8]
    ) {
        buffer.appendLiteral(includeType ? #"{"type":"summary","id":"# : #"{"id":"#)
        buffer.appendJSONString(metadata.id)
        buffer.appendLiteral(#","subject":"#)
        if let subject = metadata.subject { buffer.appendJSONString(subject) } else { buffer.appendLiteral("null") }
        buffer.appendLiteral(#","exercise":"#)
        buffer.appendJSONString(exercise)
        buffer.appendLiteral(#","side":"#)
        if let side { buffer.appendJSONString(side.rawValue) } else { buffer.appendLiteral("null") }
        buffer.appendLiteral(#","status":"#)
        buffer.appendJSONString(metadata.status.rawValue)
        buffer.appendLiteral(#","connected":"#)
        if let connected = metadata.connected {
            buffer.appendJSONBool(connected)
        } else {
            buffer.appendLiteral("null")
        }
        buffer.appendLiteral(#","startedAt":"#)
        ISO8601Timestamp.append(metadata.startedAt, to: &buffer)
        buffer.appendLiteral(#","endedAt":"#)
        ISO8601Timestamp.append(metadata.endedAt, to: &buffer)
        buffer.append(UInt8(ascii: ","))
    }

    /// Writes a prescription with every member, `null` for those not set:
    /// `{"target":50.0,"rest":30.0,"enter":35.3,"exit":32.0,"holdSeconds":null,"reps":10,"sets":3}`.
    /// - Parameters:
    ///   - prescription: The prescription (in a summary, the effective one).
    ///   - buffer: The buffer to append to.
    public static func encodePrescription(_ prescription: Prescription, into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "{"))
        appendPrescriptionMembers(prescription, into: &buffer)
        buffer.append(UInt8(ascii: "}"))
    }

    /// Writes a prescription's members without the braces, `null` for those not set, for an object that holds them
    /// among others (a `start` request's `options`): `"target":50.0,"rest":30.0,…,"sets":3`.
    /// - Parameters:
    ///   - prescription: The prescription.
    ///   - buffer: The buffer to append to.
    static func appendPrescriptionMembers(_ prescription: Prescription, into buffer: inout [UInt8]) {
        buffer.appendLiteral(#""target":"#)
        buffer.appendJSONNumber(prescription.target)
        buffer.appendLiteral(#","rest":"#)
        buffer.appendJSONNumber(prescription.rest)
        buffer.appendLiteral(#","enter":"#)
        buffer.appendJSONNumber(prescription.enter)
        buffer.appendLiteral(#","exit":"#)
        buffer.appendJSONNumber(prescription.exit)
        buffer.appendLiteral(#","holdSeconds":"#)
        buffer.appendJSONNumber(prescription.holdSeconds)
        buffer.appendLiteral(#","reps":"#)
        appendCount(prescription.reps, into: &buffer)
        buffer.appendLiteral(#","sets":"#)
        appendCount(prescription.sets, into: &buffer)
    }

    /// Writes a count, or `null`.
    static func appendCount(_ count: Int?, into buffer: inout [UInt8]) {
        if let count { buffer.appendJSONInteger(count) } else { buffer.appendLiteral("null") }
    }
}

/// What a session's snapshots share from one to the next, kept encoded (see
/// ``WireEncoder/encodeSnapshot(_:includeType:cache:into:)``).
public struct SnapshotCache: Sendable {
    fileprivate var rep: Rep?
    fileprivate var repBytes: [UInt8] = []
    /// The best value and the confidence stay the same over many snapshots; their shortest round-trip digits cost
    /// about 800 instructions a number to find again.
    fileprivate var best = CachedNumber()
    fileprivate var confidence = CachedNumber()

    /// An empty cache.
    public init() {}
}

/// A number as last written, with its JSON bytes: the same bits are written with the same bytes.
private struct CachedNumber: Sendable {
    private var bits: UInt64?
    private var bytes: [UInt8] = []

    /// Appends `value` as `appendJSONNumber(_:)` does, from the cache when it holds the same bits.
    mutating func append(_ value: Double?, to buffer: inout [UInt8]) {
        guard let value else { return buffer.appendLiteral("null") }
        if bits != value.bitPattern {
            bits = value.bitPattern
            bytes.removeAll(keepingCapacity: true)
            bytes.appendJSONNumber(value)
        }
        buffer.append(contentsOf: bytes)
    }
}
