import MotionCore
import MotionWire
import SessionStore

/// One analysis session as both kinds of client use it — a live WebSocket and the HTTP endpoints: the engine,
/// the identity the store knows it by, and the mapping of engine errors to wire errors.
struct SessionCore: Sendable {
    let id: SessionID
    let tenant: String
    let start: StartRequest
    /// Unix milliseconds on the server's clock.
    let startedAt: Int64
    /// SHA-256 of the session's resume token (docs/protocol.md §3.1); nil for sessions that cannot be resumed (driven over
    /// HTTP).
    let tokenDigest: [UInt8]?
    private(set) var engine: MotionEngine
    private(set) var framesAtLastCheckpoint = 0
    /// The phone's motion analysis (docs/protocol.md §3.3), created with the first motion sample: its buffers take about
    /// 210 KB, which sessions without motion sensors never pay.
    private(set) var motion: MotionAnalyzer?
    /// The time of the last motion sample the session holds: the analysis's, or, restored from the store (whose
    /// checkpoints keep the series, not the analysis), the stored series' last; nil when it holds none. A client
    /// that resumes re-sends the samples after it (`resumed.motionT`).
    var lastMotionTime: Double? { motion?.lastTime ?? engine.summary.motion.lastTime }

    /// ``motion``'s level over its last seconds, and the time of the last sample it was computed at: a snapshot
    /// per pose must not cost three FFTs each time samples came in between.
    private var motionLevel: (level: MotionLevel?, at: Double)?
    /// How much sample time passes before `snapshot.motion` is computed again (10 a second): a level over the last
    /// 2 s moves little in 0.1 s, and computing it for every pose of a 30 Hz stream with a 60 Hz phone cost more
    /// than the rest of the session.
    static let motionLevelInterval = 0.1

    /// Creates the session for a decoded `start` request (the decoder has checked its `subject`), with the exercise
    /// `exercises` has for the tenant now: the session keeps that definition whatever happens to it later.
    /// - Parameters:
    ///   - start: The request.
    ///   - tenant: The client's tenant.
    ///   - now: Unix milliseconds on the server's clock.
    ///   - exercises: Where the exercise is found.
    ///   - tokenDigest: SHA-256 of the resume token, for a session that can be resumed.
    /// - Throws: `unknownExercise`, `missingSide` or `invalidMessage` (an option the engine refuses).
    init(
        start: StartRequest, tenant: String, now: Int64, exercises: ExerciseLibrary, tokenDigest: [UInt8]? = nil
    ) throws(WireError) {
        guard let exercise = exercises.exercise(start.exercise, tenant: tenant) else {
            throw WireError(code: .unknownExercise, message: "no exercise '\(start.exercise)'")
        }
        try self.init(start: start, tenant: tenant, now: now, exercise: exercise, tokenDigest: tokenDigest)
    }

    /// Creates the session for a `start` whose exercise is given (a programme item's, at its pinned version,
    /// ``ProgrammeStart``).
    /// - Throws: `missingSide` or `invalidMessage` (an option the engine refuses).
    init(
        start: StartRequest, tenant: String, now: Int64, exercise: Exercise, tokenDigest: [UInt8]? = nil
    ) throws(WireError) {
        engine = try Self.engine(for: start, exercise: exercise)
        self.start = start
        self.tenant = tenant
        self.startedAt = now
        self.tokenDigest = tokenDigest
        id = SessionID.generate(at: now)
    }

    /// Rebuilds a session from what the store kept of it (docs/protocol.md §3.1): its `start`, the exercise version it
    /// began with, and the engine state and series of its last checkpoint.
    /// - Parameters:
    ///   - id: The session.
    ///   - tenant: Its tenant.
    ///   - start: The `start` it began with.
    ///   - exercise: The exercise, at the version the session began with.
    ///   - startedAt: When it started, Unix milliseconds.
    ///   - tokenDigest: SHA-256 of its resume token.
    ///   - state: The engine's saved state at the last checkpoint, or nil for none (a fresh engine: no checkpoint
    ///     was written).
    ///   - series: The stored value series that goes with the state.
    ///   - motion: The stored motion series, continued by the samples that come.
    /// - Throws: `resumeExpired` when the state does not restore (it was saved for another configuration, or is
    ///   corrupt); the configuration's errors as ``init(start:tenant:now:exercises:tokenDigest:)``.
    init(
        id: SessionID, tenant: String, start: StartRequest, exercise: Exercise, startedAt: Int64,
        tokenDigest: [UInt8]?, restoring state: [UInt8]?, series: ValueSeries, motion: MotionSeries = MotionSeries()
    ) throws(WireError) {
        var engine = try Self.engine(for: start, exercise: exercise)
        if let state {
            do {
                engine = try MotionEngine(
                    configuration: engine.configuration, restoring: state, series: series, motion: motion)
            } catch {
                throw WireError(code: .resumeExpired, message: "the session's saved state cannot be restored: \(error)")
            }
        }
        self.engine = engine
        self.id = id
        self.tenant = tenant
        self.start = start
        self.startedAt = startedAt
        self.tokenDigest = tokenDigest
        framesAtLastCheckpoint = engine.summary.frames
    }

    /// A new engine for `start` with `exercise`.
    /// - Throws: `missingSide` or `invalidMessage` (an option the engine refuses).
    static func engine(for start: StartRequest, exercise: Exercise) throws(WireError) -> MotionEngine {
        var configuration = SessionConfiguration(exercise: exercise, side: start.side)
        configuration.prescription = start.options.prescription
        if let reps = start.options.baselineReps {
            configuration.baselineReps = reps
            configuration.startsBaseline = true
        }
        do {
            return try MotionEngine(configuration: configuration)
        } catch {
            switch error {
            case .missingSide(let id):
                throw WireError(code: .missingSide, message: "\(id) needs a side: left or right")
            case .invalidConfiguration(let reasons):
                throw WireError(code: .invalidMessage, message: reasons.joined(separator: "; "))
            }
        }
    }

    /// Analyses one pose, appending its events to `events`. A rep's event carries its motion values when motion
    /// samples cover the rep (those that arrived before the pose that ended it).
    /// - Throws: `nonIncreasingTime` or `invalidPose`; the session is then unchanged.
    mutating func process(_ pose: Pose, into events: inout [MotionEvent]) throws(WireError) {
        let first = events.count
        do {
            try engine.process(pose, into: &events)
        } catch {
            switch error {
            case .nonIncreasingTime(let previous, let received):
                throw WireError(
                    code: .nonIncreasingTime, message: "t \(received) is not after the previous frame's \(previous)")
            case .nonFinite:
                throw WireError(code: .invalidPose, message: "a coordinate, confidence or size is not a finite number")
            case .notRunning:
                throw WireError(code: .invalidMessage, message: "the session has stopped")
            }
        }
        if motion != nil, events.count > first { attachMotion(to: &events[first...]) }
    }

    /// Judges the reps among `events` from the motion samples, in the events and in the engine's summary.
    private mutating func attachMotion(to events: inout ArraySlice<MotionEvent>) {
        for position in events.indices {
            switch events[position] {
            case .repCompleted(var rep):
                guard let values = motion?.rep(from: rep.start, to: rep.end) else { continue }
                rep.motion = values
                engine.setMotion(values, ofRep: rep.index)
                events[position] = .repCompleted(rep)
            case .repRejected(var rep):
                guard let values = motion?.rep(from: rep.start, to: rep.end) else { continue }
                rep.motion = values
                engine.setMotion(values, ofRep: rep.index)
                events[position] = .repRejected(rep)
            default: continue
            }
        }
    }

    /// Adds one motion sample (docs/protocol.md §3.3) to the session's analysis, creating it with the first sample, and
    /// keeps it in the summary's downsampled motion series.
    /// - Throws: `nonIncreasingTime` for a `t` not after the previous sample's, `invalidMessage` for a sample the
    ///   decoder should have refused; the analysis is then unchanged.
    mutating func process(_ sample: MotionSample) throws(WireError) {
        if motion == nil { motion = MotionAnalyzer() }
        do {
            try motion?.append(sample)
            engine.recordMotion(sample)
        } catch {
            switch error {
            case .nonIncreasingTime(let previous, let t):
                throw WireError(
                    code: .nonIncreasingTime, message: "t \(t) is not after the previous sample's \(previous)")
            case .wrongCount, .nonFinite:
                throw WireError(code: .invalidMessage, message: "a sample must be 4 or 7 finite numbers")
            }
        }
    }

    /// The engine's current snapshot. `mutating` only so that `core?.currentSnapshot()` reaches the session in
    /// place: a non-mutating call through the optional copies the whole session out first (retaining each field).
    mutating func currentSnapshot() -> MotionSnapshot {
        var snapshot = engine.snapshot()
        guard let last = motion?.lastTime else { return snapshot }
        // Sample time, not the clock: the same stream gives the same snapshots however fast it is sent.
        if motionLevel.map({ !(last - $0.at < Self.motionLevelInterval) }) ?? true {
            motionLevel = (motion?.recentLevel(), last)
        }
        snapshot.motion = motionLevel?.level
        return snapshot
    }

    /// The engine's snapshot with the motion level last computed for one (nothing computed again): what a watcher
    /// that joins is shown.
    var latestSnapshot: MotionSnapshot {
        var snapshot = engine.snapshot()
        if motion != nil { snapshot.motion = motionLevel?.level }
        return snapshot
    }

    mutating func reset() { engine.reset() }

    /// Ends the analysis as the session ends, before its final summary is taken, however it ends (stopped by its
    /// client, abandoned, a whole recording analysed): a hold under way ends with the time held up to the last pose
    /// (docs/protocol.md §5.4), and is in the summary's `holds` from now on. Ending again ends nothing.
    /// - Parameter metrics: Where the events are counted.
    /// - Returns: The events ending gave (a `holdEnded`), each with the `t` of the session's last pose; none when no
    ///   hold was under way.
    mutating func end(metrics: ServerMetrics) -> [(t: Double, event: MotionEvent)] {
        let events = engine.endHold()
        guard !events.isEmpty, let t = engine.snapshot().timestamp else { return [] }
        for event in events { metrics.countEvent(event) }
        return events.map { (t, $0) }
    }

    mutating func startBaseline() { engine.startBaseline() }

    /// Whether enough new frames arrived since the last checkpoint to be worth writing.
    var needsCheckpoint: Bool { engine.summary.frames != framesAtLastCheckpoint }

    /// The summary and engine state to checkpoint, marking them written.
    mutating func takeCheckpoint() -> (summary: SessionSummary, engineState: [UInt8]) {
        let summary = engine.summary
        framesAtLastCheckpoint = summary.frames
        return (summary, engine.savedState())
    }

    /// Lets go of the series samples a stored checkpoint's summary holds: the store has them, and appends the next
    /// ones after them, so a session holds only the samples since its last stored checkpoint however long it runs.
    /// - Parameter stored: Where the stored summary's series end (``SeriesEnds/init(_:)``).
    mutating func releaseSeries(_ stored: SeriesEnds) {
        engine.releaseSeries(before: stored.value, motion: stored.motion)
    }

    /// The record the store keeps when the session is created.
    var newRecord: StoredSession {
        StoredSession(
            id: id, tenant: tenant, subject: start.subject, status: .live, startedAt: startedAt,
            summary: engine.summary,
            resumption: tokenDigest.map {
                SessionResumption(tokenDigest: $0, start: String(decoding: start.encoded(), as: UTF8.self))
            }, programme: start.programme, demo: start.demo)
    }

    /// The server's part of a summary message.
    func metadata(status: SessionStatus, endedAt: Int64?) -> SummaryMetadata {
        SummaryMetadata(
            id: id.description, subject: start.subject, status: SummaryMetadata.Status(status),
            startedAt: Double(startedAt) / 1000, endedAt: endedAt.map { Double($0) / 1000 },
            programme: start.programme, demo: start.demo)
    }
}

/// Where a summary's two series end: what a stored checkpoint lets its session release (``SessionCore/releaseSeries(_:)``).
struct SeriesEnds: Sendable {
    let value: Int
    let motion: Int

    init(_ summary: SessionSummary) {
        value = summary.series.count
        motion = summary.motion.count
    }
}

extension SummaryMetadata.Status {
    init(_ status: SessionStatus) {
        switch status {
        case .live: self = .live
        case .finished: self = .finished
        case .abandoned: self = .abandoned
        }
    }
}

/// What a batch of frames gave (docs/protocol.md §3: judged frame by frame): the events of every accepted frame, and each
/// refused frame's index with its error.
struct BatchOutcome {
    var events: [(Double, MotionEvent)] = []
    /// The refused frames with their index, and session-wide notices (`unknownJoint`) without one.
    var errors: [(batchIndex: Int?, error: WireError)] = []
    /// The refused motion samples of a recording, with their index.
    var motionErrors: [(batchIndex: Int?, error: WireError)] = []
}

extension SessionCore {
    /// Processes a batch frame by frame: a frame the decoder or the engine refuses is set aside with its index and
    /// the others go on.
    ///
    /// A recording's motion samples (`POST /v1/analyze`) go in by time, as a phone streaming both would send them:
    /// before each accepted pose, the samples not after its time, in their order; after the last pose, the rest. A
    /// refused sample is set aside in ``BatchOutcome/motionErrors`` with its index.
    /// - Parameters:
    ///   - frames: The decoded frames, each a pose or why it was refused.
    ///   - samples: The decoded motion samples, each a sample or why it was refused.
    ///   - metrics: Where frames and events are counted.
    ///   - processed: If given, called after each accepted frame with its events and the snapshot after it (e.g. to
    ///     tell watchers).
    mutating func process(
        _ frames: [Result<Pose, WireError>], samples: [Result<MotionSample, WireError>] = [],
        metrics: ServerMetrics, processed: ((Pose, [MotionEvent], MotionSnapshot) -> Void)? = nil
    ) -> BatchOutcome {
        var outcome = BatchOutcome()
        var buffer: [MotionEvent] = []
        var nextSample = 0
        func processSamples(upTo t: Double) {
            while nextSample < samples.count {
                let sample = samples[nextSample]
                if case .success(let value) = sample, !(value.t <= t) { return }
                do throws(WireError) {
                    try process(try sample.get())
                } catch {
                    outcome.motionErrors.append((nextSample, error))
                }
                nextSample += 1
            }
        }
        for (index, frame) in frames.enumerated() {
            buffer.removeAll(keepingCapacity: true)
            if case .success(let pose) = frame { processSamples(upTo: pose.timestamp) }
            do throws(WireError) {
                let pose = try frame.get()
                try process(pose, into: &buffer)
                metrics.countFrames(1)
                for event in buffer {
                    metrics.countEvent(event)
                    outcome.events.append((pose.timestamp, event))
                }
                processed?(pose, buffer, engine.snapshot())
            } catch {
                outcome.errors.append((index, error))
            }
        }
        processSamples(upTo: .infinity)
        return outcome
    }
}
