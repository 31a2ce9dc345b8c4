import CNetShim
import Synchronization

/// A fixed set of ``EventLoop``s, one thread each (default: one per core).
public final class EventLoopGroup: Sendable {
    /// The loops.
    public let loops: [EventLoop]
    private let cursor = Atomic<Int>(0)

    /// Creates and starts the loops.
    /// - Parameters:
    ///   - count: How many loops; at least 1.
    ///   - name: The threads' name, numbered (`event-loop-0`, …; at most 15 bytes in all are kept), so profilers
    ///     tell one program's loops from another's.
    ///   - idleWait: How the loops wait when nothing is ready (default: they block in epoll).
    ///   - clock: What their timers run by (default: the machine's monotonic clock; a ``ManualClock`` for tests).
    /// - Throws: ``SystemError`` when epoll or eventfd cannot be created.
    public init(
        loops count: Int = System.coreCount, name: String = "event-loop", idleWait: IdleWait = .block,
        clock: LoopClock = .monotonic
    ) throws(SystemError) {
        var loops: [EventLoop] = []
        for index in 0..<max(1, count) {
            loops.append(try EventLoop(index: index, name: "\(name)-\(index)", idleWait: idleWait, clock: clock))
        }
        self.loops = loops
        for loop in loops { loop.start() }
    }

    /// The next loop, round robin.
    public func next() -> EventLoop {
        loops[cursor.wrappingAdd(1, ordering: .relaxed).oldValue % loops.count]
    }

    /// Stops every loop and waits for their threads to finish.
    public func shutdown() {
        for loop in loops { loop.stop() }
        for loop in loops { loop.waitUntilStopped() }
    }
}

/// Facts about the machine.
public enum System {
    /// The number of online cores.
    public static var coreCount: Int { max(1, Int(cnet_core_count())) }
}
