public import MotionCore
import PortableBasics

/// The bodies of the REST endpoints (docs/protocol.md §5) that are more than one encoded object.
extension WireEncoder {
    /// Writes the catalog, `GET /v1/exercises`: `{"exercises":[…]}`, each entry as ``encodeExercise(_:into:)``.
    /// - Parameters:
    ///   - exercises: The entries, in order.
    ///   - buffer: The buffer to append to.
    public static func encodeCatalog(_ exercises: [Exercise], into buffer: inout [UInt8]) {
        var entries: [UInt8] = []
        encodeCatalogEntries(exercises, into: &entries)
        encodeCatalog(entries: entries, then: [], into: &buffer)
    }

    /// Writes the catalog from entries already encoded (``encodeCatalogEntries(_:into:)``), then `more` entries:
    /// a server encodes its built-in entries once and adds a tenant's own at each request.
    /// - Parameters:
    ///   - entries: Encoded entries, comma-separated, possibly none.
    ///   - more: Entries to write after them, in order.
    ///   - buffer: The buffer to append to.
    public static func encodeCatalog(entries: [UInt8], then more: [Exercise], into buffer: inout [UInt8]) {
        buffer.reserveCapacity(buffer.count + entries.count + 16)
        buffer.appendLiteral(#"{"exercises":["#)
        buffer.append(contentsOf: entries)
        var needsComma = !entries.isEmpty
        for exercise in more {
            if needsComma { buffer.append(UInt8(ascii: ",")) }
            encodeExercise(exercise, into: &buffer)
            needsComma = true
        }
        buffer.appendLiteral("]}")
    }

    /// Writes catalog entries (``encodeExercise(_:into:)``) separated by commas, for
    /// ``encodeCatalog(entries:then:into:)``.
    /// - Parameters:
    ///   - exercises: The entries, in order.
    ///   - buffer: The buffer to append to.
    public static func encodeCatalogEntries(_ exercises: [Exercise], into buffer: inout [UInt8]) {
        for (index, exercise) in exercises.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            encodeExercise(exercise, into: &buffer)
        }
    }

    /// Writes the answer to `POST /v1/sessions`: `{"id":"<id>"}`.
    /// - Parameters:
    ///   - id: The new session's id.
    ///   - buffer: The buffer to append to.
    public static func encodeCreated(id: String, into buffer: inout [UInt8]) {
        buffer.appendLiteral(#"{"id":"#)
        buffer.appendJSONString(id)
        buffer.append(UInt8(ascii: "}"))
    }

    /// Writes the answer to `POST /v1/sessions/{id}/poses`: `{"events":[…],"snapshot":{…}}`, with
    /// `"errors":[…]` (``encodeFrameErrors(_:into:)``) after them when frames were refused; and, with `exercise`
    /// first, the answer to `POST /v1/exercises/preview`.
    /// - Parameters:
    ///   - exercise: The exercise the frames were measured with, written first as `"exercise"` (a preview's
    ///     draft as the server reads it); nil for none.
    ///   - events: The events of the posted frames, with their pose times.
    ///   - snapshot: The snapshot after them.
    ///   - errors: The frames refused alone.
    ///   - buffer: The buffer to append to.
    public static func encodeBatchAnswer(
        exercise: Exercise? = nil, events: [(t: Double, event: MotionEvent)], snapshot: MotionSnapshot,
        errors: [(batchIndex: Int?, error: WireError)], into buffer: inout [UInt8]
    ) {
        buffer.append(UInt8(ascii: "{"))
        if let exercise {
            buffer.appendLiteral(#""exercise":"#)
            encodeExercise(exercise, into: &buffer)
            buffer.append(UInt8(ascii: ","))
        }
        buffer.appendLiteral(#""events":"#)
        encodeEvents(events, into: &buffer)
        buffer.appendLiteral(#","snapshot":"#)
        encodeSnapshot(snapshot, into: &buffer)
        appendErrorsMember(errors, into: &buffer)
        buffer.append(UInt8(ascii: "}"))
    }

    /// Writes the answer to `POST /v1/analyze`: `{"events":[…],"summary":{…}}`, with `"errors":[…]` after them
    /// when frames were refused.
    /// - Parameters:
    ///   - events: The events of the recorded frames, with their pose times.
    ///   - summary: The stored summary.
    ///   - metadata: What the server adds to it.
    ///   - errors: The frames refused alone.
    ///   - motionErrors: The motion samples refused alone (`"motionErrors"`, each `batchIndex` the sample's index
    ///     in `motion`); absent when none was.
    ///   - buffer: The buffer to append to.
    public static func encodeAnalysis(
        events: [(t: Double, event: MotionEvent)], summary: SessionSummary, metadata: SummaryMetadata,
        errors: [(batchIndex: Int?, error: WireError)], motionErrors: [(batchIndex: Int?, error: WireError)] = [],
        into buffer: inout [UInt8]
    ) {
        buffer.appendLiteral(#"{"events":"#)
        encodeEvents(events, into: &buffer)
        buffer.appendLiteral(#","summary":"#)
        encodeSummary(summary, metadata: metadata, into: &buffer)
        appendErrorsMember(errors, into: &buffer)
        if !motionErrors.isEmpty {
            buffer.appendLiteral(#","motionErrors":"#)
            encodeFrameErrors(motionErrors, into: &buffer)
        }
        buffer.append(UInt8(ascii: "}"))
    }

    private static func appendErrorsMember(
        _ errors: [(batchIndex: Int?, error: WireError)], into buffer: inout [UInt8]
    ) {
        guard !errors.isEmpty else { return }
        buffer.appendLiteral(#","errors":"#)
        encodeFrameErrors(errors, into: &buffer)
    }

    /// Writes one page of `GET /v1/sessions`: `{"sessions":[…],"next":"<cursor>"}`, `next` `null` on the last page,
    /// and `"total":137` after it when the total was asked for (`?total=true`).
    ///
    /// The caller writes each summary in place (usually with ``encodeSummary(_:metadata:includeType:into:)``), so
    /// a page of stored sessions is never copied into another form first.
    /// - Parameters:
    ///   - count: How many summaries the page has.
    ///   - next: The cursor of the following page, or nil.
    ///   - total: How many sessions match the filters on all pages, or nil to leave the member out.
    ///   - buffer: The buffer to append to.
    ///   - summary: Writes the summary at an index in `0..<count`.
    public static func encodeSessionPage(
        count: Int, next: String?, total: Int? = nil, into buffer: inout [UInt8],
        summary: (Int, inout [UInt8]) -> Void
    ) {
        buffer.appendLiteral(#"{"sessions":["#)
        for index in 0..<count {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            summary(index, &buffer)
        }
        buffer.appendLiteral(#"],"next":"#)
        if let next { buffer.appendJSONString(next) } else { buffer.appendLiteral("null") }
        if let total {
            buffer.appendLiteral(#","total":"#)
            buffer.appendJSONInteger(total)
        }
        buffer.append(UInt8(ascii: "}"))
    }

    /// Writes `GET /v1/subjects/{subject}/progress`, oldest first:
    ///
    ///     {"sessions":[{"id":"…","startedAt":"2026-11-29T14:00:00Z","exercise":"squat","status":"finished",
    ///                   "best":92.5,"repCount":10,"rejectedCount":1,"meanPeak":88.25,
    ///                   "faultCounts":{"keepTrunkUpright":2},"target":90.0}],"next":null}
    ///
    /// `best` and `meanPeak` are `null` when there is none; `faultCounts` is the session's, as in its summary;
    /// `target` the target the session counted against (its prescription's), `null` when it is not known;
    /// `next` is the cursor of the older sessions left out, `null` when none was.
    /// - Parameters:
    ///   - entries: The sessions, oldest first.
    ///   - next: The cursor of the older sessions' page, or nil.
    ///   - buffer: The buffer to append to.
    public static func encodeProgress(_ entries: [ProgressEntry], next: String?, into buffer: inout [UInt8]) {
        buffer.appendLiteral(#"{"sessions":["#)
        for (index, entry) in entries.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            buffer.appendLiteral(#"{"id":"#)
            buffer.appendJSONString(entry.id)
            buffer.appendLiteral(#","startedAt":"#)
            ISO8601Timestamp.append(entry.startedAt, to: &buffer)
            buffer.appendLiteral(#","exercise":"#)
            buffer.appendJSONString(entry.exercise)
            buffer.appendLiteral(#","status":"#)
            buffer.appendJSONString(entry.status.rawValue)
            buffer.appendLiteral(#","best":"#)
            buffer.appendJSONNumber(entry.best)
            buffer.appendLiteral(#","repCount":"#)
            buffer.appendJSONInteger(entry.repCount)
            buffer.appendLiteral(#","rejectedCount":"#)
            buffer.appendJSONInteger(entry.rejectedCount)
            buffer.appendLiteral(#","meanPeak":"#)
            buffer.appendJSONNumber(entry.meanPeak)
            buffer.appendLiteral(#","faultCounts":"#)
            encodeFaultCounts(entry.faultCounts, into: &buffer)
            buffer.appendLiteral(#","target":"#)
            buffer.appendJSONNumber(entry.target)
            buffer.append(UInt8(ascii: "}"))
        }
        buffer.appendLiteral(#"],"next":"#)
        if let next { buffer.appendJSONString(next) } else { buffer.appendLiteral("null") }
        buffer.append(UInt8(ascii: "}"))
    }

    /// Writes fault counts as a summary's `faultCounts` object, `{"keepUpperArmStill":2}`: faults in vocabulary
    /// order, those never counted left out.
    /// - Parameters:
    ///   - counts: How often each fault was given.
    ///   - buffer: The buffer to append to.
    public static func encodeFaultCounts(_ counts: [FormFeedback: Int], into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "{"))
        var first = true
        for fault in FormFeedback.allCases {
            guard let count = counts[fault] else { continue }
            if !first { buffer.append(UInt8(ascii: ",")) }
            first = false
            buffer.appendJSONString(fault.rawValue)
            buffer.append(UInt8(ascii: ":"))
            buffer.appendJSONInteger(count)
        }
        buffer.append(UInt8(ascii: "}"))
    }

    /// Writes `GET /v1/sessions/{id}/series`: `{"interval":0.1,"t":[…],"value":[…]}`, `null` where the value
    /// could not be measured.
    /// - Parameters:
    ///   - series: The stored series.
    ///   - buffer: The buffer to append to.
    public static func encodeSeries(_ series: ValueSeries, into buffer: inout [UInt8]) {
        buffer.appendLiteral(#"{"interval":"#)
        buffer.appendJSONNumber(series.interval)
        buffer.appendLiteral(#","t":["#)
        appendNumbers(series.times, into: &buffer)
        buffer.appendLiteral(#"],"value":["#)
        for (index, value) in series.values.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            buffer.appendJSONNumber(value)
        }
        buffer.appendLiteral("]}")
    }

    /// Writes `GET /v1/sessions/{id}/motion` (docs/protocol.md §5.2): the phone's acceleration including gravity over
    /// the session, downsampled, `{"interval":0.05,"t":[…],"x":[…],"y":[…],"z":[…]}` (m/s², device axes; every
    /// array empty for a session without motion samples).
    /// - Parameters:
    ///   - series: The stored motion series.
    ///   - buffer: The buffer to append to.
    public static func encodeMotionSeries(_ series: MotionSeries, into buffer: inout [UInt8]) {
        buffer.appendLiteral(#"{"interval":"#)
        buffer.appendJSONNumber(series.interval)
        buffer.appendLiteral(#","t":["#)
        appendNumbers(series.times, into: &buffer)
        let axes: [(StaticString, KeyPath<MotionVector, Double>)] = [
            (#"],"x":["#, \.x), (#"],"y":["#, \.y), (#"],"z":["#, \.z),
        ]
        for (name, axis) in axes {
            buffer.appendLiteral(name)
            appendNumbers(
                (series.heldStart..<series.count).map { series[$0].acceleration[keyPath: axis] }, into: &buffer)
        }
        buffer.appendLiteral("]}")
    }

    /// Appends `values` as JSON numbers separated by commas: the inside of an array.
    private static func appendNumbers(_ values: [Double], into buffer: inout [UInt8]) {
        for (index, value) in values.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            buffer.appendJSONNumber(value)
        }
    }

    /// Writes a session's reps as CSV (RFC 4180, CRLF line ends), `GET /v1/sessions/{id}?format=csv`:
    ///
    ///     index,peak,trough,start,end,duration,clean,faults,range,timeToPeak,side,smoothness,tremor,held
    ///     1,130.2,31.5,3.1,5.0,1.9,true,,98.7,0.9,,-1.43,0.02,
    ///     2,128.9,30.8,6.2,8.4,2.2,false,keepUpperArmStill;keepTrunkUpright,98.1,,left,,,
    ///
    /// The first eight columns are those of the first version, in their order; `range`, `timeToPeak` and `side`
    /// follow, then `smoothness` and `tremor` (docs/protocol.md §3.3), empty for a rep without motion samples, then
    /// `held` (§5.4). A hold exercise's rep is a hold that reached its hold time, and its `duration` that time;
    /// `held` is how long the hold was kept in all, from the hold in `holds` that began at the rep's `start`, and
    /// empty for a rep exercise's reps and a hold still under way. Numbers as Swift prints a `Double`; faults by
    /// wire name, `;`-separated; an unknown `timeToPeak` and the `side` of a rep that has none are empty. Every
    /// field is a number, a boolean or a vocabulary name, so none needs quoting and none can start a spreadsheet
    /// formula (`=`, `+`, `@`; a `-` only starts a negative number).
    /// - Parameters:
    ///   - reps: The reps, in order.
    ///   - holds: The session's holds (``SessionSummary/holds``), for the `held` column.
    ///   - buffer: The buffer to append to.
    /// - Complexity: O(*r* + *h*) for *r* reps and *h* holds.
    public static func encodeRepsCSV(_ reps: [Rep], holds: [Hold] = [], into buffer: inout [UInt8]) {
        buffer.appendLiteral("index,peak,trough,start,end,duration,clean,faults,range,timeToPeak,side,")
        buffer.appendLiteral("smoothness,tremor,held\r\n")
        var heldFrom: [Double: Double] = [:]
        for hold in holds where hold.completed { heldFrom[hold.start] = hold.held }
        for rep in reps {
            let faults = rep.faults.map(\.rawValue).joined(separator: ";")
            let timeToPeak = rep.timeToPeak.map { "\($0)" } ?? ""
            let smoothness = rep.motion?.smoothness.map { "\($0)" } ?? ""
            let tremor = rep.motion.map { "\($0.tremor)" } ?? ""
            let held = heldFrom[rep.start].map { "\($0)" } ?? ""
            let line =
                "\(rep.index),\(rep.peak),\(rep.trough),\(rep.start),\(rep.end),\(rep.duration),\(rep.isClean),\(faults),"
                + "\(rep.range),\(timeToPeak),\(rep.side?.rawValue ?? ""),\(smoothness),\(tremor),\(held)\r\n"
            buffer.append(contentsOf: line.utf8)
        }
    }
}

extension WireEncoder {
    /// Writes the answer to `GET /v1/formats`: the 19 joints of docs/protocol.md §1 in wire order, the joints derived
    /// from others, and for every input format (§4) the joint of each keypoint (`null`: ignored), what the
    /// coordinates are measured in, where y starts and the default confidence floor — what a client needs to
    /// read a pose line exactly as the server does.
    ///
    /// ```json
    /// {"joints":["nose",…],"derived":{"neck":["leftShoulder","rightShoulder"],…},
    ///  "formats":[{"id":"mediapipe","keypoints":["nose",null,"leftEye",…],"coordinates":"normalized",
    ///              "origin":"topLeft","minConfidence":0.5,"derivesCentralJoints":true},…]}
    /// ```
    /// - Parameter buffer: The buffer to append to.
    public static func encodeFormats(into buffer: inout [UInt8]) {
        buffer.appendLiteral(#"{"joints":"#)
        buffer.appendJSONStrings(Joint.allCases)
        buffer.appendLiteral(#","derived":{"#)
        for (index, (joint, parents)) in Pose.centralJointParents.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            buffer.appendJSONString(joint.rawValue)
            buffer.append(UInt8(ascii: ":"))
            buffer.appendJSONStrings([parents.0, parents.1])
        }
        buffer.appendLiteral(#"},"formats":["#)
        for (index, format) in InputFormat.allCases.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            encodeFormat(format, into: &buffer)
        }
        buffer.appendLiteral("]}")
    }

    private static func encodeFormat(_ format: InputFormat, into buffer: inout [UInt8]) {
        buffer.appendLiteral(#"{"id":"#)
        buffer.appendJSONString(format.rawValue)
        buffer.appendLiteral(#","keypoints":["#)
        for (index, joint) in KeypointLayout.joints(of: format).enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            if let joint { buffer.appendJSONString(joint.rawValue) } else { buffer.appendLiteral("null") }
        }
        buffer.appendLiteral(#"],"coordinates":"#)
        buffer.appendJSONString(format.coordinates.rawValue)
        buffer.appendLiteral(#","origin":"#)
        buffer.appendJSONString(format.isYUp ? "bottomLeft" : "topLeft")
        buffer.appendLiteral(#","minConfidence":"#)
        buffer.appendJSONNumber(format.defaultMinConfidence)
        buffer.appendLiteral(#","derivesCentralJoints":"#)
        buffer.appendJSONBool(format.derivesCentralJoints)
        buffer.append(UInt8(ascii: "}"))
    }
}
