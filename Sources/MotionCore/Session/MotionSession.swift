import Synchronization

/// One analysis session for one exercise, safe to share between tasks.
///
/// Feed it poses with ``process(_:)`` (or let it read a ``PoseProvider`` with ``start(with:)`` /
/// ``run(with:)``), read ``snapshot`` for the screen and listen to ``events()``.
///
/// ```swift
/// let session = try MotionSession(exercise: .elbowFlexion, side: .right)
/// Task { for await event in session.events() { print(event) } }
/// try await session.run(with: camera.poses)   // until the camera ends or the task is cancelled
/// print(session.snapshot.repCount)
/// ```
public final class MotionSession: Sendable {
    private struct State: Sendable {
        var engine: MotionEngine
        var isRunning = true
        var reader: Task<Void, Never>?
    }

    private struct Listeners: Sendable {
        var next: UInt64 = 0
        var continuations: [UInt64: AsyncStream<MotionEvent>.Continuation] = [:]
    }

    // Lock order: `state`, then `listeners`. Listener termination handlers take only `listeners`.
    private let state: Mutex<State>
    private let listeners = Mutex(Listeners())

    /// Creates a session.
    /// - Parameter configuration: The exercise, side and options.
    /// - Throws: ``SessionError`` when the configuration is unusable.
    public init(configuration: SessionConfiguration) throws(SessionError) {
        state = Mutex(State(engine: try MotionEngine(configuration: configuration)))
    }

    /// Creates a session with default options.
    /// - Parameters:
    ///   - exercise: The exercise.
    ///   - side: The working side (required for one-sided exercises).
    /// - Throws: ``SessionError`` when a one-sided exercise has no side or the exercise is unusable.
    public convenience init(exercise: Exercise, side: BodySide? = nil) throws(SessionError) {
        try self.init(configuration: SessionConfiguration(exercise: exercise, side: side))
    }

    deinit {
        state.withLock { $0.reader?.cancel() }
        finishListeners()
    }

    /// The exercise, with the configuration's overrides applied.
    public var exercise: Exercise { state.withLock { $0.engine.exercise } }

    /// Analyses one pose, returns its events and delivers them to every listener, in order.
    /// - Parameter pose: The pose, in image pixels with anatomical sides.
    /// - Returns: The events this pose caused (usually none).
    /// - Throws: ``PoseError`` when the pose is refused; the session is then unchanged.
    @discardableResult
    public func process(_ pose: Pose) throws(PoseError) -> [MotionEvent] {
        try state.withLock { (state) throws(PoseError) -> [MotionEvent] in
            guard state.isRunning else { throw PoseError.notRunning }
            let events = try state.engine.process(pose)
            if !events.isEmpty { deliver(events) }
            return events
        }
    }

    /// Everything a screen needs, as of the last processed pose.
    public var snapshot: MotionSnapshot { state.withLock { $0.engine.snapshot(isRunning: $0.isRunning) } }

    /// What is stored for the session, as of the last processed pose.
    public var summary: SessionSummary { state.withLock { $0.engine.summary } }

    /// A new stream of this session's events; many may listen at once. A stream ends when its listener stops
    /// iterating, or when the session stops.
    public func events() -> AsyncStream<MotionEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: MotionEvent.self, bufferingPolicy: .unbounded)
        // Registered under the state lock, so a concurrent stop() either sees this listener or refuses it.
        let id: UInt64? = state.withLock { state in
            guard state.isRunning else { return nil }
            return listeners.withLock { listeners in
                defer { listeners.next += 1 }
                listeners.continuations[listeners.next] = continuation
                return listeners.next
            }
        }
        guard let id else {
            continuation.finish()
            return stream
        }
        continuation.onTermination = { [weak self] _ in
            _ = self?.listeners.withLock { $0.continuations.removeValue(forKey: id) }
        }
        return stream
    }

    /// Clears best, counts and the rep in progress; the exercise stays (see ``MotionEngine/reset()``).
    public func reset() { state.withLock { $0.engine.reset() } }

    /// Starts (or restarts) the baseline measurement.
    public func startBaseline() { state.withLock { $0.engine.startBaseline() } }

    /// Reads poses from `provider` in the background until it ends or ``stop()`` is called.
    ///
    /// Replaces a provider started before. Refused poses (see ``PoseError``) are skipped.
    /// - Parameter provider: The source of poses.
    public func start(with provider: some PoseProvider) {
        let reader = Task { [weak self] in
            guard let self else { return }
            try? await self.read(from: provider)
        }
        let previous = state.withLock { state in
            state.isRunning = true
            defer { state.reader = reader }
            return state.reader
        }
        previous?.cancel()
    }

    /// Reads poses from `provider` until it ends, the calling task is cancelled, or the session stops.
    ///
    /// Refused poses (see ``PoseError``) are skipped.
    /// - Parameter provider: The source of poses.
    /// - Throws: What the provider throws.
    public func run(with provider: some PoseProvider) async throws {
        state.withLock { $0.isRunning = true }
        try await read(from: provider)
    }

    /// Processes the provider's poses until it ends, the task is cancelled or the session stops.
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

    /// Stops the session: providers stop being read, poses are refused, a hold under way ends (its `holdEnded`
    /// delivered, docs/protocol.md §5.4), and every event stream ends.
    public func stop() {
        let reader = state.withLock { state in
            if state.isRunning {
                let events = state.engine.endHold()
                if !events.isEmpty { deliver(events) }
            }
            state.isRunning = false
            defer { state.reader = nil }
            return state.reader
        }
        reader?.cancel()
        finishListeners()
    }

    private func deliver(_ events: [MotionEvent]) {
        listeners.withLock { listeners in
            for continuation in listeners.continuations.values {
                for event in events { continuation.yield(event) }
            }
        }
    }

    private func finishListeners() {
        let continuations = listeners.withLock { listeners in
            defer { listeners.continuations.removeAll() }
            return Array(listeners.continuations.values)
        }
        for continuation in continuations { continuation.finish() }
    }
}
