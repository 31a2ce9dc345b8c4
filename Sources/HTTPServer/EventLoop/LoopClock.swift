import Dispatch
import Synchronization

/// The time an ``EventLoop`` keeps: what its timers are due by, what ``EventLoop/time`` and ``EventLoop/now()`` read,
/// and so what every timeout of its connections is measured in.
public enum LoopClock: Sendable {
    /// The machine's monotonic clock.
    case monotonic
    /// A clock that stands still until a test moves it (``ManualClock/advance(by:)``).
    case manual(ManualClock)
}

/// A clock that moves only when told to: timeout, keep-alive and write-stall tests run against real sockets in no
/// time, and see exactly the deadline, not a sleep that is usually long enough.
///
/// Loops created with it (``EventLoopGroup/init(loops:name:idleWait:clock:)``) wait in epoll for I/O and work as
/// usual but fire a timer only once the clock has passed its deadline.
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

    private let nanoseconds: Atomic<UInt64>
    private let loops = Locked<[Attached]>([])

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
    /// then the clock moves, then the timers run.
    /// - Parameter duration: How far; negative durations count as zero.
    public func advance(by duration: Duration) async {
        let loops = attachedLoops()
        for loop in loops { await Self.roundTrip(loop) }
        nanoseconds.add(EventLoop.nanoseconds(duration), ordering: .acquiringAndReleasing)
        for loop in loops { await Self.roundTrip(loop, running: { loop.runDueTimers() }) }
    }

    /// ``advance(by:)`` for a thread that may block (a test's own client thread, not the concurrency pool's).
    /// - Parameter duration: How far; negative durations count as zero.
    public func advanceBlocking(by duration: Duration) {
        let loops = attachedLoops()
        for loop in loops { Self.blockingRoundTrip(loop) }
        nanoseconds.add(EventLoop.nanoseconds(duration), ordering: .acquiringAndReleasing)
        for loop in loops { Self.blockingRoundTrip(loop, running: { loop.runDueTimers() }) }
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
