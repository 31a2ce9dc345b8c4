/// The bytes of a connection's responses on their way to the socket: appended whole, taken by the socket in pieces,
/// given back once they have all left. Bookkeeping only: the connection does the writing.
///
/// Its bound is the connection's ``ConnectionBudget/pendingOutputBytes``: a streaming handler waits while more than
/// it is unsent, so a client that reads slowly slows the handler down instead of growing the buffer.
package struct HTTPOutput: Sendable {
    /// The queued bytes, sent ones included until everything has left. Append only (the response writers write
    /// into it).
    package var bytes: [UInt8] = []
    /// How many of them have left.
    package private(set) var written = 0

    /// An empty buffer.
    package init() {}

    /// Whether nothing is queued: every response so far has left and the buffer was reset.
    package var isEmpty: Bool { bytes.isEmpty }

    /// Whether queued bytes have not been handed to the socket yet.
    package var hasUnsent: Bool { written < bytes.count }

    /// The bytes not yet handed to the socket.
    package var unsentCount: Int { bytes.count - written }

    /// Lends the unsent bytes to `body` (the socket's send).
    package func withUnsent<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        let offset = written
        return bytes.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
    }

    /// Records that the socket took `count` more bytes.
    package mutating func sent(_ count: Int) {
        written = min(bytes.count, written + count)
    }

    /// Drops what was queued after `count` bytes (a response that failed half-written, not yet sent).
    package mutating func truncate(to count: Int) {
        precondition(count >= written, "cannot take back bytes that have left")
        bytes.removeLast(bytes.count - count)
    }

    /// Everything has left: empties the buffer, keeping a small one's room for the next response.
    package mutating func reset() {
        bytes.removeAll(keepingCapacity: bytes.capacity <= 64 * 1024)
        written = 0
    }
}
