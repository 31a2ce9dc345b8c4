import CNetShim
import Glibc
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

/// Facts about the machine and the process.
public enum System {
    /// The number of online cores.
    public static var coreCount: Int { max(1, Int(cnet_core_count())) }

    /// The file descriptors the process may open (the soft `RLIMIT_NOFILE`); nil when unlimited or unknown.
    public static var openFileLimit: Int? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0, limit.rlim_cur != rlim_t.max else { return nil }
        return Int(clamping: limit.rlim_cur)
    }

    /// Raises the soft `RLIMIT_NOFILE` to the hard limit (systemd's default soft limit is 1,024, far below what a
    /// server of thousands of connections needs; the hard limit is the operator's to set).
    /// - Returns: The soft limit now in force (nil when unlimited or unknown).
    @discardableResult
    public static func raiseOpenFileLimit() -> Int? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        if limit.rlim_cur < limit.rlim_max {
            limit.rlim_cur = limit.rlim_max
            _ = setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        }
        return openFileLimit
    }

    /// How many connections `limit` file descriptors carry: the limit less a reserve for everything else the process
    /// opens (the store's files and connections, the loops, logs, static files), a sixteenth and at least 64.
    public static func connections(forOpenFileLimit limit: Int) -> Int {
        max(1, limit - max(64, limit / 16))
    }
}
