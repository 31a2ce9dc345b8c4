/// What one connection may hold of this process's memory, whatever it speaks: one budget per server, and every
/// connection — HTTP, pipelined, upgraded to WebSocket, plain or over TLS — is charged against it.
///
/// - Input read and not yet parsed is held up to ``readAheadBytes``; past it the socket is not read until parsing
///   makes room, so TCP slows a client that sends without reading (HTTP in every phase of a request).
/// - Output produced and not yet taken by the kernel is held up to ``pendingOutputBytes``: a streaming HTTP response
///   waits past it; a WebSocket whose peer lets more than this wait is closed with 1008 (a close frame is exempt).
///   A single HTTP response is written whole, so it may exceed the bound once; no further one is produced (the next
///   request is not parsed) until it has left.
/// - The kernel holds at most ``kernelUnsentBytes`` unsent (`TCP_NOTSENT_LOWAT`), so production stops close to the
///   client's pace instead of after megabytes queued in the kernel for nobody.
///
/// Besides these, a connection holds the message it is assembling (an HTTP body, a WebSocket message), bounded by
/// its protocol's limit, and the loop's read buffer is shared by all of a loop's connections. ``totalBytes`` is the
/// bound a connection is tested at.
public struct ConnectionBudget: Sendable, Equatable {
    /// Unparsed input held before reading pauses.
    public var readAheadBytes = 64 * 1024
    /// Output held unsent before a producer waits (HTTP) or the peer is dropped as too slow (WebSocket).
    public var pendingOutputBytes = 4 << 20
    /// The most bytes the kernel holds unsent for the connection (`TCP_NOTSENT_LOWAT`).
    public var kernelUnsentBytes = 64 * 1024

    /// The defaults: 64 KiB of read-ahead, 4 MiB of pending output, 64 KiB unsent in the kernel.
    public init() {}

    /// A budget with the given bounds.
    public init(readAheadBytes: Int, pendingOutputBytes: Int, kernelUnsentBytes: Int) {
        self.readAheadBytes = readAheadBytes
        self.pendingOutputBytes = pendingOutputBytes
        self.kernelUnsentBytes = kernelUnsentBytes
    }

    /// The most one connection holds besides the message it assembles: read-ahead, pending output and what the
    /// kernel keeps unsent.
    public var totalBytes: Int { readAheadBytes + pendingOutputBytes + kernelUnsentBytes }

    /// How many bytes the next read may take beside `held` unparsed ones (0: stop reading).
    public func readRoom(holding held: Int) -> Int { max(0, readAheadBytes - held) }

    /// Whether `pending` unsent bytes are past the output bound.
    public func isOverOutput(_ pending: Int) -> Bool { pending > pendingOutputBytes }
}
