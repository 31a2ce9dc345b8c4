import HTTPServer
import MotionCore
import MotionWire
import SessionStore

/// Who hears a live session: its client and its watchers (docs/protocol.md §3, §8). Messages are encoded into one
/// reused buffer and sent from it: to the client alone, to the watchers alone, or to both; snapshots replace an
/// unsent one under backpressure, every other message is kept.
///
/// Watchers are admitted as ``LiveSessionState/admission`` says: joined with what their greeting does not tell,
/// kept until a session being resumed arrives, or sent to look for it elsewhere.
struct SessionAudience {
    /// The client's connection.
    let client: WebSocket
    /// The read-only observers of the session, here and on other nodes.
    var watchers = SessionWatchers()
    /// After `stop`: the `summary` message, for watchers that join while it is being stored.
    private(set) var summary: [UInt8]?
    /// Watchers, here and on other nodes (with the streams they want), that asked while a resume brought the
    /// session here.
    private var arriving: (sockets: [WebSocket], nodes: [(node: String, wants: WatchOptions)]) = ([], [])
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

    /// Tells the client that its session could not be stored (`storeUnavailable`, docs/protocol.md §3: it is never
    /// left believing it was) and closes the connection with 1011.
    mutating func closeUnstored(_ message: String, reason: String, frame: Int? = nil) {
        tell(WireError(code: .storeUnavailable, message: message), frame: frame)
        client.close(code: .internalError, reason: reason)
    }

    /// The `error` message about message `frame` (or one element of its batch), to the client alone.
    mutating func tell(_ error: WireError, frame: Int?, batchIndex: Int? = nil) {
        tellClient { WireEncoder.encodeError(error, frame: frame, batchIndex: batchIndex, into: &$0) }
    }

    /// Sends the `summary` message of a stopped session to the client and every watcher, and keeps it for watchers
    /// that join while it is being stored.
    mutating func sendSummary(_ encode: (inout [UInt8]) -> Void) {
        summary = tellAll(encode)
    }

    // MARK: Admission

    /// Admits watchers of this node as `admission` says, `session` being the session held here.
    /// - Returns: Those that must look for the session elsewhere.
    mutating func admit(
        _ sockets: [WebSocket], as admission: LiveSessionState.Admission, session: SessionCore?
    ) -> [WebSocket] {
        switch admission {
        case .wait:
            // The session is arriving (a resume, maybe from another node): the watchers join it with its handover,
            // before any frame of the resumed connection is read.
            arriving.sockets += sockets
            return []
        case .elsewhere: return sockets
        case .join(let news):
            guard let session else { return sockets }
            var message: [UInt8]?
            switch news {
            case .none: break
            case .disconnected:
                var bytes: [UInt8] = []
                WireEncoder.encodeConnection(connected: false, into: &bytes)
                message = bytes
            // Stopped, its summary on its way to the store: the watcher has it too, and the close that follows.
            case .summary: message = summary
            }
            for watcher in sockets {
                watchers.add(watcher, session: session)
                if let message { watcher.send(.text(String(decoding: message, as: UTF8.self))) }
            }
            return []
        }
    }

    /// Admits another node's watchers as `admission` says.
    /// - Returns: Whether they follow the session here (or will once it arrives).
    mutating func admitRemote(
        _ node: String, wants: WatchOptions, as admission: LiveSessionState.Admission, session: SessionCore?,
        cluster: ClusterNode
    ) -> Bool {
        switch admission {
        case .wait:
            arriving.nodes.append((node, wants))
            return true
        case .elsewhere: return false
        case .join:
            guard let session else { return false }
            watchers.addRemote(node, wants: wants, session: session, cluster: cluster)
            return true
        }
    }

    /// Another node's watchers no longer want `stream`, whether they follow the session or wait for it.
    mutating func stopRemote(_ stream: WatchedStream, node: String) {
        for index in arriving.nodes.indices where arriving.nodes[index].node == node {
            arriving.nodes[index].wants[stream] = false
        }
        watchers.stopRemote(stream, node: node)
    }

    /// The session arrived with `handover`'s watchers: they and those that waited for it follow it from now on.
    mutating func welcome(_ handover: Handover, cluster: ClusterNode) {
        watchers = handover.watchers
        for socket in arriving.sockets { watchers.add(socket, session: handover.core) }
        for (node, wants) in arriving.nodes {
            watchers.addRemote(node, wants: wants, session: handover.core, cluster: cluster)
        }
        arriving = ([], [])
    }

    /// The session `id` did not arrive: the watchers that waited for it are closed, the other nodes' told.
    mutating func turnAway(_ id: SessionID?, cluster: ClusterNode) {
        for socket in arriving.sockets { socket.close(code: .goingAway, reason: "session not resumed") }
        if let id {
            for (node, _) in arriving.nodes { cluster.send(.moved(id, to: nil), to: node) }
        }
        arriving = ([], [])
    }
}
