import Glibc

/// The byte stream of one connection: its socket, or TLS over it. HTTP and WebSocket connections read and write
/// through it and never learn which (docs/architecture.md, "Concurrency model": TLS is a byte transform per
/// connection). Loop thread only, except while a connection is handed from one owner to the next (an upgrade).
public struct Transport: @unchecked Sendable {
    // Safety: the stream is used by one owner at a time on its loop's thread; an upgrade hands the whole transport
    // over after the old owner has deregistered.

    /// The socket, non-blocking.
    public let fd: Int32
    /// TLS over the socket, nil for plain TCP.
    package let tls: TLSStream?

    /// The socket itself.
    /// - Parameter fd: A connected, non-blocking socket.
    public static func plain(_ fd: Int32) -> Transport { Transport(fd: fd, tls: nil) }

    package init(fd: Int32, tls: TLSStream?) {
        self.fd = fd
        self.tls = tls
    }

    /// Whether the bytes are encrypted.
    public var isTLS: Bool { tls != nil }

    /// Reads what is available into `buffer` (not empty).
    @inline(__always)
    package func receive(into buffer: UnsafeMutableRawBufferPointer) -> Socket.IOResult {
        if let tls { return tls.receive(into: buffer) }
        return Socket.receive(fd, into: buffer)
    }

    /// Whether to read again after a read of `count` bytes into a buffer of `capacity`. A short read empties a
    /// socket. TLS returns one record at a time: under edge-triggered readiness only a would-block answer says the
    /// socket is empty; under level-triggered readiness the socket reports itself again, so only what TLS already
    /// holds matters.
    @inline(__always)
    package func mayHaveMore(afterReading count: Int, capacity: Int, levelTriggered: Bool = false) -> Bool {
        guard let tls else { return count == capacity }
        return !levelTriggered || tls.hasBufferedInput
    }

    /// Writes from `bytes` (not empty); may take fewer than offered.
    @inline(__always)
    package func send(_ bytes: UnsafeRawBufferPointer) -> Socket.IOResult {
        if let tls { return tls.send(bytes) }
        return Socket.send(fd, bytes)
    }

    /// Writes `first` then `second` in one call (a frame header and a payload that stays where it is).
    @inline(__always)
    package func send(_ first: UnsafeRawBufferPointer, _ second: UnsafeRawBufferPointer) -> Socket.IOResult {
        if let tls { return tls.send(first, second) }
        return Socket.send(fd, first, second)
    }

    /// Whether bytes already counted as sent still wait for the socket (a TLS record); a connection is not drained
    /// until ``flushPending()`` has written them.
    @inline(__always)
    package var hasPendingOutput: Bool { tls?.hasUnsentRecord ?? false }

    /// Writes what ``hasPendingOutput`` holds: `.transferred(0)` when nothing is left, `.wouldBlock` while the
    /// socket is full, `.failed` when the connection broke.
    package func flushPending() -> Socket.IOResult { tls?.flushRecord() ?? .transferred(0) }

    /// Whether the last read could not go on until the socket takes bytes (TLS only): the connection must watch
    /// for writability and read again then.
    @inline(__always)
    package var readWaitsForWritable: Bool { tls?.readWaitsForWritable ?? false }

    /// Whether received bytes are held above the socket (TLS), which no readiness event will report.
    package var hasBufferedInput: Bool { tls?.hasBufferedInput ?? false }

    /// Ends this side's output: TLS close_notify if it fits, then a TCP half-close.
    package func shutdownWrite() {
        tls?.sendCloseNotify()
        Glibc.shutdown(fd, Int32(SHUT_WR))
    }

    /// Closes the socket (the TLS state is freed with the last reference to it).
    package func close() { Glibc.close(fd) }
}
