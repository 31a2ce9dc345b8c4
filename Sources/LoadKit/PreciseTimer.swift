import CNetShim

/// A CLOCK_MONOTONIC timerfd, for sub-millisecond deadlines (the event loop's own timers round to 1 ms). Glibc's
/// Swift module does not export <sys/timerfd.h>; CNetShim wraps its two calls.
public enum PreciseTimer {
    /// A new non-blocking, close-on-exec timerfd, or nil when none can be made.
    public static func make() -> Int32? {
        let fd = cnet_timerfd_create()
        return fd >= 0 ? fd : nil
    }

    /// Arms `fd` to fire once at a monotonic instant.
    /// - Parameters:
    ///   - fd: A descriptor from ``make()``.
    ///   - deadline: `CLOCK_MONOTONIC` nanoseconds (the clock of `EventLoop.now()`).
    public static func set(_ fd: Int32, at deadline: UInt64) {
        _ = cnet_timerfd_arm(fd, deadline)
    }

    /// Disarms `fd`.
    /// - Parameter fd: A descriptor from ``make()``.
    public static func disarm(_ fd: Int32) {
        _ = cnet_timerfd_disarm(fd)
    }
}
