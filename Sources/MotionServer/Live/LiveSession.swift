import HTTPServer
import HTTPWire
import MotionCore
import MotionWire
import SessionStore

/// One live connection of `/v1/stream` and the session it runs (docs/protocol.md §3): pose frames in, events and
/// snapshots out. Every decision — which message is taken, flow control, idleness, how the session ends — is
/// ``LiveSessionState``'s; this actor feeds it what happens and does what it answers: decoding, analysis, sending,
/// store writes and timers.
///
/// The actor runs on its connection's event loop (the loop is its executor), so a frame is decoded, analysed,
/// encoded and queued for sending on the thread that read it, with no hop. Store writes go to the store's own
/// thread and never block the loop.
///
/// A session outlives its connection (docs/protocol.md §3.1): when the connection ends without `stop`, the session is
/// checkpointed and waits, *detached*, for a `resume` until ``LiveLimits/resumeWindow`` passes. A `resume` on a new
/// connection moves the session to that connection's actor (``handOver()``): from memory when this process holds
/// it, else from the store's last checkpoint (``AppContext/takeOver(_:tenant:for:)``).
actor LiveSession: WatchableSession {
    nonisolated let socket: WebSocket
    nonisolated let tenant: String
    private let context: AppContext
    private var state: LiveSessionState
    private var decoder: MessageDecoder
    private var unknownJoint = UnknownJointNotice()
    /// The session, boxed: a large optional struct costs a copy or an outlined tag check on every access, a
    /// reference a null check. Kept after the session ends here (for watchers that still ask), let go when it moves.
    private var running: RunningSession?
    private var events: [MotionEvent] = []
    private var audience: SessionAudience
    /// The session's last store write, which its next one follows.
    private var lastWrite: Task<Void, Never>?
    /// A `resume` being carried out; a hand-over waits for it.
    private var resuming: Task<Void, Never>?
    /// The checkpoint and idle timer, the end of a flow-control pause, and the end of the resume window.
    private var tickTimer, flowTimer, expiry: LoopTimer?

    nonisolated var unownedExecutor: UnownedSerialExecutor { socket.loop.asUnownedSerialExecutor() }

    init(socket: WebSocket, tenant: String, context: AppContext) {
        self.socket = socket
        self.tenant = tenant
        self.context = context
        state = LiveSessionState(limits: .init(context.limits), now: socket.loop.now())
        decoder = MessageDecoder(poseDecoder: PoseDecoder(limits: context.limits.wireLimits))
        audience = SessionAudience(client: socket)
        events.reserveCapacity(8)
    }

    /// Connects the socket's callbacks to this session. Call on the socket's loop, before any message.
    nonisolated func attach() {
        socket.onMessage = { [self] message in
            // The session runs on the socket's loop, where this is called: the lent message never leaves the thread.
            nonisolated(unsafe) let message = message
            assumeIsolated { $0.receive(message) }
        }
        socket.onClose = { [self] _, _ in assumeIsolated { $0.connectionClosed() } }
        assumeIsolated { $0.scheduleTick() }
    }

    /// Whether the session ended here (stopped, its summary maybe still on its way to the store): it cannot be
    /// resumed.
    var wasStopped: Bool { state.endedHere }

    // MARK: Messages

    private func receive(_ message: WebSocketMessageView) {
        state.messageArrived(at: socket.loop.time)
        do throws(WireError) {
            // Decoded where it lies, in the connection's read buffer; a binary message is a pose frame (§3.2).
            let taken =
                message.isText
                ? try handle(try decoder.decode(message.bytes, report: &unknownJoint.report))
                : try handleBinary(message.bytes)
            if taken { state.accepted() } else { countRefusal() }
        } catch {
            refuse(error)
        }
        // Once per session (docs/protocol.md §3): the pose was accepted without that joint.
        if let notice = unknownJoint.take() { audience.tell(notice, frame: state.messageNumber) }
    }

    private func handleBinary(_ bytes: UnsafeRawBufferPointer) throws(WireError) -> Bool {
        try state.requireSession()
        flow(frames: 1)
        try process(try decoder.poseDecoder.decodeBinaryPose(bytes))
        return true
    }

    /// Carries out one message. - Returns: Whether it was taken; a batch none of whose elements was is not.
    private func handle(_ message: consuming ClientMessage) throws(WireError) -> Bool {
        switch message {
        case .resume(let request):
            try state.resumeBegins()
            socket.pauseReading()
            let started = socket.loop.now()
            resuming = Task { await self.resume(request, started: started) }
        case .start(let start): try begin(start)
        case .pose(let pose):
            try state.requireSession()
            flow(frames: 1)
            try process(pose)
        case .poses(let frames):
            try state.requireSession()
            flow(frames: frames.count)
            return judgeEach(frames) { frame throws(WireError) in try process(frame) }
        case .motion(let samples):
            try state.requireSession()
            flow(samples: samples.count)
            return judgeEach(samples) { sample throws(WireError) in try running?.core.process(sample) }
        case .reset, .baseline:
            try state.requireSession()
            if case .reset = message { running?.core.reset() } else { running?.core.startBaseline() }
            sendSnapshot(force: true)
        case .stop:
            try state.stop()
            finish(status: .finished, closeCode: .normal)
        }
        return true
    }

    /// Judges a batch element by element (docs/protocol.md §3, §3.3): a refused one is answered with its index, the
    /// others go on. - Returns: Whether any was taken.
    private func judgeEach<Element>(
        _ batch: [Result<Element, WireError>], _ take: (Element) throws(WireError) -> Void
    ) -> Bool {
        var taken = batch.isEmpty
        for (index, element) in batch.enumerated() {
            do throws(WireError) {
                try take(try element.get())
                taken = true
            } catch {
                audience.tell(error, frame: state.messageNumber, batchIndex: index)
            }
        }
        return taken
    }

    /// Charges frames or motion samples to the budgets; past one, the socket is not read until both have refilled
    /// (docs/protocol.md §3, flow control), so TCP slows the client. What was read already is still processed.
    private func flow(frames: Int = 0, samples: Int = 0) {
        guard let wait = state.spend(frames: frames, samples: samples, at: socket.loop.time) else { return }
        socket.pauseReading()
        context.metrics.flowPaused()
        let socket = socket
        flowTimer = socket.loop.schedule(after: wait) { [self] in
            assumeIsolated { $0.state.flowResumed() }
            socket.resumeReading()
        }
    }

    private func begin(_ start: StartRequest) throws(WireError) {
        try state.requireFirstMessage()
        let token = ResumeToken.generate()
        let session = try SessionCore(
            start: start, tenant: tenant, now: context.clock(), exercises: context.exercises,
            tokenDigest: ResumeToken.digest(of: token))
        try state.start()
        running = RunningSession(session)
        configure(for: start)
        context.live.insert(self, id: session.id, tokenDigest: session.tokenDigest ?? [], connected: true)
        context.metrics.sessionOpened()
        // `started` waits for the session's row to be durable (one group commit, milliseconds), so that from the
        // moment the client knows its id every node finds it: a watcher, a REST read, a resume after this node dies.
        // What the client sends meanwhile waits in the socket, in order.
        socket.pauseReading()
        writeThen(.create(session.newRecord)) { $0.created(stored: $1, token: token) }
    }

    /// The session's create was written (or failed): `started`, and the client's next messages are read; or
    /// `storeUnavailable` and 1011, which says to start again (docs/protocol.md §3), and the session is dropped unstored.
    private func created(stored: Bool, token: String) {
        guard let core = running?.core else { return }
        switch state.created(stored: stored) {
        case .none: return
        case .notStored:
            cancelTimers()
            context.live.remove(core.id, holder: self)
            context.metrics.sessionClosed()
            audience.closeUnstored(
                "the session could not be stored; start again", reason: "session not stored", frame: state.messageNumber
            )
        case .started:
            let window = context.limits.resumeWindow.components
            audience.tellClient {
                WireEncoder.encodeStarted(
                    session: core.id.description, exercise: core.engine.exercise, resume: token,
                    resumeSeconds: Double(window.seconds) + Double(window.attoseconds) / 1e18, into: &$0)
            }
            socket.resumeReading()
        }
    }

    private func configure(for start: StartRequest) {
        decoder.configure(for: start)
        state.configure(snapshots: start.options.snapshots)
    }

    private func process(_ pose: Pose) throws(WireError) {
        // Most poses bring no event: skip the uniqueness check that clearing an array costs.
        if !events.isEmpty { events.removeAll(keepingCapacity: true) }
        try running?.core.process(pose, into: &events)
        context.metrics.countFrames(1)
        for event in events {
            context.metrics.countEvent(event)
            audience.tellAll { WireEncoder.encodeEvent(event, at: pose.timestamp, into: &$0) }
        }
        sendSnapshot(force: false)
        audience.watchers.offer(pose)
    }

    /// Sends the current snapshot to the client as its `snapshots` option asks (or always, `force`), and to the
    /// watchers after every pose whatever the client chose: a client that saves its bandwidth does not blind the
    /// clinician watching.
    private func sendSnapshot(force: Bool) {
        guard let running else { return }
        let watched = !audience.watchers.isEmpty
        guard state.wantsSnapshot(force: force, watched: watched) else { return }
        let snapshot = running.core.currentSnapshot()
        let toClient = state.snapshotGoesToClient(at: snapshot.timestamp, force: force)
        if toClient || watched { audience.send(snapshot, toClient: toClient) }
    }

    /// Answers a refused message and counts it toward ``LiveLimits/maxConsecutiveErrors``.
    private func refuse(_ error: WireError) {
        audience.tell(error, frame: state.messageNumber)
        countRefusal()
    }

    private func countRefusal() {
        guard state.refused() else { return }
        context.logger.log(.notice, "closing abusive connection", ["errors": "\(state.consecutiveErrors)"])
        if state.abandon() {
            finish(status: .abandoned, closeCode: .policyViolation, reason: "too many invalid messages")
        } else {
            socket.close(code: .policyViolation, reason: "too many invalid messages")
        }
    }

    // MARK: Checkpoints, idle, ending

    private func scheduleTick() {
        // Held strongly (a weak reference would slow every retain of the session); ending the session cancels it.
        tickTimer = socket.loop.schedule(after: context.limits.checkpointInterval) { [self] in
            assumeIsolated { $0.tick() }
        }
    }

    private func tick() {
        // The loop's clock, as every timeout of the connection: a test's manual clock closes it exactly.
        switch state.tick(at: socket.loop.time) {
        case .stop: return
        // A silent client may be a phone whose network froze: its session stays resumable like any other whose
        // connection ended (or is abandoned at once without a resume window).
        case .closeIdle: return socket.close(code: .goingAway, reason: "idle")
        case .checkpoint:
            checkpoint()
            scheduleTick()
        }
    }

    /// Writes a checkpoint if frames came since the last one; the client is told once it is stored that its whole
    /// state up to that pose is durable (docs/protocol.md §3.1), and the session lets go of the samples it holds.
    private func checkpoint() {
        guard let running, running.core.needsCheckpoint else { return }
        let (summary, engineState) = running.core.takeCheckpoint()
        let (series, t) = (SeriesEnds(summary), summary.lastTimestamp)
        writeThen(.checkpoint(summary, engineState: engineState)) { session, stored in
            guard stored, let t else { return }
            session.running?.core.releaseSeries(series)
            guard session.state.tellsCheckpoints else { return }
            session.audience.tellClient { WireEncoder.encodeCheckpoint(at: t, into: &$0) }
        }
    }

    /// Queues a write of the session after its last one; `then` runs on this actor with whether it was stored.
    private func writeThen(
        _ write: SessionWrite, then: (@Sendable (isolated LiveSession, _ stored: Bool) -> Void)? = nil
    ) {
        guard let core = running?.core else { return }
        guard let then else {
            lastWrite = context.store(write, id: core.id, tenant: core.tenant, after: lastWrite)
            return
        }
        let loop = socket.loop
        lastWrite = context.store(write, id: core.id, tenant: core.tenant, after: lastWrite) { [self] stored in
            loop.execute { [self] in assumeIsolated { session in then(session, stored) } }
        }
    }

    /// Cancels the checkpoint timer and the resume window, and the end of a flow-control pause unless `keepingFlow`.
    private func cancelTimers(keepingFlow: Bool = false) {
        for timer in keepingFlow ? [tickTimer, expiry] : [tickTimer, flowTimer, expiry] { timer?.cancel() }
        (tickTimer, expiry) = (nil, nil)
        if !keepingFlow { flowTimer = nil }
    }

    private func connectionClosed() {
        tickTimer?.cancel()
        flowTimer?.cancel()
        flowTimer = nil
        switch state.connectionClosed(resumable: running?.core.tokenDigest != nil) {
        case .none: return
        case .detach: detach()
        case .abandon: finish(status: .abandoned, closeCode: nil)
        }
    }

    /// The connection ended without `stop`: the session's state is made durable (a checkpoint) and it waits for a
    /// resume until its window passes; watchers learn that the client is gone.
    private func detach() {
        guard let core = running?.core else { return }
        expiry = socket.loop.schedule(after: context.limits.resumeWindow) { [self] in
            assumeIsolated { session in
                if session.state.expired() { session.finish(status: .abandoned, closeCode: nil) }
            }
        }
        checkpoint()
        writeThen(.connection(false))
        audience.tellWatchers { WireEncoder.encodeConnection(connected: false, into: &$0) }
        context.live.setConnected(false, id: core.id, holder: self)
    }
}

// MARK: Resuming (docs/protocol.md §3.1)

extension LiveSession {
    /// Carries out a `resume` (the socket is not read meanwhile, so frames the client sent after it wait in order).
    private func resume(_ request: ResumeRequest, started: UInt64) async {
        do throws(WireError) {
            let taken = try await context.takeOver(request, tenant: tenant, for: self)
            adopt(taken.handover, heldUpTo: taken.heldUpTo)
            context.metrics.countResume(taken.source)
            context.metrics.observeResume(source: taken.source, seconds: Double(socket.loop.now() - started) / 1e9)
        } catch {
            context.metrics.countResume(error.code.rawValue)
            audience.tell(error, frame: state.messageNumber)
            state.resumeFailed()
            audience.turnAway(SessionID(request.session), cluster: context.cluster)
            // A store failure may pass: 1011 says try again; the other refusals are final (1008).
            let code: WebSocketCloseCode = error.code == .storeUnavailable ? .internalError : .policyViolation
            socket.close(code: code, reason: error.code.rawValue)
        }
        resuming = nil
        socket.resumeReading()
    }

    /// Takes over a session handed over by its previous holder (or restored from the store) and tells the client
    /// (`resumed`, then a snapshot) and the watchers (`connection`, then the snapshot).
    private func adopt(_ handover: Handover, heldUpTo t: Double?) {
        let core = handover.core
        running = RunningSession(core)
        audience.welcome(handover, cluster: context.cluster)
        lastWrite = handover.lastWrite
        configure(for: core.start)
        audience.tellClient {
            WireEncoder.encodeResumed(
                session: core.id.description, t: t, motionT: core.lastMotionTime, exercise: core.engine.exercise,
                into: &$0)
        }
        let detached = state.resumed(at: socket.loop.time) == .detach
        context.live.insert(self, id: core.id, tokenDigest: core.tokenDigest ?? [], connected: !detached)
        if detached { return detach() }
        writeThen(.connection(true))
        audience.tellWatchers { WireEncoder.encodeConnection(connected: true, into: &$0) }
        sendSnapshot(force: true)
    }

    /// Gives this actor's session to a connection that resumed it: cancels this actor's timers and closes its
    /// connection with 4001 if it is still open. A restore still in progress here finishes first.
    /// - Returns: The session, or nil when this actor no longer holds one (it ended, or moved on).
    func handOver() async -> Handover? {
        if let resuming { await resuming.value }
        guard let running, state.handOver() else { return nil }
        self.running = nil
        cancelTimers()
        let handover = Handover(core: running.core, watchers: audience.watchers, lastWrite: lastWrite)
        audience.watchers = SessionWatchers()
        if state.connected { socket.close(code: .takenOver, reason: "resumed on another connection") }
        return handover
    }
}

// MARK: Watchers

extension LiveSession {
    /// Adds read-only observers that receive this session's events and snapshots from now on.
    /// - Returns: Those that must look for the session elsewhere: it moved on, or never came.
    func addWatchers(_ sockets: [WebSocket]) async -> [WebSocket] {
        audience.admit(sockets, as: state.admission, session: running?.core)
    }

    func removeWatcher(_ watcher: WebSocket) { audience.watchers.remove(watcher) }

    func addRemoteWatcher(node: String, poses: Bool) async -> Bool {
        audience.admitRemote(node, poses: poses, as: state.admission, session: running?.core, cluster: context.cluster)
    }

    func removeRemoteWatcher(node: String) { audience.watchers.removeRemote(node) }

    func stopRemotePoses(node: String) { audience.stopRemotePoses(node) }
}

// MARK: Ending

extension LiveSession {
    /// Stores the final summary of a session the machine has just ended; after `stop` also sends it and closes with
    /// 1000 once it is stored (docs/protocol.md §3: answer, store, close).
    private func finish(status: SessionStatus, closeCode: WebSocketCloseCode?, reason: String = "") {
        guard let session = running?.end(telling: &audience, metrics: context.metrics) else { return }
        cancelTimers(keepingFlow: true)
        context.metrics.sessionClosed()
        let endedAt = context.clock()
        let summary = session.engine.summary
        guard status == .finished, let closeCode else {
            if let closeCode { socket.close(code: closeCode, reason: reason) }
            audience.watchers.closeAll(status: status, summary: nil)
            context.live.remove(session.id, holder: self)
            return writeThen(.finish(summary, status: status, endedAt: endedAt))
        }
        audience.sendSummary {
            WireEncoder.encodeSummary(
                summary, metadata: session.metadata(status: status, endedAt: endedAt), includeType: true, into: &$0)
        }
        // Until it is stored the session stays this node's: a watcher arriving meanwhile joins it (and gets the
        // summary and the same close), and a resume is told at once that it was stopped. A client that saw the
        // close finds it finished over REST; its watchers' 1000 says what the client's says.
        writeThen(.finish(summary, status: status, endedAt: endedAt)) { live, stored in
            live.context.live.remove(session.id, holder: live)
            live.audience.watchers.closeAll(status: status, summary: live.audience.summary, stored: stored)
            guard stored else {
                return live.audience.closeUnstored("the summary could not be stored", reason: "summary not stored")
            }
            live.socket.close(code: closeCode, reason: reason)
        }
    }
}
