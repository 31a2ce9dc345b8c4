import Glibc

/// The system's monotonic clock (`CLOCK_MONOTONIC`): it never jumps, so durations and deadlines are measured on it.
/// Its zero is arbitrary (the boot); only differences mean anything.
public enum MonotonicClock {
    /// Nanoseconds since an arbitrary start.
    public static func nanoseconds() -> UInt64 {
        var now = timespec()
        clock_gettime(CLOCK_MONOTONIC, &now)
        return UInt64(now.tv_sec) &* 1_000_000_000 &+ UInt64(now.tv_nsec)
    }
}
