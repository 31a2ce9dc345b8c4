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
    package mutating func progressed(at now: UInt64) { lastProgress = now }

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

/// A connection's write timeout: armed when the socket first fills with output pending, it closes the connection
/// once the peer has taken no byte for the whole timeout, and otherwise re-arms itself for the rest of it. Sends
/// that find room cost no timer; a timer left from an earlier stall serves the next one. Loop thread only.
///
/// The timeout itself comes with each call, from the connection's configuration, rather than being stored in every
/// connection.
package struct WriteTimeout {
    private var stall = WriteStall()
    private var timer: LoopTimer?

    /// A write timeout, not armed.
    package init() {}

    /// Bytes left the connection for the kernel at `now` (loop time).
    package mutating func progressed(at now: UInt64) { stall.progressed(at: now) }

    /// The socket has just filled with output pending: the stall is timed from now, and `check` runs when the
    /// timeout is up (unless a timer is armed already). `check` must call ``check(fd:on:timeout:pending:then:)``.
    /// - Parameters:
    ///   - timeout: How long the peer may take nothing.
    package mutating func socketFilled(
        fd: Int32, on loop: EventLoop, timeout: Duration, then check: @escaping () -> Void
    ) {
        stall.begin(fd: fd, at: loop.time)
        if timer == nil { timer = loop.schedule(after: timeout, check) }
    }

    /// The timer has fired.
    /// - Parameters:
    ///   - timeout: How long the peer may take nothing, as given to ``socketFilled(fd:on:timeout:then:)``.
    ///   - pending: Whether output still waits (nothing to check otherwise).
    ///   - check: What to run when the rest of the timeout is up, if the peer took bytes meanwhile.
    /// - Returns: How long the peer has taken nothing, when that is the whole timeout: the connection must close.
    package mutating func check(
        fd: Int32, on loop: EventLoop, timeout: Duration, pending: Bool, then check: @escaping () -> Void
    ) -> Duration? {
        timer = nil
        guard pending else { return nil }
        let stalled = stall.duration(fd: fd, at: loop.now())
        guard stalled >= timeout else {
            timer = loop.schedule(after: timeout - stalled, check)
            return nil
        }
        return stalled
    }

    /// Disarms the timer (the output has left, or the connection closes).
    /// - Parameter loop: The loop the timer runs on.
    package mutating func cancel(on loop: EventLoop) {
        loop.cancel(timer)
        timer = nil
    }
}
