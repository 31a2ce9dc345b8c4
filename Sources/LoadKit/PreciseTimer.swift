import Glibc

/// A CLOCK_MONOTONIC timerfd, for sub-millisecond deadlines (the event loop's own timers round to 1 ms). Glibc's
/// Swift module does not export <sys/timerfd.h>, so the two calls are looked up with dlsym.
public enum PreciseTimer {
    private typealias Create = @convention(c) (Int32, Int32) -> Int32
    private typealias SetTime =
        @convention(c) (Int32, Int32, UnsafePointer<itimerspec>?, UnsafeMutablePointer<itimerspec>?) -> Int32

    private static let functions: (create: Create, setTime: SetTime)? = {
        guard let handle = dlopen(nil, RTLD_NOW), let create = dlsym(handle, "timerfd_create"),
            let setTime = dlsym(handle, "timerfd_settime")
        else { return nil }
        return (unsafeBitCast(create, to: Create.self), unsafeBitCast(setTime, to: SetTime.self))
    }()

    /// A new non-blocking, close-on-exec timerfd, or nil when the system has none.
    public static func make() -> Int32? {
        guard let functions else { return nil }
        let fd = functions.create(CLOCK_MONOTONIC, Int32(O_NONBLOCK | O_CLOEXEC))  // TFD_NONBLOCK | TFD_CLOEXEC
        return fd >= 0 ? fd : nil
    }

    /// Arms `fd` to fire once at a monotonic instant.
    /// - Parameters:
    ///   - fd: A descriptor from ``make()``.
    ///   - deadline: `CLOCK_MONOTONIC` nanoseconds (the clock of `EventLoop.now()`).
    public static func set(_ fd: Int32, at deadline: UInt64) {
        guard let functions else { return }
        var spec = itimerspec()
        spec.it_value.tv_sec = Int(deadline / 1_000_000_000)
        spec.it_value.tv_nsec = Int(max(1, deadline % 1_000_000_000))
        _ = functions.setTime(fd, 1, &spec, nil)  // TFD_TIMER_ABSTIME
    }

    /// Disarms `fd`.
    /// - Parameter fd: A descriptor from ``make()``.
    public static func disarm(_ fd: Int32) {
        guard let functions else { return }
        var spec = itimerspec()
        _ = functions.setTime(fd, 0, &spec, nil)
    }
}
