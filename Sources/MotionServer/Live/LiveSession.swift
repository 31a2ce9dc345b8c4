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
///
/// Starting a session is in `LiveSession+Start.swift`, resuming and hand-over in `LiveSession+Resume.swift`, watchers
/// in `LiveSession+Watchers.swift`; the members they share are internal for that alone.
actor LiveSession {
    nonisolated let socket: WebSocket
    nonisolated let tenant: String
    /// Who the connection runs as (a tenant's token, or a patient code limited to one subject).
    nonisolated let caller: Caller
    let context: AppContext
    var state: LiveSessionState
    private var decoder: MessageDecoder
    private var unknownJoint = UnknownJointNotice()
    /// The session's engine and its audience.
    var analysis: LiveAnalysis
    var writes = WriteChain()
    /// A `resume` being carried out; a hand-over waits for it.
    var resuming: Task<Void, Never>?
    var timers = LiveTimers()

    nonisolated var unownedExecutor: UnownedSerialExecutor { socket.loop.asUnownedSerialExecutor() }

    init(socket: WebSocket, caller: Caller, context: AppContext) {
        self.socket = socket
        self.caller = caller
        self.tenant = caller.tenant
        self.context = context
        state = LiveSessionState(limits: .init(context.limits), now: socket.loop.now())
        decoder = MessageDecoder(poseDecoder: PoseDecoder(limits: context.limits.wireLimits))
        analysis = LiveAnalysis(client: socket, metrics: context.metrics)
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
            analysis.audience.tell(error, frame: state.messageNumber)
            countRefusal()
        }
        // Once per session (docs/protocol.md §3): the pose was accepted without that joint.
        if let notice = unknownJoint.take() { analysis.audience.tell(notice, frame: state.messageNumber) }
    }

    private func handleBinary(_ bytes: UnsafeRawBufferPointer) throws(WireError) -> Bool {
        try state.requireSession()
        flow(frames: 1)
        try analysis.process(try decoder.poseDecoder.decodeBinaryPose(bytes), state: &state)
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
        case .start(let start):
            guard start.programme != nil || caller.subject != nil else {
                try begin(start)
                return true
            }
            try state.requireFirstMessage()
            // A programme item's start reads the programme first; the socket waits, so nothing overtakes it.
            socket.pauseReading()
            resuming = Task { await self.beginProgramme(start) }
        case .pose(let pose):
            try state.requireSession()
            flow(frames: 1)
            try analysis.process(pose, state: &state)
        case .poses(let frames):
            try state.requireSession()
            flow(frames: frames.count)
            return analysis.judgeEach(frames, frame: state.messageNumber) { analysis, frame throws(WireError) in
                try analysis.process(frame, state: &state)
            }
        case .motion(let samples):
            try state.requireSession()
            flow(samples: samples.count)
            return analysis.process(samples, frame: state.messageNumber)
        case .reset, .baseline:
            try state.requireSession()
            if case .reset = message { analysis.running?.core.reset() } else { analysis.running?.core.startBaseline() }
            analysis.sendSnapshot(force: true, state: &state)
        case .stop:
            try state.stop()
            finish(status: .finished, closeCode: .normal)
        }
        return true
    }

    /// Charges frames or motion samples to the budgets; past one, the socket is not read until both have refilled
    /// (docs/protocol.md §3, flow control), so TCP slows the client. What was read already is still processed.
    private func flow(frames: Int = 0, samples: Int = 0) {
        guard let wait = state.spend(frames: frames, samples: samples, at: socket.loop.time) else { return }
        socket.pauseReading()
        context.metrics.flowPaused()
        let socket = socket
        timers.flow = socket.loop.schedule(after: wait) { [self] in
            assumeIsolated { $0.state.flowResumed() }
            socket.resumeReading()
        }
    }

    func configure(for start: StartRequest) {
        decoder.configure(for: start)
        state.configure(snapshots: start.options.snapshots)
    }

    /// Counts a refused message toward ``LiveLimits/maxConsecutiveErrors``.
    func countRefusal() {
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
        timers.tick = socket.loop.schedule(after: context.limits.checkpointInterval) { [self] in
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
        guard let running = analysis.running, running.core.needsCheckpoint else { return }
        let (summary, engineState) = running.core.takeCheckpoint()
        let (series, t) = (SeriesEnds(summary), summary.lastTimestamp)
        writeThen(.checkpoint(summary, engineState: engineState)) { session, stored in
            guard stored, let t else { return }
            session.analysis.running?.core.releaseSeries(series)
            guard session.state.tellsCheckpoints else { return }
            session.analysis.audience.tellClient { WireEncoder.encodeCheckpoint(at: t, into: &$0) }
        }
    }

    /// Queues a write of the session after its last one; `then` runs on this actor with whether it was stored.
    func writeThen(
        _ write: SessionWrite, then: (@Sendable (isolated LiveSession, _ stored: Bool) -> Void)? = nil
    ) {
        guard let core = analysis.core else { return }
        guard let then else { return writes.append(write, of: core, to: context) }
        let loop = socket.loop
        writes.append(write, of: core, to: context) { [self] stored in
            loop.execute { [self] in assumeIsolated { session in then(session, stored) } }
        }
    }

    private func connectionClosed() {
        timers.connectionClosed()
        switch state.connectionClosed(resumable: analysis.core?.tokenDigest != nil) {
        case .none: return
        case .detach: detach()
        case .abandon: finish(status: .abandoned, closeCode: nil)
        }
    }

    /// The connection ended without `stop`: the session's state is made durable (a checkpoint) and it waits for a
    /// resume until its window passes; watchers learn that the client is gone.
    func detach() {
        guard let core = analysis.core else { return }
        timers.expiry = socket.loop.schedule(after: context.limits.resumeWindow) { [self] in
            assumeIsolated { session in
                if session.state.expired() { session.finish(status: .abandoned, closeCode: nil) }
            }
        }
        checkpoint()
        writeThen(.connection(false))
        analysis.audience.tellWatchers { WireEncoder.encodeConnection(connected: false, into: &$0) }
        context.live.setConnected(false, id: core.id, holder: self)
    }
}

// MARK: Ending

extension LiveSession {
    /// Stores the final summary of a session the machine has just ended; after `stop` also sends it and closes with
    /// 1000 once it is stored (docs/protocol.md §3: answer, store, close).
    private func finish(status: SessionStatus, closeCode: WebSocketCloseCode?, reason: String = "") {
        guard let session = analysis.running?.end(telling: &analysis.audience, metrics: context.metrics) else { return }
        timers.cancel(keepingFlow: true)
        context.metrics.sessionClosed()
        let endedAt = context.clock()
        let summary = session.engine.summary
        guard status == .finished, let closeCode else {
            if let closeCode { socket.close(code: closeCode, reason: reason) }
            analysis.audience.watchers.closeAll(status: status, summary: nil)
            context.live.remove(session.id, holder: self)
            return writeThen(.finish(summary, status: status, endedAt: endedAt))
        }
        analysis.sendSummary(summary, status: status, endedAt: endedAt)
        // Until it is stored the session stays this node's: a watcher arriving meanwhile joins it (and gets the
        // summary and the same close), and a resume is told at once that it was stopped. A client that saw the
        // close finds it finished over REST; its watchers' 1000 says what the client's says.
        writeThen(.finish(summary, status: status, endedAt: endedAt)) { live, stored in
            live.context.live.remove(session.id, holder: live)
            live.analysis.audience.watchers.closeAll(
                status: status, summary: live.analysis.audience.summary, stored: stored)
            guard stored else {
                let message = "the summary could not be stored"
                return live.analysis.audience.closeUnstored(message, reason: "summary not stored")
            }
            live.socket.close(code: closeCode, reason: reason)
        }
    }
}
