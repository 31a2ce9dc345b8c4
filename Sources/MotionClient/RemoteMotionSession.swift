import Dispatch
public import MotionCore
public import MotionWire
import Synchronization

#if canImport(Observation)
public import Observation
#endif

/// A ``MotionSession`` whose analysis runs on a motion-server: the same surface and types, so app code compiles
/// against either; only the initialiser differs.
///
/// Poses given to ``process(_:)`` are queued and sent at once (binary frames when the server offers them); the
/// server's events arrive through ``events()`` and its snapshots in ``snapshot``. A dropped connection is opened
/// again and the session resumed, with the poses since the last checkpoint sent again (docs/protocol.md §3.1): the
/// summary is the one a single connection would give.
///
/// The connection holds the session until ``stop()`` answers or the session fails: end every session with `stop()`.
///
/// The connections are opened by the ``MotionTransport`` the session is given: the app's own on Apple platforms
/// (docs/motion-client.md), `MotionClientLinux.EventLoopTransport` on Linux.
///
/// ```swift
/// let session = try RemoteMotionSession(server: "wss://motion.example:443", transport: transport,
///                                       exercise: .elbowFlexion, side: .right, token: "secret")
/// Task { for await event in session.events() { print(event) } }
/// try await session.run(with: camera.poses)
/// let summary = try await session.stop()
/// ```
public final class RemoteMotionSession: Sendable {
    /// Where the session runs.
    public let server: ServerAddress
    /// The exercise as asked for (the server applies the options' prescription to it).
    public let exercise: Exercise
    /// What opens the connections.
    let transport: any MotionTransport
    let start: StartRequest
    let token: String?
    let configuration: RemoteSessionConfiguration
    let state: Mutex<ClientState>
    let listeners = Mutex(Listeners())
    let published: Mutex<MotionSnapshot>
    #if canImport(Observation)
    let registrar = ObservationRegistrar()
    #endif

    /// Creates a session and starts connecting in the background.
    /// - Parameters:
    ///   - server: `ws://host:port` or `wss://host:port`, optionally with the path (default `/v1/stream`).
    ///   - transport: What opens the WebSocket connections.
    ///   - exercise: The exercise (its id is sent; the server's catalog defines it).
    ///   - side: The working side (required for one-sided exercises).
    ///   - options: The prescription, baseline reps and snapshot policy sent in `start`.
    ///   - token: A bearer token, when the server requires one (docs/protocol.md §6).
    ///   - configuration: Limits, timers, TLS and queue size.
    /// - Throws: ``RemoteSessionError/invalidServer(_:)`` for a URL that is not `ws://` or `wss://`.
    public init(
        server: String, transport: any MotionTransport, exercise: Exercise, side: BodySide? = nil,
        options: StartRequest.Options = .init(), token: String? = nil,
        configuration: RemoteSessionConfiguration = .init()
    ) throws(RemoteSessionError) {
        self.server = try ServerAddress(server)
        self.transport = transport
        self.exercise = exercise
        self.token = token
        self.configuration = configuration
        start = StartRequest(
            exercise: exercise.id, side: side, subject: configuration.subject, mirrored: configuration.mirrored,
            options: options)
        state = Mutex(ClientState(capacity: configuration.maxQueuedEntries))
        published = Mutex(MotionSnapshot(isRunning: true))
        let driver = Task { [weak self] in
            guard let self else { return }
            await self.drive()
        }
        state.withLock { $0.driver = driver }
    }

    deinit {
        let (connection, driver) = state.withLock { ($0.connection, $0.driver) }
        driver?.cancel()
        connection?.close(code: CloseCode.goingAway, reason: "")
        finishListeners()
    }

    // MARK: The MotionSession surface

    /// Everything a screen needs, as of the last snapshot the server sent; observable where the Observation module
    /// exists (on the main actor with ``RemoteSessionConfiguration/updatesSnapshotOnMainActor``).
    public var snapshot: MotionSnapshot {
        #if canImport(Observation)
        registrar.access(self, keyPath: \.snapshot)
        #endif
        return published.withLock { $0 }
    }

    /// Queues one pose for the server and returns at once; its events come through ``events()`` and
    /// ``snapshot``.
    /// - Parameter pose: The pose, in image pixels (y down) with anatomical sides.
    /// - Returns: Always empty: the server's answers arrive later (kept for source compatibility with
    ///   ``MotionSession/process(_:)``).
    /// - Throws: `PoseError`, as ``MotionSession/process(_:)`` does: `notRunning` once the session stopped or
    ///   failed (``stop()`` says why it failed), `nonIncreasingTime`, `nonFinite`.
    @discardableResult
    public func process(_ pose: Pose) throws(PoseError) -> [MotionEvent] {
        guard pose.isFinite, pose.timestamp.isFinite else { throw .nonFinite }
        try enqueue(.pose(pose), time: pose.timestamp)
        return []
    }

    /// Queues the phone's motion-sensor samples (docs/protocol.md §3.3), on the poses' clock.
    /// - Parameter samples: Accelerometer (and gyroscope) samples in increasing `t`.
    /// - Throws: `PoseError`: `notRunning` once the session stopped or failed, `nonFinite` for a number that is not.
    public func process(motion samples: [MotionSample]) throws(PoseError) {
        guard !samples.isEmpty else { return }
        for sample in samples {
            let values = [sample.t, sample.acceleration.x, sample.acceleration.y, sample.acceleration.z]
            guard values.allSatisfy(\.isFinite) else { throw .nonFinite }
        }
        try enqueue(.motion(samples), time: nil)
    }

    /// A new stream of this session's events; many may listen at once. A stream ends when its listener stops
    /// iterating, or when the session stops or fails.
    public func events() -> AsyncStream<MotionEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: MotionEvent.self, bufferingPolicy: .unbounded)
        let id: UInt64? = state.withLock { state in
            guard !state.isOver else { return nil }
            return listeners.withLock { $0.add(events: continuation) }
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in _ = self?.listeners.withLock { $0.events[id] = nil } }
        return stream
    }

    /// A new stream of what happens to the connection (drops, resumes, dropped frames, refusals).
    public func connectionEvents() -> AsyncStream<ConnectionEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: ConnectionEvent.self, bufferingPolicy: .unbounded)
        let id: UInt64? = state.withLock { state in
            guard !state.isOver else { return nil }
            return listeners.withLock { $0.add(connection: continuation) }
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in _ = self?.listeners.withLock { $0.connection[id] = nil } }
        return stream
    }

    /// Clears best, counts and the rep in progress on the server (`reset`); the exercise stays.
    public func reset() { try? enqueue(.reset, time: nil) }

    /// Starts (or restarts) the baseline measurement on the server (`baseline`).
    public func startBaseline() { try? enqueue(.baseline, time: nil) }

    /// Reads poses from `provider` in the background until it ends or ``stop()`` is called. Replaces a provider
    /// started before; refused poses are skipped.
    /// - Parameter provider: The source of poses.
    public func start(with provider: some PoseProvider) {
        let reader = Task { [weak self] in
            guard let self else { return }
            try? await self.read(from: provider)
        }
        let previous = state.withLock { state in
            defer { state.reader = reader }
            return state.reader
        }
        previous?.cancel()
    }

    /// Reads poses from `provider` until it ends, the calling task is cancelled, or the session stops.
    /// - Parameter provider: The source of poses.
    /// - Throws: What the provider throws.
    public func run(with provider: some PoseProvider) async throws {
        try await read(from: provider)
    }

    private func read(from provider: some PoseProvider) async throws {
        try await provider.forEachPose { pose in
            do throws(PoseError) {
                try process(pose)
            } catch {
                return error != .notRunning
            }
            return true
        }
    }

    /// Waits until the server has started (or resumed) the session.
    /// - Throws: ``RemoteSessionError`` when it failed or stopped first.
    public func connect() async throws(RemoteSessionError) {
        let result: Result<Void, RemoteSessionError> = await withCheckedContinuation { continuation in
            let ready: Result<Void, RemoteSessionError>? = state.withLock { state in
                if let failure = state.failure { return .failure(failure) }
                if state.sessionID != nil { return .success(()) }
                state.readyWaiters.append(continuation)
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
        try result.get()
    }

    /// Sends what is queued, then `stop`, and waits for the stored summary; every event stream ends.
    ///
    /// The server sends the summary, stores it, then closes with 1000: only that close makes the summary stored, so
    /// that a REST read after this returns finds it. Any other close after the summary (1011 when the store failed)
    /// throws ``RemoteSessionError/closed(code:reason:)``.
    ///
    /// The wire carries no value series: the summary's `series` is empty; its first and last timestamps are those
    /// of the first and last pose sent.
    /// - Returns: The summary the server stored.
    /// - Throws: ``RemoteSessionError`` when the session failed, or the summary did not come in time.
    public func stop() async throws(RemoteSessionError) -> SessionSummary {
        let reader = state.withLock { state in
            defer { state.reader = nil }
            return state.reader
        }
        reader?.cancel()
        let timeout = configuration.stopTimeout
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            if !Task.isCancelled { self?.fail(.timedOut) }
        }
        defer { timer.cancel() }
        let result: Result<SessionSummary, RemoteSessionError> = await withCheckedContinuation { continuation in
            let now: Result<SessionSummary, RemoteSessionError>? = state.withLock { state in
                if let summary = state.summary { return .success(summary) }
                if let failure = state.failure { return .failure(failure) }
                state.stopWaiters.append(continuation)
                if !state.stopRequested {
                    state.stopRequested = true
                    flush(&state)
                }
                return nil
            }
            if let now { continuation.resume(returning: now) }
        }
        return try result.get()
    }

    // MARK: Queueing

    /// Queues one entry; a failed session takes no more (its failure is ``stop()``'s to tell).
    private func enqueue(_ item: Outbox.Item, time: Double?) throws(PoseError) {
        let dropped: (count: Int, through: Double?) = try state.withLock {
            (state) throws(PoseError) -> (Int, Double?) in
            guard state.failure == nil, !state.stopRequested, state.summary == nil else { throw .notRunning }
            if let time, let previous = state.outbox.lastPoseTime, time <= previous {
                throw .nonIncreasingTime(previous: previous, received: time)
            }
            if let time {
                state.firstPoseTime = state.firstPoseTime ?? time
            }
            let dropped = state.outbox.append(item)
            flush(&state)
            return dropped
        }
        if dropped.count > 0 { tell(.framesDropped(count: dropped.count, through: dropped.through)) }
    }
}

#if canImport(Observation)
extension RemoteMotionSession: Observable {}
#endif
