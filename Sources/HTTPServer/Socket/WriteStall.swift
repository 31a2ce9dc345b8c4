import Glibc

/// How long a connection's pending output has waited with the peer taking none of it — the measure behind the
/// write timeouts of HTTP and WebSocket connections.
///
/// A connection learns of progress when the kernel takes its bytes, but it is woken to write only once much of the
/// kernel's send buffer is free again (up to megabytes), so a peer that reads slowly could look stalled for seconds.
/// The kernel's count of bytes it still holds for the peer (`SIOCOUTQ`) shrinks as the peer reads: that counts as
/// progress too. Loop thread only, like the connection that owns it.
struct WriteStall {
    private var lastProgress: UInt64 = 0
    private var kernelQueued = 0

    /// Bytes left the connection for the kernel at `now` (loop time, nanoseconds).
    mutating func progressed(at now: UInt64) { lastProgress = now }

    /// The socket has just filled with bytes still pending: the stall is timed from `now`.
    mutating func begin(fd: Int32, at now: UInt64) {
        lastProgress = now
        kernelQueued = Self.kernelQueuedByteCount(fd) ?? 0
    }

    /// How long the peer has taken nothing, as of `now`.
    mutating func duration(fd: Int32, at now: UInt64) -> Duration {
        if let queued = Self.kernelQueuedByteCount(fd) {
            if queued < kernelQueued { lastProgress = now }
            kernelQueued = queued
        }
        return .nanoseconds(Int64(now > lastProgress ? now - lastProgress : 0))
    }

    /// Bytes the kernel holds for the peer: sent and not yet acknowledged, or not yet sent (`SIOCOUTQ`).
    private static func kernelQueuedByteCount(_ fd: Int32) -> Int? {
        var count: Int32 = 0
        return ioctl(fd, UInt(TIOCOUTQ), &count) == 0 ? Int(count) : nil
    }
}
