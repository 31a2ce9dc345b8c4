import HTTPServer
import MotionCore
import MotionWire

/// Who hears a live session: its client and its watchers (docs/protocol.md §3, §8). Messages are encoded into one
/// reused buffer and sent from it: to the client alone, to the watchers alone, or to both; snapshots replace an
/// unsent one under backpressure, every other message is kept.
struct SessionAudience {
    /// The client's connection.
    let client: WebSocket
    /// The read-only observers of the session, here and on other nodes.
    var watchers = SessionWatchers()
    private var output: [UInt8] = []
    private var snapshotCache = SnapshotCache()

    init(client: WebSocket) {
        self.client = client
        output.reserveCapacity(1024)
    }

    /// Sends what `encode` writes to the client alone.
    mutating func tellClient(_ encode: (inout [UInt8]) -> Void) {
        output.removeAll(keepingCapacity: true)
        encode(&output)
        client.sendText(utf8: output)
    }

    /// Sends what `encode` writes to the watchers alone.
    mutating func tellWatchers(_ encode: (inout [UInt8]) -> Void) {
        output.removeAll(keepingCapacity: true)
        encode(&output)
        watchers.send(output, replacing: nil)
    }

    /// Sends what `encode` writes to the client and every watcher.
    /// - Returns: The message's bytes.
    @discardableResult
    mutating func tellAll(_ encode: (inout [UInt8]) -> Void) -> [UInt8] {
        output.removeAll(keepingCapacity: true)
        encode(&output)
        client.sendText(utf8: output)
        watchers.send(output, replacing: nil)
        return output
    }

    /// Sends `snapshot` to the watchers, and to the client when `toClient`; it replaces a snapshot not yet sent.
    mutating func send(_ snapshot: borrowing MotionSnapshot, toClient: Bool) {
        output.removeAll(keepingCapacity: true)
        WireEncoder.encodeSnapshot(snapshot, cache: &snapshotCache, into: &output)
        if toClient { client.sendText(utf8: output, replacing: "snapshot") }
        watchers.send(output, replacing: "snapshot")
    }

    /// The `error` message about message `frame` (or one element of its batch), to the client alone.
    mutating func tell(_ error: WireError, frame: Int?, batchIndex: Int? = nil) {
        tellClient { WireEncoder.encodeError(error, frame: frame, batchIndex: batchIndex, into: &$0) }
    }
}
