import HTTPServer
import MotionCore
import MotionWire

/// A live session's analysis and who hears it: each pose or motion sample ``LiveSession`` accepts goes through the
/// session's engine, and what it brings — events, the snapshot — goes out to the client and the watchers
/// (``SessionAudience``). The pace of snapshots is ``LiveSessionState``'s.
struct LiveAnalysis {
    /// The session, boxed: a large optional struct costs a copy or an outlined tag check on every access, a
    /// reference a null check. Kept after the session ends here (for watchers that still ask), let go when it moves.
    var running: RunningSession?
    var audience: SessionAudience
    private var events: [MotionEvent] = []
    private let metrics: ServerMetrics

    init(client: WebSocket, metrics: ServerMetrics) {
        audience = SessionAudience(client: client)
        self.metrics = metrics
        events.reserveCapacity(8)
    }

    /// The session, when one runs here.
    var core: SessionCore? { running?.core }

    /// Analyses `pose`, tells everyone its events, sends the snapshot as `state` paces it, and offers the pose to the
    /// watchers that asked for poses.
    mutating func process(_ pose: Pose, state: inout LiveSessionState) throws(WireError) {
        // Most poses bring no event: skip the uniqueness check that clearing an array costs.
        if !events.isEmpty { events.removeAll(keepingCapacity: true) }
        try running?.core.process(pose, into: &events)
        metrics.countFrames(1)
        for event in events {
            metrics.countEvent(event)
            audience.tellAll { WireEncoder.encodeEvent(event, at: pose.timestamp, into: &$0) }
        }
        sendSnapshot(force: false, state: &state)
        audience.watchers.offer(pose)
    }

    /// Analyses a `motion` message's samples one by one (a refused one is answered with its index, docs/protocol.md
    /// §3.3), and sends those taken to the watchers that asked for motion, thinned, as one message.
    /// - Returns: Whether any was taken.
    mutating func process(_ samples: [Result<MotionSample, WireError>], frame: Int?) -> Bool {
        defer { audience.watchers.sendMotion() }
        return judgeEach(samples, frame: frame) { analysis, sample throws(WireError) in
            try analysis.running?.core.process(sample)
            analysis.audience.watchers.offer(sample)
        }
    }

    /// Sends the current snapshot to the client as its `snapshots` option asks (or always, `force`), and to the
    /// watchers after every pose whatever the client chose: a client that saves its bandwidth does not blind the
    /// clinician watching.
    mutating func sendSnapshot(force: Bool, state: inout LiveSessionState) {
        guard let running else { return }
        let watched = !audience.watchers.isEmpty
        guard state.wantsSnapshot(force: force, watched: watched) else { return }
        let snapshot = running.core.currentSnapshot()
        let toClient = state.snapshotGoesToClient(at: snapshot.timestamp, force: force)
        if toClient || watched { audience.send(snapshot, toClient: toClient) }
    }

    /// Judges a batch element by element (docs/protocol.md §3, §3.3): a refused one is answered with its index, the
    /// others go on. - Returns: Whether any was taken.
    mutating func judgeEach<Element>(
        _ batch: [Result<Element, WireError>], frame: Int?,
        _ take: (inout Self, Element) throws(WireError) -> Void
    ) -> Bool {
        var taken = batch.isEmpty
        for (index, element) in batch.enumerated() {
            do throws(WireError) {
                try take(&self, try element.get())
                taken = true
            } catch {
                audience.tell(error, frame: frame, batchIndex: index)
            }
        }
        return taken
    }

    /// Tells the client its session started (docs/protocol.md §3): its id, exercise, resume token and window.
    mutating func tellStarted(token: String, window: Duration) {
        guard let core else { return }
        let (seconds, attoseconds) = window.components
        audience.tellClient {
            WireEncoder.encodeStarted(
                session: core.id.description, exercise: core.engine.exercise, resume: token,
                resumeSeconds: Double(seconds) + Double(attoseconds) / 1e18, into: &$0)
        }
    }

    /// Tells the client its session resumed (docs/protocol.md §3.1) and how far the server holds its poses and motion.
    mutating func tellResumed(heldUpTo t: Double?) {
        guard let core else { return }
        audience.tellClient {
            WireEncoder.encodeResumed(
                session: core.id.description, t: t, motionT: core.lastMotionTime, exercise: core.engine.exercise,
                into: &$0)
        }
    }

    /// Sends the `summary` message of the stopped session to the client and the watchers.
    mutating func sendSummary(_ summary: SessionSummary, status: SessionStatus, endedAt: Int64) {
        guard let core else { return }
        audience.sendSummary {
            WireEncoder.encodeSummary(
                summary, metadata: core.metadata(status: status, endedAt: endedAt), includeType: true, into: &$0)
        }
    }
}
