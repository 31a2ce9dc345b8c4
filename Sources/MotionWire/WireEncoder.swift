public import MotionCore
import PortableBasics

/// Writes the server's messages (docs/protocol.md §3) and REST bodies (§5) as JSON into a caller's buffer.
///
/// Every function appends to `buffer`, so one buffer can be reused for every message of a connection:
///
/// ```swift
/// var buffer: [UInt8] = []
/// buffer.reserveCapacity(1024)
/// for event in events {
///     buffer.removeAll(keepingCapacity: true)
///     WireEncoder.encodeEvent(event, at: pose.timestamp, into: &buffer)
///     try await socket.sendText(buffer)
/// }
/// ```
///
/// Members are written in the order docs/protocol.md shows. Numbers are the shortest text that reads back as the
/// same `Double` (full precision, `128.0` for whole values); nil and non-finite numbers are written as `null`.
/// Strings are escaped per RFC 8259 §7.
public enum WireEncoder {
    /// Writes `started`: `{"type":"started","session":"<id>","exercise":{…catalog entry…},"resume":"<token>",
    /// "resumeSeconds":120}`.
    /// - Parameters:
    ///   - session: The session id.
    ///   - exercise: The exercise as configured for the session, with overrides applied
    ///     (`SessionConfiguration.effectiveExercise`).
    ///   - resume: The session's resume token (docs/protocol.md §3.1), for its client only: nil leaves the member out
    ///     (what watchers get).
    ///   - resumeSeconds: How long after a drop the session stays resumable (`--resume-seconds`), written after the
    ///     token (nil, or no token: left out), so a client knows how long to try.
    ///   - buffer: The buffer to append to.
    public static func encodeStarted(
        session: String, exercise: Exercise, resume: String? = nil, resumeSeconds: Double? = nil,
        into buffer: inout [UInt8]
    ) {
        buffer.appendLiteral(#"{"type":"started","session":"#)
        buffer.appendJSONString(session)
        buffer.appendLiteral(#","exercise":"#)
        encodeExercise(exercise, into: &buffer)
        if let resume {
            buffer.appendLiteral(#","resume":"#)
            buffer.appendJSONString(resume)
            if let resumeSeconds {
                buffer.appendLiteral(#","resumeSeconds":"#)
                buffer.appendJSONNumber(resumeSeconds)
            }
        }
        buffer.append(UInt8(ascii: "}"))
    }

    /// Writes `resumed`: `{"type":"resumed","session":"<id>","t":12.3,"exercise":{…}}` (docs/protocol.md §3.1), with
    /// `"motionT"` after `t` when the session holds motion samples (§3.3).
    /// - Parameters:
    ///   - session: The session id.
    ///   - t: The timestamp of the last pose the restored state covers (the client re-sends the frames after it), or
    ///     nil when it covers none (`null`: the client re-sends every frame it kept).
    ///   - motionT: The time of the last motion sample the session holds (the client re-sends the samples after
    ///     it), or nil when it holds none (absent: the client re-sends every sample it kept).
    ///   - exercise: The exercise as configured for the session.
    ///   - buffer: The buffer to append to.
    public static func encodeResumed(
        session: String, t: Double?, motionT: Double? = nil, exercise: Exercise, into buffer: inout [UInt8]
    ) {
        buffer.appendLiteral(#"{"type":"resumed","session":"#)
        buffer.appendJSONString(session)
        buffer.appendLiteral(#","t":"#)
        buffer.appendJSONNumber(t)
        if let motionT {
            buffer.appendLiteral(#","motionT":"#)
            buffer.appendJSONNumber(motionT)
        }
        buffer.appendLiteral(#","exercise":"#)
        encodeExercise(exercise, into: &buffer)
        buffer.append(UInt8(ascii: "}"))
    }

    /// Writes `connection`, what a watcher learns when the watched session's client drops or resumes (docs/protocol.md
    /// §3.1): `{"type":"connection","connected":false}`.
    /// - Parameters:
    ///   - connected: Whether a client is attached again.
    ///   - buffer: The buffer to append to.
    public static func encodeConnection(connected: Bool, into buffer: inout [UInt8]) {
        buffer.appendLiteral(#"{"type":"connection","connected":"#)
        buffer.appendJSONBool(connected)
        buffer.append(UInt8(ascii: "}"))
    }

    /// Writes `checkpoint`: `{"type":"checkpoint","t":12.3}`, the timestamp of the last pose whose state is durable
    /// (docs/protocol.md §3.1).
    /// - Parameters:
    ///   - t: That pose's timestamp.
    ///   - buffer: The buffer to append to.
    public static func encodeCheckpoint(at t: Double, into buffer: inout [UInt8]) {
        buffer.appendLiteral(#"{"type":"checkpoint","t":"#)
        buffer.appendJSONNumber(t)
        buffer.append(UInt8(ascii: "}"))
    }

    /// Writes a JSON array of events, each as ``encodeEvent(_:at:includeType:into:)`` writes it: the `events`
    /// member of the REST answers to posted poses and to `POST /v1/analyze` (docs/protocol.md §5).
    /// - Parameters:
    ///   - events: Each event with the `t` of the pose that produced it, in order.
    ///   - buffer: The buffer to append to.
    public static func encodeEvents(_ events: [(t: Double, event: MotionEvent)], into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "["))
        for (index, (t, event)) in events.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            encodeEvent(event, at: t, into: &buffer)
        }
        buffer.append(UInt8(ascii: "]"))
    }

    /// Writes one `event` message, e.g. `{"type":"event","t":41.0,"event":"setupChanged","issues":["tooFar"]}`.
    ///
    /// The members after `event` depend on the kind, exactly as docs/protocol.md §3 shows: `rep` for `repCompleted`
    /// and `repRejected`, none for `holdStarted`, `held`, `completed` and `start` for `holdEnded` (§5.4: seconds held,
    /// whether it reached `holdSeconds`, when it began), `fault` for `formFault`, `visible` and `missingJoints` for
    /// `visibilityChanged`, `issues` for `setupChanged`, `value` for `baselineCompleted`, `set` (its number, from
    /// 1) for `setCompleted`.
    /// - Parameters:
    ///   - event: The engine event.
    ///   - timestamp: The `t` of the pose that produced it.
    ///   - includeType: Whether to write `"type":"event"` first (false inside a REST `events` array).
    ///   - buffer: The buffer to append to.
    public static func encodeEvent(
        _ event: MotionEvent, at timestamp: Double, includeType: Bool = true, into buffer: inout [UInt8]
    ) {
        buffer.appendLiteral(includeType ? #"{"type":"event","t":"# : #"{"t":"#)
        buffer.appendJSONNumber(timestamp)
        buffer.appendLiteral(#","event":"#)
        buffer.appendJSONString(event.name)
        switch event {
        case .repCompleted(let rep), .repRejected(let rep):
            buffer.appendLiteral(#","rep":"#)
            encodeRep(rep, into: &buffer)
        case .holdStarted:
            break
        case .holdEnded(let hold):
            buffer.appendLiteral(#","held":"#)
            buffer.appendJSONNumber(hold.held)
            buffer.appendLiteral(#","completed":"#)
            buffer.appendJSONBool(hold.completed)
            buffer.appendLiteral(#","start":"#)
            buffer.appendJSONNumber(hold.start)
        case .formFault(let fault):
            buffer.appendLiteral(#","fault":"#)
            buffer.appendJSONString(fault.rawValue)
        case .visibilityChanged(let visibility):
            buffer.appendLiteral(#","visible":"#)
            buffer.appendJSONBool(visibility.isVisible)
            buffer.appendLiteral(#","missingJoints":"#)
            buffer.appendJSONStrings(visibility.missingJoints)
        case .setupChanged(let issues):
            buffer.appendLiteral(#","issues":"#)
            buffer.appendJSONStrings(issues)
        case .baselineCompleted(let value):
            buffer.appendLiteral(#","value":"#)
            buffer.appendJSONNumber(value)
        case .setCompleted(let number):
            buffer.appendLiteral(#","set":"#)
            buffer.appendJSONInteger(number)
        }
        buffer.append(UInt8(ascii: "}"))
    }

    /// Writes a rep object: the members of docs/protocol.md §3, then those of §5.2 after them,
    ///
    ///     {"index":3,"peak":142.5,"start":12.1,"end":14.2,"duration":2.1,"clean":true,"faults":[],
    ///      "trough":20.0,"range":122.5,"timeToPeak":1.2,"side":null}
    ///
    /// Every member is always there: `timeToPeak` is `null` when unknown (reps stored before it was recorded) and
    /// `side` is `null` unless the exercise is `alternating`. A rep judged from motion samples (docs/protocol.md §3.3)
    /// then has `"smoothness":-1.42,"tremor":0.03` (`smoothness` `null` when the phone was still); without them the
    /// two members are absent.
    /// - Parameters:
    ///   - rep: The rep.
    ///   - buffer: The buffer to append to.
    public static func encodeRep(_ rep: Rep, into buffer: inout [UInt8]) {
        buffer.appendLiteral(#"{"index":"#)
        buffer.appendJSONInteger(rep.index)
        buffer.appendLiteral(#","peak":"#)
        buffer.appendJSONNumber(rep.peak)
        buffer.appendLiteral(#","start":"#)
        buffer.appendJSONNumber(rep.start)
        buffer.appendLiteral(#","end":"#)
        buffer.appendJSONNumber(rep.end)
        buffer.appendLiteral(#","duration":"#)
        buffer.appendJSONNumber(rep.duration)
        buffer.appendLiteral(#","clean":"#)
        buffer.appendJSONBool(rep.isClean)
        buffer.appendLiteral(#","faults":"#)
        buffer.appendJSONStrings(rep.faults)
        buffer.appendLiteral(#","trough":"#)
        buffer.appendJSONNumber(rep.trough)
        buffer.appendLiteral(#","range":"#)
        buffer.appendJSONNumber(rep.range)
        buffer.appendLiteral(#","timeToPeak":"#)
        buffer.appendJSONNumber(rep.timeToPeak)
        buffer.appendLiteral(#","side":"#)
        buffer.appendJSONSide(rep.side)
        if let motion = rep.motion {
            buffer.appendLiteral(#","smoothness":"#)
            buffer.appendJSONNumber(motion.smoothness)
            buffer.appendLiteral(#","tremor":"#)
            buffer.appendJSONNumber(motion.tremor)
        }
        buffer.append(UInt8(ascii: "}"))
    }

    /// Writes `error`: `{"type":"error","code":"invalidPose","message":"…","frame":812}`, and for a frame of a
    /// `poses` batch refused alone (docs/protocol.md §3), `{"type":"error","code":"invalidPose","message":"…",
    /// "frame":812,"batchIndex":3}`.
    /// - Parameters:
    ///   - error: The error.
    ///   - frame: The number of the offending message in the connection, if the server counts them; the member is
    ///     left out when nil.
    ///   - batchIndex: The index in its batch of the refused frame, counted from 0; the member is left out when nil
    ///     (an error about the whole message).
    ///   - buffer: The buffer to append to.
    public static func encodeError(
        _ error: WireError, frame: Int? = nil, batchIndex: Int? = nil, into buffer: inout [UInt8]
    ) {
        buffer.appendLiteral(#"{"type":"error","code":"#)
        buffer.appendJSONString(error.code.rawValue)
        buffer.appendLiteral(#","message":"#)
        buffer.appendJSONString(error.message)
        if let frame {
            buffer.appendLiteral(#","frame":"#)
            buffer.appendJSONInteger(frame)
        }
        if let batchIndex {
            buffer.appendLiteral(#","batchIndex":"#)
            buffer.appendJSONInteger(batchIndex)
        }
        buffer.append(UInt8(ascii: "}"))
    }

    /// Writes a JSON array of the errors of the frames a REST batch refused alone:
    /// `[{"code":"invalidPose","message":"frames[3]: t is required","batchIndex":3}]`, the `errors` member of the
    /// answer to `POST /v1/sessions/{id}/poses` (docs/protocol.md §5), beside `events`. Written as
    /// ``encodeErrorBody(_:into:)`` writes its error object, with the frame's index in its batch added.
    /// - Parameters:
    ///   - errors: Each refused frame's index in its batch (from 0; for NDJSON, among the non-blank lines) with
    ///     its error, in order; an error of the whole session rather than of one frame (`unknownJoint`) has no
    ///     index, and is written without `batchIndex`.
    ///   - buffer: The buffer to append to.
    public static func encodeFrameErrors(
        _ errors: [(batchIndex: Int?, error: WireError)], into buffer: inout [UInt8]
    ) {
        buffer.append(UInt8(ascii: "["))
        for (position, (batchIndex, error)) in errors.enumerated() {
            if position > 0 { buffer.append(UInt8(ascii: ",")) }
            buffer.appendLiteral(#"{"code":"#)
            buffer.appendJSONString(error.code.rawValue)
            buffer.appendLiteral(#","message":"#)
            buffer.appendJSONString(error.message)
            if let batchIndex {
                buffer.appendLiteral(#","batchIndex":"#)
                buffer.appendJSONInteger(batchIndex)
            }
            buffer.append(UInt8(ascii: "}"))
        }
        buffer.append(UInt8(ascii: "]"))
    }

    /// Writes a REST error body (docs/protocol.md §5): `{"error":{"code":"…","message":"…"}}`, and with the error's
    /// pointer (§5.1) `{"error":{"code":"invalidExercise","message":"…","pointer":"/thresholds/enter"}}`.
    /// - Parameters:
    ///   - error: The error.
    ///   - buffer: The buffer to append to.
    public static func encodeErrorBody(_ error: WireError, into buffer: inout [UInt8]) {
        buffer.appendLiteral(#"{"error":{"code":"#)
        buffer.appendJSONString(error.code.rawValue)
        buffer.appendLiteral(#","message":"#)
        buffer.appendJSONString(error.message)
        if let pointer = error.pointer {
            buffer.appendLiteral(#","pointer":"#)
            buffer.appendJSONString(pointer)
        }
        buffer.appendLiteral("}}")
    }
}

extension [UInt8] {
    /// Appends a side's raw value as a string, or `null` for nil.
    @inline(__always)
    mutating func appendJSONSide(_ side: BodySide?) {
        switch side {
        case .left: appendLiteral(#""left""#)
        case .right: appendLiteral(#""right""#)
        case nil: appendLiteral("null")
        }
    }
}
