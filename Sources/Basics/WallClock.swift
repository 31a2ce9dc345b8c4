import Glibc

/// The system's real-time clock (`CLOCK_REALTIME`): Unix time, for dates and timestamps. It jumps when the clock is
/// set, so durations and deadlines are measured on a monotonic clock instead.
public enum WallClock {
    /// Whole seconds since 1970-01-01T00:00:00Z.
    public static func seconds() -> Int { read().tv_sec }

    /// Whole milliseconds since 1970-01-01T00:00:00Z.
    public static func milliseconds() -> Int64 {
        let now = read()
        return Int64(now.tv_sec) * 1000 + Int64(now.tv_nsec) / 1_000_000
    }

    private static func read() -> timespec {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        return now
    }
}
