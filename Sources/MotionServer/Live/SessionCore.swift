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
    private(set) var engine: MotionEngine
    private(set) var framesAtLastCheckpoint = 0

    /// Creates the session for a decoded `start` request (the decoder has checked its `subject`), with the exercise
    /// `exercises` has for the tenant now: the session keeps that definition whatever happens to it later.
    /// - Throws: `unknownExercise`, `missingSide` or `invalidMessage` (an option the engine refuses).
    init(start: StartRequest, tenant: String, now: Int64, exercises: ExerciseLibrary) throws(WireError) {
        guard let exercise = exercises.exercise(start.exercise, tenant: tenant) else {
            throw WireError(code: .unknownExercise, message: "no exercise '\(start.exercise)'")
        }
        var configuration = SessionConfiguration(exercise: exercise, side: start.side)
        configuration.prescription = start.options.prescription
        if let reps = start.options.baselineReps {
            configuration.baselineReps = reps
            configuration.startsBaseline = true
        }
        do {
            engine = try MotionEngine(configuration: configuration)
        } catch {
            switch error {
            case .missingSide(let id):
                throw WireError(code: .missingSide, message: "\(id) needs a side: left or right")
            case .invalidConfiguration(let reasons):
                throw WireError(code: .invalidMessage, message: reasons.joined(separator: "; "))
            }
        }
        self.start = start
        self.tenant = tenant
        self.startedAt = now
        id = SessionID.generate(at: now)
    }

    /// Analyses one pose, appending its events to `events`.
    /// - Throws: `nonIncreasingTime` or `invalidPose`; the session is then unchanged.
    mutating func process(_ pose: Pose, into events: inout [MotionEvent]) throws(WireError) {
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
    }

    /// The engine's current snapshot. `mutating` only so that `core?.currentSnapshot()` reaches the session in
    /// place: a non-mutating call through the optional copies the whole session out first (retaining each field).
    mutating func currentSnapshot() -> MotionSnapshot { engine.snapshot() }

    mutating func reset() { engine.reset() }

    mutating func startBaseline() { engine.startBaseline() }

    /// Whether enough new frames arrived since the last checkpoint to be worth writing.
    var needsCheckpoint: Bool { engine.summary.frames != framesAtLastCheckpoint }

    /// The summary and engine state to checkpoint, marking them written.
    mutating func takeCheckpoint() -> (summary: SessionSummary, engineState: [UInt8]) {
        let summary = engine.summary
        framesAtLastCheckpoint = summary.frames
        return (summary, engine.savedState())
    }

    /// The record the store keeps when the session is created.
    var newRecord: StoredSession {
        StoredSession(
            id: id, tenant: tenant, subject: start.subject, status: .live, startedAt: startedAt,
            summary: engine.summary)
    }

    /// The server's part of a summary message.
    func metadata(status: SessionStatus, endedAt: Int64?) -> SummaryMetadata {
        SummaryMetadata(
            id: id.description, subject: start.subject, status: SummaryMetadata.Status(status),
            startedAt: Double(startedAt) / 1000, endedAt: endedAt.map { Double($0) / 1000 })
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

/// What a batch of frames gave (PROTOCOL.md §3: judged frame by frame): the events of every accepted frame, and each
/// refused frame's index with its error.
struct BatchOutcome {
    var events: [(Double, MotionEvent)] = []
    /// The refused frames with their index, and session-wide notices (`unknownJoint`) without one.
    var errors: [(batchIndex: Int?, error: WireError)] = []
}

extension SessionCore {
    /// Processes a batch frame by frame: a frame the decoder or the engine refuses is set aside with its index and
    /// the others go on.
    /// - Parameters:
    ///   - frames: The decoded frames, each a pose or why it was refused.
    ///   - metrics: Where frames and events are counted.
    ///   - processed: If given, called after each accepted frame with its events and the snapshot after it (e.g. to
    ///     tell watchers).
    mutating func process(
        _ frames: [Result<Pose, WireError>], metrics: ServerMetrics,
        processed: ((Pose, [MotionEvent], MotionSnapshot) -> Void)? = nil
    ) -> BatchOutcome {
        var outcome = BatchOutcome()
        var buffer: [MotionEvent] = []
        for (index, frame) in frames.enumerated() {
            buffer.removeAll(keepingCapacity: true)
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
        return outcome
    }
}
