import Basics
import Dispatch
import Synchronization

/// The time an ``EventLoop`` keeps: what its timers are due by, what ``EventLoop/time`` and ``EventLoop/now()`` read,
/// and so what every timeout of its connections is measured in.
public enum LoopClock: Sendable {
    /// The machine's monotonic clock.
    case monotonic
    /// A clock that stands still until a test moves it (``ManualClock/advance(by:)``).
    case manual(ManualClock)

    /// The clock's reading, in nanoseconds (``EventLoop/now()`` of a loop on it). Safe from any thread.
    public var now: UInt64 {
        switch self {
        case .monotonic: EventLoop.now()
        case .manual(let clock): clock.now
        }
    }

    /// The reading `duration` from now, in nanoseconds (negative durations count as zero): a deadline for
    /// ``sleep(until:)``.
    public func deadline(after duration: Duration) -> UInt64 { now + EventLoop.nanoseconds(duration) }

    /// Suspends the calling task until the clock reads `deadline` or later: at once when it already does. Work that
    /// waits in a task rather than in a loop's timer (a batch gathering for a window) keeps the same time as the
    /// loops: compute the deadline from ``now`` when the wait begins, and a test's ``ManualClock/advance(by:)``
    /// ends it exactly there.
    /// - Parameter deadline: A reading of this clock, in nanoseconds.
    /// - Throws: `CancellationError` when the task is cancelled first.
    public func sleep(until deadline: UInt64) async throws {
        switch self {
        case .monotonic:
            let now = EventLoop.now()
            guard deadline > now else { return try Task.checkCancellation() }
            try await Task.sleep(for: .nanoseconds(Int64(clamping: deadline - now)))
        case .manual(let clock):
            try await clock.sleep(until: deadline)
        }
    }
}

/// A clock that moves only when told to: timeout, keep-alive and write-stall tests run against real sockets in no
/// time, and see exactly the deadline, not a sleep that is usually long enough.
///
/// Loops created with it (``EventLoopGroup/init(loops:name:idleWait:clock:)``) wait in epoll for I/O and work as
/// usual but fire a timer only once the clock has passed its deadline; tasks waiting on it
/// (``LoopClock/sleep(until:)``) resume only then too.
///
/// ```swift
/// let clock = ManualClock()
/// let group = try EventLoopGroup(loops: 1, clock: .manual(clock))
/// group.next().execute { _ = group.next().schedule(after: .seconds(60)) { print("fired") } }
/// await clock.advance(by: .seconds(60))  // "fired", on the loop, before this returns
/// ```
public final class ManualClock: Sendable {
    private struct Attached: Sendable {
        weak var loop: EventLoop?
    }

    private struct Sleeper {
        var id: UInt64
        var deadline: UInt64
        var continuation: CheckedContinuation<Void, any Error>
    }

    private let nanoseconds: Atomic<UInt64>
    private let loops = Locked<[Attached]>([])
    private let sleepers = Locked<(next: UInt64, waiting: [Sleeper])>((0, []))

    /// A clock standing at an arbitrary starting time (not zero, so differences with earlier readings never wrap).
    public init() {
        nanoseconds = Atomic(1_000_000_000_000)
    }

    /// The clock's reading, in nanoseconds. Safe from any thread.
    public var now: UInt64 { nanoseconds.load(ordering: .acquiring) }

    /// Moves the clock forward and waits until every loop on it has run the timers that came due, and the work those
    /// timers handed the loop at once. Safe from any thread but a loop's own.
    ///
    /// Each loop first finishes what is already ready (bytes a test has just sent are read before the clock moves),
    /// then the clock moves, then the timers run, then the tasks whose ``LoopClock/sleep(until:)`` came due are
    /// resumed (in deadline order; what they do next is theirs, not waited for).
    /// - Parameter duration: How far; negative durations count as zero.
    public func advance(by duration: Duration) async {
        let loops = attachedLoops()
        for loop in loops { await Self.roundTrip(loop) }
        nanoseconds.add(EventLoop.nanoseconds(duration), ordering: .acquiringAndReleasing)
        for loop in loops { await Self.roundTrip(loop, running: { loop.runDueTimers() }) }
        wakeDueSleepers()
    }

    /// ``advance(by:)`` for a thread that may block (a test's own client thread, not the concurrency pool's).
    /// - Parameter duration: How far; negative durations count as zero.
    public func advanceBlocking(by duration: Duration) {
        let loops = attachedLoops()
        for loop in loops { Self.blockingRoundTrip(loop) }
        nanoseconds.add(EventLoop.nanoseconds(duration), ordering: .acquiringAndReleasing)
        for loop in loops { Self.blockingRoundTrip(loop, running: { loop.runDueTimers() }) }
        wakeDueSleepers()
    }

    /// ``LoopClock/sleep(until:)`` on this clock: suspends until an advance takes the clock to `deadline`.
    func sleep(until deadline: UInt64) async throws {
        let id = sleepers.withLock { state in
            state.next += 1
            return state.next
        }
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                // Read under the lock, as `wakeDueSleepers` takes it after the clock moved: a sleeper is either
                // registered before it looks, or sees the new reading itself.
                let ready = sleepers.withLock { state -> Result<Void, any Error>? in
                    if Task.isCancelled { return .failure(CancellationError()) }
                    if now >= deadline { return .success(()) }
                    state.waiting.append(Sleeper(id: id, deadline: deadline, continuation: continuation))
                    return nil
                }
                if let ready { continuation.resume(with: ready) }
            }
        } onCancel: {
            let cancelled = sleepers.withLock { state -> Sleeper? in
                guard let index = state.waiting.firstIndex(where: { $0.id == id }) else { return nil }
                return state.waiting.remove(at: index)
            }
            cancelled?.continuation.resume(throwing: CancellationError())
        }
    }

    private func wakeDueSleepers() {
        let due = sleepers.withLock { state in
            let reading = self.now
            let due = state.waiting.filter { $0.deadline <= reading }
            state.waiting.removeAll { $0.deadline <= reading }
            return due
        }
        for sleeper in due.sorted(by: { ($0.deadline, $0.id) < ($1.deadline, $1.id) }) { sleeper.continuation.resume() }
    }

    private func attachedLoops() -> [EventLoop] {
        loops.withLock { $0.compactMap(\.loop) }
    }

    /// Runs `work` on `loop`, then waits for the work it handed the loop (e.g. a connection closing).
    private static func roundTrip(_ loop: EventLoop, running work: @escaping @Sendable () -> Void = {}) async {
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.execute {
                work()
                loop.execute { done.resume() }
            }
        }
    }

    private static func blockingRoundTrip(_ loop: EventLoop, running work: @escaping @Sendable () -> Void = {}) {
        precondition(!loop.inEventLoop, "a loop cannot wait for itself")
        let done = DispatchSemaphore(value: 0)
        loop.execute {
            work()
            loop.execute { done.signal() }
        }
        done.wait()
    }

    func attach(_ loop: EventLoop) {
        loops.withLock { loops in
            loops.removeAll { $0.loop == nil }
            loops.append(Attached(loop: loop))
        }
    }
}
