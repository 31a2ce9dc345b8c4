import HTTPServer
import HTTPWire
import MotionCore
import MotionWire
import SessionStore

/// One live connection of `/v1/stream` and the session it runs (docs/protocol.md §3): pose frames in, events and
/// snapshots out.
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
    private var decoder: MessageDecoder
    private var unknownJoint = UnknownJointNotice()
    /// The running session, boxed: a large optional struct costs a copy or an outlined tag check on every access,
    /// a reference a null check.
    private var running: RunningSession?
    private var snapshots = SnapshotPolicy.every
    private var lastSnapshotTime: Double?
    private var events: [MotionEvent] = []
    private var output: [UInt8] = []
    private var snapshotCache = SnapshotCache()
    private var messageNumber = 0
    private var consecutiveErrors = 0
    private var bucket: TokenBucket
    /// The budget of motion samples (docs/protocol.md §3.3), spent and refilled as ``bucket`` is.
    private var motionBucket: TokenBucket
    /// Armed while the socket is not read because the client spent more than its frame budget (flow control).
    private var resumeTimer: LoopTimer?
    private var lastMessage: UInt64
    private var lastWrite: Task<Void, Never>?
    private var timer: LoopTimer?
    private var watchers = SessionWatchers()
    /// Set once this actor is done with its session: it ended, or moved to another connection.
    private var finished = false
    /// The connection has ended; a session still held waits for a resume.
    private var socketClosed = false
    /// Ends a detached session when its resume window passes.
    private var expiry: LoopTimer?
    /// A `resume` being carried out: the socket is not read meanwhile, and a hand-over waits for it.
    private var resuming: Task<Void, Never>?
    /// After `stop`: the `summary` message, for watchers that join while it is being stored.
    private var stoppedSummary: [UInt8]?
    /// Watchers, here and on other nodes (with whether they want poses), that asked for the session while a resume
    /// brought it here.
    private var arriving: (sockets: [WebSocket], nodes: [(node: String, poses: Bool)]) = ([], [])

    nonisolated var unownedExecutor: UnownedSerialExecutor { socket.loop.asUnownedSerialExecutor() }

    init(socket: WebSocket, tenant: String, context: AppContext) {
        self.socket = socket
        self.tenant = tenant
        self.context = context
        decoder = MessageDecoder(
            poseDecoder: PoseDecoder(limits: WireLimits(maxMessageBytes: context.limits.maxMessageBytes)))
        bucket = TokenBucket(rate: context.limits.framesPerSecond, burst: context.limits.framesPerSecond * 2)
        motionBucket = TokenBucket(
            rate: context.limits.motionSamplesPerSecond, burst: context.limits.motionSamplesPerSecond * 2)
        lastMessage = socket.loop.now()
        events.reserveCapacity(8)
        output.reserveCapacity(1024)
    }

    /// Connects the socket's callbacks to this session. Call on the socket's loop, before any message.
    nonisolated func attach() {
        socket.onMessage = { [self] message in
            // The session runs on the socket's loop, where this is called: the lent message never leaves the thread.
            nonisolated(unsafe) let message = message
            assumeIsolated { $0.receive(message) }
        }
        socket.onClose = { [self] code, _ in assumeIsolated { $0.connectionClosed(code: code) } }
        assumeIsolated { $0.scheduleTimer() }
    }

    // MARK: Messages

    private func receive(_ message: WebSocketMessageView) {
        lastMessage = socket.loop.time
        messageNumber += 1
        guard message.isText else { return receiveBinary(message) }
        do {
            // The message is decoded where it lies, in the connection's read buffer.
            try handle(try decoder.decode(message.bytes, report: &unknownJoint.report))
            consecutiveErrors = 0
        } catch let error as WireError {
            refuse(error)
        } catch {
            refuse(WireError(code: .invalidMessage, message: "\(error)"))
        }
        // Once per session (docs/protocol.md §3): the pose was accepted without that joint.
        if let notice = unknownJoint.take() { tell(notice) }
    }

    /// A binary message is a pose frame (docs/protocol.md §3.2), decoded where it lies like a JSON one.
    private func receiveBinary(_ message: WebSocketMessageView) {
        do throws(WireError) {
            try requireStarted()
            spend(frames: 1)
            try process(try decoder.poseDecoder.decodeBinaryPose(message.bytes))
            consecutiveErrors = 0
        } catch {
            refuse(error)
        }
    }

    private func handle(_ message: consuming ClientMessage) throws {
        switch message {
        case .resume(let request):
            try requireFirstMessage()
            beginResume(request)
        case .start(let start):
            try requireFirstMessage()
            try begin(start)
        case .pose(let pose):
            try requireStarted()
            spend(frames: 1)
            try process(pose)
        case .poses(let frames):
            try requireStarted()
            spend(frames: frames.count)
            // Judged frame by frame (docs/protocol.md §3): a refused frame is answered with its index, the others go on.
            var accepted = false
            for (index, frame) in frames.enumerated() {
                do throws(WireError) {
                    try process(try frame.get())
                    accepted = true
                } catch {
                    tell(error, batchIndex: index)
                }
            }
            if !accepted && !frames.isEmpty { consecutiveErrors += 1 }
        case .motion(let samples):
            try requireStarted()
            spend(samples: samples.count)
            // Judged sample by sample, as the frames of a batch (docs/protocol.md §3, §3.3).
            var accepted = false
            for (index, sample) in samples.enumerated() {
                do throws(WireError) {
                    try running?.core.process(try sample.get())
                    accepted = true
                } catch {
                    tell(error, batchIndex: index)
                }
            }
            if !accepted && !samples.isEmpty { consecutiveErrors += 1 }
        case .reset:
            try requireStarted()
            running?.core.reset()
            sendSnapshot(force: true)
        case .baseline:
            try requireStarted()
            running?.core.startBaseline()
            sendSnapshot(force: true)
        case .stop:
            let session = try started()
            finish(session, status: .finished, closeCode: .normal)
        }
    }

    /// Throws `alreadyStarted` unless the connection has neither started nor resumed a session.
    private func requireFirstMessage() throws(WireError) {
        guard running == nil, resuming == nil, !finished else {
            throw WireError(code: .alreadyStarted, message: "the session has started")
        }
    }

    private func started() throws(WireError) -> SessionCore {
        try requireStarted()
        guard let running else { throw WireError(code: .notStarted, message: "send a start message first") }
        return running.core
    }

    /// Throws `notStarted` unless a session is running. The session itself stays in `running` and is changed there,
    /// in place: a copy taken out and written back would share the engine's arrays with it and copy them on every
    /// change.
    private func requireStarted() throws(WireError) {
        guard running != nil, !finished else {
            throw WireError(code: .notStarted, message: "send a start message first")
        }
    }

    /// Charges pose frames or motion samples to the connection's budgets. Neither is ever refused for speed
    /// (docs/protocol.md §3, flow control; §3.3): past either budget the socket is not read until both have refilled to
    /// a quarter of their burst, so TCP slows the client, and what was already read (at most one read buffer) is
    /// still processed.
    private func spend(frames: Int = 0, samples: Int = 0) {
        let now = socket.loop.time
        let framesWithin = frames == 0 || bucket.spend(Double(frames), now: now)
        let samplesWithin = samples == 0 || motionBucket.spend(Double(samples), now: now)
        guard !(framesWithin && samplesWithin), resumeTimer == nil else { return }
        socket.pauseReading()
        context.metrics.flowPaused()
        let socket = socket
        // Both brought to now, so the one not spent this time counts what it has refilled since.
        _ = bucket.spend(0, now: now)
        _ = motionBucket.spend(0, now: now)
        let wait = max(bucket.time(toReach: bucket.burst / 4), motionBucket.time(toReach: motionBucket.burst / 4))
        resumeTimer = socket.loop.schedule(after: wait) { [self] in
            assumeIsolated { $0.resumeTimer = nil }
            socket.resumeReading()
        }
    }

    private func begin(_ start: StartRequest) throws(WireError) {
        let token = ResumeToken.generate()
        let session = try SessionCore(
            start: start, tenant: tenant, now: context.clock(), exercises: context.exercises,
            tokenDigest: ResumeToken.digest(of: token))
        running = RunningSession(session)
        configure(for: start)
        context.live.insert(self, id: session.id, tokenDigest: session.tokenDigest ?? [], connected: true)
        context.metrics.sessionOpened()
        // `started` waits for the session's row to be durable (one group commit, milliseconds), so that from the
        // moment the client knows its id every node finds it: a watcher, a REST read, a resume after this node dies.
        // What the client sends meanwhile waits in the socket, in order.
        socket.pauseReading()
        let loop = socket.loop
        lastWrite = context.store(.create(session.newRecord), id: session.id, tenant: tenant, after: lastWrite) {
            [self] stored in
            loop.execute { [self] in assumeIsolated { $0.created(stored: stored, token: token) } }
        }
    }

    /// The session's create was written (or failed): `started`, and the client's next messages are read; or
    /// `storeUnavailable` and 1011, which says to start again (docs/protocol.md §3), and the session is dropped unstored.
    private func created(stored: Bool, token: String) {
        guard let running, !finished else { return }
        guard stored else {
            finished = true
            timer?.cancel()
            context.live.remove(running.core.id, holder: self)
            context.metrics.sessionClosed()
            tell(WireError(code: .storeUnavailable, message: "the session could not be stored; start again"))
            return socket.close(code: .internalError, reason: "session not stored")
        }
        output.removeAll(keepingCapacity: true)
        let window = context.limits.resumeWindow.components
        WireEncoder.encodeStarted(
            session: running.core.id.description, exercise: running.core.engine.exercise, resume: token,
            resumeSeconds: Double(window.seconds) + Double(window.attoseconds) / 1e18, into: &output)
        socket.sendText(utf8: output)
        socket.resumeReading()
    }

    private func configure(for start: StartRequest) {
        decoder.configure(for: start)
        snapshots = start.options.snapshots
    }

    // MARK: Resuming (docs/protocol.md §3.1)

    /// Starts carrying out a `resume`: the socket is not read until it is done, so frames the client sent after it
    /// wait in order.
    private func beginResume(_ request: ResumeRequest) {
        socket.pauseReading()
        let started = socket.loop.now()
        resuming = Task { await self.resume(request, started: started) }
    }

    private func resume(_ request: ResumeRequest, started: UInt64) async {
        do throws(WireError) {
            let taken = try await context.takeOver(request, tenant: tenant, for: self)
            adopt(taken.handover, heldUpTo: taken.heldUpTo)
            context.metrics.countResume(taken.source)
            context.metrics.observeResume(
                source: taken.source, seconds: Double(socket.loop.now() - started) / 1e9)
        } catch {
            context.metrics.countResume(error.code.rawValue)
            tell(error)
            finished = true
            for socket in arriving.sockets { socket.close(code: .goingAway, reason: "session not resumed") }
            if let id = SessionID(request.session) {
                for (node, _) in arriving.nodes { context.cluster.send(.moved(id, to: nil), to: node) }
            }
            arriving = ([], [])
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
        watchers = handover.watchers
        for socket in arriving.sockets { watchers.add(socket, session: core) }
        for (node, poses) in arriving.nodes {
            watchers.addRemote(node, poses: poses, session: core, cluster: context.cluster)
        }
        arriving = ([], [])
        lastWrite = handover.lastWrite
        configure(for: core.start)
        lastMessage = socket.loop.time
        output.removeAll(keepingCapacity: true)
        WireEncoder.encodeResumed(
            session: core.id.description, t: t, motionT: core.lastMotionTime, exercise: core.engine.exercise,
            into: &output)
        socket.sendText(utf8: output)
        context.live.insert(self, id: core.id, tokenDigest: core.tokenDigest ?? [], connected: !socketClosed)
        if socketClosed { return detach() }
        lastWrite = context.store(.connection(true), id: core.id, tenant: core.tenant, after: lastWrite)
        output.removeAll(keepingCapacity: true)
        WireEncoder.encodeConnection(connected: true, into: &output)
        watchers.send(output, replacing: nil)
        sendSnapshot(force: true)
    }

    /// Gives this actor's session to a connection that resumed it: cancels this actor's timers and closes its
    /// connection with 4001 if it is still open. A restore still in progress here finishes first.
    /// - Returns: The session, or nil when this actor no longer holds one (it ended, or moved on).
    /// Whether the session was stopped here (its summary may still be on its way to the store): it cannot be resumed.
    var wasStopped: Bool { finished && running != nil }

    func handOver() async -> Handover? {
        if let resuming { await resuming.value }
        guard let running, !finished else { return nil }
        finished = true
        self.running = nil
        timer?.cancel()
        expiry?.cancel()
        resumeTimer?.cancel()
        resumeTimer = nil
        let handover = Handover(core: running.core, watchers: watchers, lastWrite: lastWrite)
        watchers = SessionWatchers()
        if !socketClosed {
            socket.close(code: .takenOver, reason: "resumed on another connection")
        }
        return handover
    }

    private func process(_ pose: Pose) throws(WireError) {
        // Most poses bring no event: skip the uniqueness check that clearing an array costs.
        if !events.isEmpty { events.removeAll(keepingCapacity: true) }
        try running?.core.process(pose, into: &events)
        context.metrics.countFrames(1)
        for event in events {
            context.metrics.countEvent(event)
            output.removeAll(keepingCapacity: true)
            WireEncoder.encodeEvent(event, at: pose.timestamp, into: &output)
            send(output, replacing: nil)
        }
        sendSnapshot(force: false)
        watchers.offer(pose)
    }

    /// Sends the current snapshot to the client as its `snapshots` option asks (or always, `force`), and to the
    /// watchers after every pose whatever the client chose: a client that saves its bandwidth does not blind the
    /// clinician watching.
    private func sendSnapshot(force: Bool) {
        guard let running else { return }
        let watched = !watchers.isEmpty
        if !force, !watched, case .off = snapshots { return }
        let snapshot = running.core.currentSnapshot()
        var toClient = true
        if !force {
            switch snapshots {
            case .off: toClient = false
            case .every: break
            case .interval(let seconds):
                if let last = lastSnapshotTime, let now = snapshot.timestamp, now - last < seconds { toClient = false }
            }
        }
        guard toClient || watched else { return }
        output.removeAll(keepingCapacity: true)
        WireEncoder.encodeSnapshot(snapshot, cache: &snapshotCache, into: &output)
        if toClient {
            lastSnapshotTime = snapshot.timestamp
            socket.sendText(utf8: output, replacing: "snapshot")
        }
        watchers.send(output, replacing: "snapshot")
    }

    /// Sends to the client and every watcher; snapshots coalesce under backpressure, events never drop.
    private func send(_ bytes: [UInt8], replacing key: String?) {
        socket.sendText(utf8: bytes, replacing: key)
        watchers.send(bytes, replacing: key)
    }

    /// Answers a refused message and counts it toward ``LiveLimits/maxConsecutiveErrors``.
    private func refuse(_ error: WireError) {
        consecutiveErrors += 1
        tell(error)
        if consecutiveErrors >= context.limits.maxConsecutiveErrors {
            context.logger.log(.notice, "closing abusive connection", ["errors": "\(consecutiveErrors)"])
            closeSession(code: .policyViolation, reason: "too many invalid messages")
        }
    }

    /// Sends an `error` message about the current message (or one frame of its batch) to the client alone.
    private func tell(_ error: WireError, batchIndex: Int? = nil) {
        output.removeAll(keepingCapacity: true)
        WireEncoder.encodeError(error, frame: messageNumber, batchIndex: batchIndex, into: &output)
        socket.sendText(utf8: output)
    }

    // MARK: Watchers

    /// Adds read-only observers that receive this session's events and snapshots from now on.
    func addWatchers(_ sockets: [WebSocket]) async -> [WebSocket] {
        // The session is arriving (a resume, maybe from another node): the watchers join it with its handover,
        // before any frame of the resumed connection is read.
        if resuming != nil {
            arriving.sockets += sockets
            return []
        }
        // Handed over to another connection (or a resume here failed): the watchers look for it where it is now.
        guard let running else { return sockets }
        var news: String?
        if socketClosed && !finished {
            var bytes: [UInt8] = []
            WireEncoder.encodeConnection(connected: false, into: &bytes)
            news = String(decoding: bytes, as: UTF8.self)
        } else if let stoppedSummary {
            // Stopped, its summary on its way to the store: the watcher has it too, and the close that follows.
            news = String(decoding: stoppedSummary, as: UTF8.self)
        }
        for watcher in sockets {
            watchers.add(watcher, session: running.core)
            if let news { watcher.send(.text(news)) }
        }
        return []
    }

    func removeWatcher(_ watcher: WebSocket) { watchers.remove(watcher) }

    func addRemoteWatcher(node: String, poses: Bool) async -> Bool {
        if resuming != nil {
            arriving.nodes.append((node, poses))
            return true
        }
        guard let running else { return false }
        watchers.addRemote(node, poses: poses, session: running.core, cluster: context.cluster)
        return true
    }

    func removeRemoteWatcher(node: String) { watchers.removeRemote(node) }

    func stopRemotePoses(node: String) {
        for index in arriving.nodes.indices where arriving.nodes[index].node == node {
            arriving.nodes[index].poses = false
        }
        watchers.stopRemotePoses(node)
    }

    // MARK: Checkpoints, idle, ending

    private func scheduleTimer() {
        // Held strongly (a weak reference would slow every retain of the session); ending the session cancels it.
        timer = socket.loop.schedule(after: context.limits.checkpointInterval) { [self] in
            assumeIsolated { $0.tick() }
        }
    }

    private func tick() {
        guard !finished else { return }
        // The loop's clock, as every timeout of the connection: a test's manual clock closes it exactly.
        let silent = Duration.nanoseconds(Int64(socket.loop.time - lastMessage))
        if silent >= context.limits.idleTimeout {
            // A silent client may be a phone whose network froze: its session stays resumable like any other
            // whose connection ended (or is abandoned at once without a resume window).
            return socket.close(code: .goingAway, reason: "idle")
        }
        checkpoint()
        scheduleTimer()
    }

    /// Writes a checkpoint if frames came since the last one; the client is told once it is stored.
    private func checkpoint() {
        guard let running, running.core.needsCheckpoint else { return }
        let (summary, engineState) = running.core.takeCheckpoint()
        let (ends, t) = (SeriesEnds(summary), summary.lastTimestamp)
        let loop = socket.loop
        lastWrite = context.store(
            .checkpoint(summary, engineState: engineState), id: running.core.id, tenant: running.core.tenant,
            after: lastWrite
        ) { [self] stored in
            guard stored, let t else { return }
            loop.execute { [self] in assumeIsolated { $0.checkpointStored(at: t, series: ends) } }
        }
    }

    /// The checkpoint up to the pose at `t` is stored: the session lets go of the series samples it holds, and tells
    /// the client that its whole state up to that pose is durable (docs/protocol.md §3.1): it need keep only the frames
    /// after it.
    private func checkpointStored(at t: Double, series: SeriesEnds) {
        running?.core.releaseSeries(series)
        guard !finished, !socketClosed else { return }
        output.removeAll(keepingCapacity: true)
        WireEncoder.encodeCheckpoint(at: t, into: &output)
        socket.sendText(utf8: output)
    }

    /// Ends the session (if it started) as abandoned and closes the connection.
    private func closeSession(code: WebSocketCloseCode, reason: String) {
        if let running, !finished {
            finish(running.core, status: .abandoned, closeCode: code, reason: reason)
        } else {
            socket.close(code: code, reason: reason)
        }
    }

    private func connectionClosed(code: WebSocketCloseCode?) {
        socketClosed = true
        timer?.cancel()
        resumeTimer?.cancel()
        resumeTimer = nil
        guard let running, !finished else { return }
        if running.core.tokenDigest != nil && context.limits.resumeWindow > .zero {
            detach()
        } else {
            finish(running.core, status: .abandoned, closeCode: nil)
        }
    }

    /// The connection ended without `stop`: the session's state is made durable (a checkpoint) and it waits for a
    /// resume until its window passes; watchers learn that the client is gone.
    private func detach() {
        guard let running, !finished else { return }
        expiry = socket.loop.schedule(after: context.limits.resumeWindow) { [self] in
            assumeIsolated { $0.expire() }
        }
        checkpoint()
        lastWrite = context.store(
            .connection(false), id: running.core.id, tenant: running.core.tenant, after: lastWrite)
        output.removeAll(keepingCapacity: true)
        WireEncoder.encodeConnection(connected: false, into: &output)
        watchers.send(output, replacing: nil)
        context.live.setConnected(false, id: running.core.id, holder: self)
    }

    /// The resume window passed with no resume: the session is stored as abandoned.
    private func expire() {
        guard let running, !finished else { return }
        finish(running.core, status: .abandoned, closeCode: nil)
    }

    /// Stores the final summary; after `stop` also sends it and closes with 1000 (docs/protocol.md §3).
    private func finish(
        _ session: SessionCore, status: SessionStatus, closeCode: WebSocketCloseCode?, reason: String = ""
    ) {
        finished = true
        timer?.cancel()
        expiry?.cancel()
        context.metrics.sessionClosed()
        let endedAt = context.clock()
        let summary = session.engine.summary
        var summaryMessage: [UInt8]?
        if status == .finished {
            output.removeAll(keepingCapacity: true)
            WireEncoder.encodeSummary(
                summary, metadata: session.metadata(status: status, endedAt: endedAt), includeType: true,
                into: &output)
            send(output, replacing: nil)
            summaryMessage = output
            stoppedSummary = output
        }
        // After `stop` the connection closes once the summary is stored (docs/protocol.md §3: answer, store, close), so
        // a client that saw the close finds the session finished over REST.
        let closeAfterStoring = status == .finished ? closeCode : nil
        if let closeCode, closeAfterStoring == nil { socket.close(code: closeCode, reason: reason) }
        // Watchers of a stopped session are closed once it is stored too: their 1000 says what the client's says.
        // Until then it stays this node's, so that a watcher arriving meanwhile joins it (and gets the summary and
        // the same close), and a resume is told at once that it was stopped.
        if closeAfterStoring == nil {
            watchers.closeAll(status: status, summary: summaryMessage)
            context.live.remove(session.id, holder: self)
        }
        let (socket, loop, ending, id) = (socket, socket.loop, summaryMessage, session.id)
        lastWrite = context.store(
            .finish(summary, status: status, endedAt: endedAt), id: session.id, tenant: session.tenant, after: lastWrite
        ) { [self] stored in
            guard let closeAfterStoring else { return }
            loop.execute { [self] in
                assumeIsolated { session in
                    session.context.live.remove(id, holder: session)
                    session.watchers.closeAll(status: status, summary: ending, stored: stored)
                }
            }
            guard stored else {
                // docs/protocol.md §3: the client is told, never left believing its session was stored.
                var bytes: [UInt8] = []
                WireEncoder.encodeError(
                    WireError(code: .storeUnavailable, message: "the summary could not be stored"), frame: nil,
                    into: &bytes)
                socket.send(.text(String(decoding: bytes, as: UTF8.self)))
                return socket.close(code: .internalError, reason: "summary not stored")
            }
            socket.close(code: closeAfterStoring, reason: reason)
        }
    }
}

/// A session on its way from one ``LiveSession`` to the next (docs/protocol.md §3.1): the session, its watchers, and its
/// last store write, which the next one's writes follow.
struct Handover: Sendable {
    var core: SessionCore
    var watchers: SessionWatchers
    var lastWrite: Task<Void, Never>?
}

/// The session a ``LiveSession`` runs, changed in place through the reference.
private final class RunningSession {
    var core: SessionCore
    init(_ core: SessionCore) { self.core = core }
}

/// A token bucket on a monotonic clock: `rate` tokens per second, holding at most `burst`, that may go into debt.
struct TokenBucket: Sendable {
    let rate: Double
    let burst: Double
    private(set) var tokens: Double
    private var last: UInt64?

    init(rate: Double, burst: Double) {
        self.rate = rate
        self.burst = burst
        tokens = burst
    }

    /// Takes `count` tokens at `now` (nanoseconds), into debt if there are not enough.
    /// - Returns: Whether the bucket is still within budget (not in debt).
    mutating func spend(_ count: Double, now: UInt64) -> Bool {
        if let last, now > last { tokens = min(burst, tokens + Double(now - last) / 1e9 * rate) }
        last = now
        tokens -= count
        return tokens >= 0
    }

    /// How long until the bucket holds `level` tokens again (zero if it does).
    func time(toReach level: Double) -> Duration {
        guard tokens < level else { return .zero }
        return .nanoseconds(Int64(((level - tokens) / rate * 1e9).rounded(.up)))
    }
}
