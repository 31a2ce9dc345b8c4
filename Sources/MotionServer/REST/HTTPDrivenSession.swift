import HTTPServer
import MotionCore
import MotionWire
import SessionStore

/// A session driven over HTTP (`POST /v1/sessions`, `…/poses`, `…/stop`): the same analysis as a live one,
/// checkpointed as poses arrive, watchable like one, and stored as abandoned when its client goes quiet.
actor HTTPDrivenSession: WatchableSession {
    nonisolated let id: SessionID
    nonisolated let tenant: String
    /// The subject it was started for (a patient code reaches only its own subject's sessions).
    nonisolated let subject: String?
    private var core: SessionCore
    private let decoder: PoseDecoder
    private var unknownJoint = UnknownJointNotice()
    private var lastActivity: Int64
    private var lastCheckpoint: Int64
    private var writes = WriteChain()
    private(set) var isFinished = false
    private var watchers = SessionWatchers()
    /// This node, for other nodes' watchers.
    private let cluster: ClusterNode

    /// - Parameters:
    ///   - core: The session's analysis.
    ///   - now: Unix milliseconds now.
    ///   - cluster: This node.
    ///   - limits: What the bodies of `…/poses` and `…/motion` may be (``LiveLimits/wireLimits``).
    init(core: SessionCore, now: Int64, cluster: ClusterNode, limits: WireLimits) {
        self.cluster = cluster
        self.core = core
        id = core.id
        tenant = core.tenant
        subject = core.start.subject
        decoder = PoseDecoder(core.start, limits: limits)
        lastActivity = now
        lastCheckpoint = now
    }

    /// The body of `POST …/poses`: the events of the posted frames, the snapshot after them, and the frames refused
    /// alone (docs/protocol.md §3: a batch is judged frame by frame).
    /// - Parameters:
    ///   - body: A pose, `{"frames":[…]}`, or NDJSON.
    ///   - ndjson: Whether the body is NDJSON.
    ///   - context: The application.
    /// - Throws: `WireError` for a body that is not a pose or a batch at all (malformed JSON, too large).
    func post(_ body: [UInt8], ndjson: Bool, context: AppContext) throws(WireError) -> [UInt8] {
        guard !isFinished else { throw WireError(code: .invalidMessage, message: "the session has stopped") }
        let now = context.clock()
        lastActivity = now
        let frames =
            ndjson
            ? try decoder.decodeNDJSON(body, report: &unknownJoint.report)
            : try decoder.decodeFrames(body, report: &unknownJoint.report)
        // The watchers (with their pose throttle) go through the batch and come back.
        var watchers = self.watchers
        var outcome = core.process(
            frames, metrics: context.metrics,
            processed: watchers.isEmpty
                ? nil : { pose, events, snapshot in Self.tell(&watchers, events, snapshot, pose) })
        self.watchers = watchers
        if let notice = unknownJoint.take() { outcome.errors.insert((nil, notice), at: 0) }
        if now - lastCheckpoint >= Int64(context.limits.checkpointInterval.components.seconds * 1000) {
            checkpoint(context: context)
        }
        var out: [UInt8] = []
        WireEncoder.encodeBatchAnswer(
            events: outcome.events, snapshot: core.currentSnapshot(), errors: outcome.errors, into: &out)
        return out
    }

    /// The body of `POST …/motion`: `{"events":[],"snapshot":{…}}` and the samples refused alone (docs/protocol.md §3.3:
    /// judged one by one, as a batch's frames are). Those taken go to the watchers that asked for motion, thinned,
    /// as one message.
    /// - Parameters:
    ///   - body: `{"samples":[[t, ax, ay, az], …]}`.
    ///   - context: The application.
    /// - Throws: `WireError` for a body that is not a motion batch at all (malformed JSON, too large, too many
    ///   samples, `samples` missing or not an array).
    func postMotion(_ body: [UInt8], context: AppContext) throws(WireError) -> [UInt8] {
        guard !isFinished else { throw WireError(code: .invalidMessage, message: "the session has stopped") }
        lastActivity = context.clock()
        let samples = try MotionDecoder(limits: decoder.limits).decodeSamples(body)
        var errors: [(batchIndex: Int?, error: WireError)] = []
        for (index, sample) in samples.enumerated() {
            do throws(WireError) {
                let taken = try sample.get()
                try core.process(taken)
                watchers.offer(taken)
            } catch {
                errors.append((index, error))
            }
        }
        watchers.sendMotion()
        var out: [UInt8] = []
        WireEncoder.encodeBatchAnswer(events: [], snapshot: core.currentSnapshot(), errors: errors, into: &out)
        return out
    }

    /// Ends the session, stores it, and returns the summary body; nil when the summary could not be stored (the
    /// session then stays open, so that `stop` can be tried again). A hold under way ends first (docs/protocol.md
    /// §5.4): its `holdEnded` goes to the watchers, and it is in the summary's `holds`.
    func stop(status: SessionStatus, context: AppContext) async -> [UInt8]? {
        let endedAt = context.clock()
        if !isFinished {
            var bytes: [UInt8] = []
            for (t, event) in core.end(metrics: context.metrics) {
                bytes.removeAll(keepingCapacity: true)
                WireEncoder.encodeEvent(event, at: t, into: &bytes)
                watchers.send(bytes, replacing: nil)
            }
            let summary = core.engine.summary
            let stored = await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                writes.append(
                    .finish(summary, status: status, endedAt: endedAt), of: core, to: context, retriesAfterWait: false
                ) { stored in continuation.resume(returning: stored) }
            }
            guard stored || status == .abandoned else { return nil }
            isFinished = true
            var message: [UInt8] = []
            WireEncoder.encodeSummary(
                core.engine.summary, metadata: core.metadata(status: status, endedAt: endedAt), includeType: true,
                into: &message)
            watchers.send(message, replacing: nil)
            watchers.closeAll(status: status, summary: message)
        }
        var out: [UInt8] = []
        WireEncoder.encodeSummary(
            core.engine.summary, metadata: core.metadata(status: status, endedAt: endedAt), into: &out)
        return out
    }

    // MARK: Watchers

    func addWatchers(_ sockets: [WebSocket]) async -> [WebSocket] {
        for watcher in sockets { watchers.add(watcher, session: core) }
        return []
    }

    func removeWatcher(_ watcher: WebSocket) { watchers.remove(watcher) }

    func addRemoteWatcher(node: String, wants: WatchOptions) async -> Bool {
        watchers.addRemote(node, wants: wants, session: core, cluster: cluster)
        return true
    }

    func removeRemoteWatcher(node: String) { watchers.removeRemote(node) }

    func stopRemote(_ stream: WatchedStream, node: String) { watchers.stopRemote(stream, node: node) }

    /// Sends one pose's events, the snapshot after it and (to those that asked, throttled) the pose itself to the
    /// watchers, as a live session sends them.
    private static func tell(
        _ watchers: inout SessionWatchers, _ events: [MotionEvent], _ snapshot: MotionSnapshot, _ pose: Pose
    ) {
        var bytes: [UInt8] = []
        for event in events {
            bytes.removeAll(keepingCapacity: true)
            WireEncoder.encodeEvent(event, at: pose.timestamp, into: &bytes)
            watchers.send(bytes, replacing: nil)
        }
        bytes.removeAll(keepingCapacity: true)
        WireEncoder.encodeSnapshot(snapshot, into: &bytes)
        watchers.send(bytes, replacing: "snapshot")
        watchers.offer(pose)
    }

    /// Whether the client has been quiet for longer than `timeout` milliseconds.
    func isIdle(now: Int64, timeoutMilliseconds: Int64) -> Bool { now - lastActivity > timeoutMilliseconds }

    private func checkpoint(context: AppContext) {
        lastCheckpoint = context.clock()
        guard core.needsCheckpoint else { return }
        let (summary, engineState) = core.takeCheckpoint()
        let ends = SeriesEnds(summary)
        writes.append(.checkpoint(summary, engineState: engineState), of: core, to: context) { [self] stored in
            guard stored else { return }
            Task { await self.checkpointStored(series: ends) }
        }
    }

    /// A checkpoint is stored: the session lets go of the series samples it holds.
    private func checkpointStored(series: SeriesEnds) { core.releaseSeries(series) }
}

/// The HTTP-driven sessions of this node, bounded in total and per tenant.
final class HTTPDrivenSessionRegistry: Sendable {
    private struct State {
        var sessions: [SessionID: HTTPDrivenSession] = [:]
        var perTenant: [String: Int] = [:]
    }

    /// Whether a session was taken in.
    enum Admission: Equatable {
        case admitted
        /// The tenant has ``LiveLimits/maxHTTPSessionsPerTenant`` open.
        case tenantFull
        /// The node has ``LiveLimits/maxHTTPSessions`` open.
        case serverFull
    }

    private let state = Locked(State())
    private let maxTotal: Int
    private let maxPerTenant: Int

    init(limits: LiveLimits) {
        maxTotal = limits.maxHTTPSessions
        maxPerTenant = limits.maxHTTPSessionsPerTenant
    }

    /// Takes `session` in unless its tenant or the node is at its limit.
    func insert(_ session: HTTPDrivenSession) -> Admission {
        state.withLock { state in
            let tenantCount = state.perTenant[session.tenant, default: 0]
            if tenantCount >= maxPerTenant { return .tenantFull }
            if state.sessions.count >= maxTotal { return .serverFull }
            state.sessions[session.id] = session
            state.perTenant[session.tenant] = tenantCount + 1
            return .admitted
        }
    }

    func remove(_ id: SessionID) {
        state.withLock { state in
            guard let session = state.sessions.removeValue(forKey: id) else { return }
            let remaining = state.perTenant[session.tenant, default: 1] - 1
            state.perTenant[session.tenant] = remaining > 0 ? remaining : nil
        }
    }

    func session(_ id: SessionID, tenant: String) -> HTTPDrivenSession? {
        state.withLock { $0.sessions[id] }.flatMap { $0.tenant == tenant ? $0 : nil }
    }

    var all: [HTTPDrivenSession] { state.withLock { Array($0.sessions.values) } }

    /// How many are open.
    var count: Int { state.withLock { $0.sessions.count } }
}
