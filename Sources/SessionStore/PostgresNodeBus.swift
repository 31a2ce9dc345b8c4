import Basics
import Glibc

/// The nodes of one service, sharing one PostgreSQL database, known to each other and talking through it
/// (docs/protocol.md §8): a node registers itself in the `nodes` table, heartbeats, holds a session-level advisory lock
/// for as long as its connection lives (so a process that dies is seen dead at once, its lock gone with its
/// connection), and exchanges text messages with the other nodes over `LISTEN`/`NOTIFY`.
///
/// Everything runs on a thread of the bus's own with its own connection: ``send(_:to:)`` only queues, and received
/// messages are handed to the handler on that thread (it must return quickly). A message longer than one
/// notification's payload is cut into parts and put together again on arrival, so any text up to
/// ``maximumMessageBytes`` goes through; messages from one node arrive in the order it sent them. A lost connection
/// is made again with backoff (then the node registers again and listens again); messages sent meanwhile are lost,
/// as messages to a dead node are: callers that need an answer wait for it with a timeout.
///
///     let bus = try PostgresNodeBus(url: url, node: store.node, name: "node-a:8080") { message in … }
///     bus.send("release s123", to: other)
///     await bus.stop()  // deregisters: this node's sessions are at once claimable by others
public final class PostgresNodeBus: Sendable {
    /// A message from another node (or this one).
    public struct Message: Sendable, Hashable {
        /// The sending node's id.
        public var from: String
        /// The text.
        public var text: String

        /// Creates a message.
        public init(from: String, text: String) {
            self.from = from
            self.text = text
        }
    }

    /// How the bus heartbeats and reconnects. Every field has a safe default.
    public struct Configuration: Sendable {
        /// How often the node writes its heartbeat.
        public var heartbeatInterval: Duration = .seconds(2)
        /// The wait after a failed connection before the next attempt, doubling up to ``maximumReconnectDelay``.
        public var reconnectDelay: Duration = .milliseconds(100)
        /// The longest wait between connection attempts.
        public var maximumReconnectDelay: Duration = .seconds(2)
        /// Unix milliseconds now (the heartbeat's time, compared with the store's clock).
        public var clock: @Sendable () -> Int64 = WallClock.milliseconds

        /// Creates the default configuration.
        public init() {}
    }

    /// The longest message, in UTF-8 bytes, that ``send(_:to:)`` takes.
    public static let maximumMessageBytes = 1 << 20

    /// This node's id (its store's ``SessionStore/node``).
    public let node: String
    /// This node's name for people (`--node`).
    public let name: String
    private let url: String
    private let configuration: Configuration
    private let handler: @Sendable (Message) -> Void
    /// A pipe's read and write ends: a byte written wakes the bus's thread.
    private let wakeFDs: (read: Int32, write: Int32)
    private let state = Locked(State())

    private struct State {
        var outbox: [(channel: String, payloads: [String])] = []
        var nextMessage: UInt64 = 0
        var stopping = false
        var stopped: [CheckedContinuation<Void, Never>] = []
        var finished = false
        var registered = false
    }

    /// Starts the bus: connects, registers the node and listens, on a thread of its own.
    /// - Parameters:
    ///   - url: The database (as ``PostgresSessionStore``'s).
    ///   - node: This node's id.
    ///   - name: This node's name for people.
    ///   - configuration: Heartbeat and reconnection.
    ///   - handler: Told of every message to this node, on the bus's thread.
    /// - Throws: ``SessionStoreError/unavailable(message:)`` when no wake descriptor can be made.
    public init(
        url: String, node: String, name: String, configuration: Configuration = Configuration(),
        handler: @escaping @Sendable (Message) -> Void
    ) throws(SessionStoreError) {
        self.url = url
        self.node = node
        self.name = name
        self.configuration = configuration
        self.handler = handler
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { throw .unavailable(message: "pipe: errno \(errno)") }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        wakeFDs = (ends[0], ends[1])
        startThread(name: "node-bus") { [self] in run() }
    }

    deinit {
        close(wakeFDs.read)
        close(wakeFDs.write)
    }

    /// The channel a node listens on.
    /// - Parameter node: The node's id.
    /// - Returns: The channel's name.
    public static func channel(of node: String) -> String { "motion_node_" + node }

    /// Whether the node is registered and listening now (false while the database is unreachable).
    public var isRegistered: Bool { state.withLock { $0.registered } }

    /// Waits until the node is registered (its first registration, when it starts), at most `timeout`.
    /// - Returns: Whether it is registered.
    public func waitUntilRegistered(timeout: Duration) async -> Bool {
        await registration.wait(until: { isRegistered }, timeout: { try? await Task.sleep(for: timeout) })
    }

    /// Queues `text` for `node`; it is sent at once from the bus's thread.
    /// - Parameters:
    ///   - text: The message, at most ``maximumMessageBytes`` bytes of UTF-8 (longer ones are dropped).
    ///   - node: The receiving node's id.
    public func send(_ text: String, to node: String) {
        guard text.utf8.count <= Self.maximumMessageBytes else { return }
        state.withLock { state in
            guard !state.stopping else { return }
            let number = state.nextMessage
            state.nextMessage += 1
            state.outbox.append(
                (Self.channel(of: node), NodeMessageParts.split(text, from: self.node, number: number)))
        }
        wake()
    }

    /// Sends what is queued, removes the node from the registry and closes the connection: the node's sessions are
    /// claimable by the other nodes at once. Calling it again waits for the same end.
    public func stop() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let done = state.withLock { state in
                if state.finished { return true }
                state.stopping = true
                state.stopped.append(continuation)
                return false
            }
            if done { continuation.resume() } else { wake() }
        }
    }

    private func wake() {
        var one: UInt8 = 1
        _ = write(wakeFDs.write, &one, 1)
    }

    // MARK: The bus's thread

    private func run() {
        var connection: PostgresConnection?
        var registered = false
        var nextHeartbeat: UInt64 = 0
        var assembler = NodeMessageParts.Assembler()
        let heartbeat = UInt64(Self.nanoseconds(configuration.heartbeatInterval))
        let firstDelay = UInt64(max(1, Self.nanoseconds(configuration.reconnectDelay)))
        var delay = firstDelay
        var lockKey = Int64.random(in: 1...Int64.max)
        while true {
            let (stopping, outbox) = state.withLock { state in
                defer { state.outbox.removeAll() }
                return (state.stopping, state.outbox)
            }
            var wait = heartbeat
            do throws(SessionStoreError) {
                if connection == nil {
                    var configuration = PostgresConnection.Configuration()
                    configuration.idleInputMeansClosed = false  // it is sent notifications between calls
                    connection = try PostgresConnection(url: url, configuration: configuration)
                }
                guard let db = connection else { continue }
                if !registered || !db.isConnected {
                    setRegistered(false)
                    try register(on: db, lockKey: &lockKey)
                    registered = true
                    setRegistered(true)
                    nextHeartbeat = 0
                }
                try send(outbox, on: db)
                if stopping {
                    try db.query("DELETE FROM nodes WHERE id = $1", [.text(node)])
                    return finish(connection)
                }
                let now = MonotonicClock.nanoseconds()
                if now >= nextHeartbeat {
                    let changed = try db.query(
                        "UPDATE nodes SET heartbeat_at = $2 WHERE id = $1", [.text(node), .int(configuration.clock())]
                    ).changed
                    if changed == 0 { registered = false }
                    nextHeartbeat = now + heartbeat
                }
                for notification in try db.notifications() {
                    if let message = assembler.add(notification.payload) { handler(message) }
                }
                delay = firstDelay
                wait = nextHeartbeat > now ? nextHeartbeat - now : 0
            } catch {
                registered = false
                setRegistered(false)
                if stopping { return finish(connection) }
                wait = delay
                delay = min(delay * 2, UInt64(Self.nanoseconds(configuration.maximumReconnectDelay)))
            }
            waitForInput(connection?.socket, nanoseconds: wait)
        }
    }

    /// Listens on the node's channel, takes its advisory lock and writes its row, on a new connection.
    private func register(on db: PostgresConnection, lockKey: inout Int64) throws(SessionStoreError) {
        try db.execute("LISTEN \(Self.channel(of: node))")
        // A lost connection's server process may still hold the old key's lock for a while: take a new key then.
        for _ in 0..<8 {
            let taken = try db.query("SELECT pg_try_advisory_lock($1)::int", [.int(lockKey)]).first?.int(0) == 1
            if taken { break }
            lockKey = Int64.random(in: 1...Int64.max)
        }
        try db.query(
            """
            INSERT INTO nodes (id, name, lock_key, started_at, heartbeat_at) VALUES ($1, $2, $3, $4, $4)
            ON CONFLICT (id) DO UPDATE SET name = $2, lock_key = $3, heartbeat_at = $4
            """, [.text(node), .text(name), .int(lockKey), .int(configuration.clock())])
    }

    /// Sends queued messages in one round trip (one transaction: they arrive together, in order).
    private func send(
        _ outbox: [(channel: String, payloads: [String])], on db: PostgresConnection
    ) throws(SessionStoreError) {
        guard !outbox.isEmpty else { return }
        var sql = ""
        for (channel, payloads) in outbox {
            let target = try db.literal(channel)
            for payload in payloads { sql += "SELECT pg_notify(\(target), \(try db.literal(payload)));" }
        }
        try db.execute(sql)
    }

    private func finish(_ connection: PostgresConnection?) {
        connection?.close()
        let waiting = state.withLock { state in
            state.finished = true
            state.registered = false
            defer { state.stopped.removeAll() }
            return state.stopped
        }
        for continuation in waiting { continuation.resume() }
    }

    private func setRegistered(_ registered: Bool) {
        state.withLock { $0.registered = registered }
        registration.notify()
    }

    /// Notified each time the node's registration changes.
    private let registration = ChangeSignal()

    /// Waits until the database sends something, ``send(_:to:)`` or ``stop()`` wakes the bus, or the time passes.
    private func waitForInput(_ socket: Int32?, nanoseconds: UInt64) {
        var descriptors = [pollfd(fd: wakeFDs.read, events: Int16(POLLIN), revents: 0)]
        if let socket { descriptors.append(pollfd(fd: socket, events: Int16(POLLIN), revents: 0)) }
        let milliseconds = Int32(min(nanoseconds / 1_000_000 + 1, 60_000))
        _ = poll(&descriptors, nfds_t(descriptors.count), milliseconds)
        var drained = [UInt8](repeating: 0, count: 64)
        while read(wakeFDs.read, &drained, drained.count) > 0 {}
    }

    private static func nanoseconds(_ duration: Duration) -> Int64 {
        duration.components.seconds * 1_000_000_000 + duration.components.attoseconds / 1_000_000_000
    }
}

/// How a bus message travels in notifications: `<from> <number> <part> <parts> <text>`, its text cut into parts
/// that fit a notification's payload (PostgreSQL's limit is 8,000 bytes), between characters.
enum NodeMessageParts {
    /// The most text bytes in one part.
    static let partBytes = 7_000

    /// The payloads that carry `text`.
    static func split(_ text: String, from node: String, number: UInt64) -> [String] {
        let bytes = Array(text.utf8)
        var pieces: [ArraySlice<UInt8>] = []
        var start = 0
        repeat {
            var end = min(start + partBytes, bytes.count)
            // Never between the bytes of one character: back up over continuation bytes (10xxxxxx).
            while end < bytes.count, end > start, bytes[end] & 0xC0 == 0x80 { end -= 1 }
            pieces.append(bytes[start..<end])
            start = end
        } while start < bytes.count
        return pieces.enumerated().map { index, piece in
            "\(node) \(number) \(index) \(pieces.count) " + String(decoding: piece, as: UTF8.self)
        }
    }

    /// Puts messages together from their parts, in arrival order. Payloads that are not parts, and parts that
    /// arrive out of order, are dropped; at most ``maximumPending`` messages wait for parts at once.
    struct Assembler {
        static let maximumPending = 64

        private var pending: [String: (parts: Int, next: Int, text: String)] = [:]
        /// Payloads dropped as malformed or out of order.
        private(set) var dropped = 0

        /// Takes one payload.
        /// - Returns: A whole message when this part completes one.
        mutating func add(_ payload: String) -> PostgresNodeBus.Message? {
            let fields = payload.split(separator: " ", maxSplits: 4, omittingEmptySubsequences: false)
            guard fields.count == 5, !fields[0].isEmpty, UInt64(fields[1]) != nil, let part = Int(fields[2]),
                let parts = Int(fields[3]), parts >= 1, part >= 0, part < parts,
                parts <= PostgresNodeBus.maximumMessageBytes / NodeMessageParts.partBytes + 2
            else {
                dropped += 1
                return nil
            }
            let from = String(fields[0])
            let text = String(fields[4])
            if parts == 1 { return PostgresNodeBus.Message(from: from, text: text) }
            let key = "\(from) \(fields[1])"
            var entry = pending[key] ?? (parts, 0, "")
            guard entry.parts == parts, entry.next == part else {
                pending[key] = nil
                dropped += 1
                return nil
            }
            entry.text += text
            entry.next += 1
            if entry.next == parts {
                pending[key] = nil
                return PostgresNodeBus.Message(from: from, text: entry.text)
            }
            if pending[key] == nil, pending.count >= Self.maximumPending, let victim = pending.keys.first {
                pending[victim] = nil
                dropped += 1
            }
            pending[key] = entry
            return nil
        }
    }
}
