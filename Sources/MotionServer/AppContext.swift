import HTTPServer
import MotionCore
import MotionWire
import SessionStore
import Synchronization
import ZoneInfo

/// Limits of live and HTTP-driven sessions. Every field has a safe default.
public struct LiveLimits: Sendable, Equatable {
    /// Pose frames per second a connection may send, sustained (a batch counts each frame), with a burst of twice
    /// this. A faster client is not refused: its socket is not read until the budget refills, so TCP slows it
    /// (docs/protocol.md §3, flow control).
    public var framesPerSecond = 240.0
    /// Motion samples per second a connection may send, sustained (docs/protocol.md §3.3: up to 100), with a burst of
    /// twice this. Past it the connection is slowed like a fast pose stream (flow control), never refused.
    public var motionSamplesPerSecond = 100.0
    /// The largest message accepted, in bytes: a WebSocket message (closed with 1009 beyond) and the JSON or NDJSON
    /// body of a REST route (`413 messageTooBig` beyond). Exercise definitions have a smaller bound of their own,
    /// ``ExerciseLimits/maxDefinitionBytes``.
    public var maxMessageBytes = 1 << 20
    /// A session with no message from its client for this long is closed with 1001.
    public var idleTimeout: Duration = .seconds(120)
    /// How long a live session whose connection ended without `stop` stays resumable (docs/protocol.md §3.1); zero
    /// abandons it at once.
    public var resumeWindow: Duration = .seconds(120)
    /// How long the client of a stopped session waits for its summary to be stored, the write retried meanwhile,
    /// before it is told `storeUnavailable` and closed with 1011. The write is retried after that too, until
    /// ``resumeWindow`` has passed since the stop: a store back within it loses nothing.
    public var storeWait: Duration = .seconds(60)
    /// Final summaries this node holds while their writes are retried; past it, a session's final write is tried
    /// once, as when the store works (a summary is a few kilobytes: 10,000 of them take tens of megabytes).
    public var maxHeldFinalWrites = 10_000
    /// How often a live session's summary is written to the store.
    public var checkpointInterval: Duration = .seconds(5)
    /// How long checkpoints gather before they are written to the store together (one commit for all of them).
    public var checkpointBatchWindow: Duration = .milliseconds(50)
    /// Consecutive refused messages after which the connection is closed with 1008 (abuse).
    public var maxConsecutiveErrors = 200
    /// HTTP sessions (`POST /v1/sessions`) without a request for this long are stored as abandoned.
    public var httpSessionIdleTimeout: Duration = .seconds(600)
    /// Open HTTP sessions on this node; more are refused with `503 serverBusy`.
    public var maxHTTPSessions = 10_000
    /// Open HTTP sessions of one tenant; more are refused with `429 tooManySessions`.
    public var maxHTTPSessionsPerTenant = 1_000
    /// Programmes (docs/protocol.md §5.3): a body's size, items and texts, and the versions a tenant may store.
    var programmes = ProgrammeLimits()

    /// Creates the defaults.
    public init() {}

    /// What the wire decoders accept from a client, live or over REST: documents up to ``maxMessageBytes``, the
    /// other bounds at their defaults.
    var wireLimits: WireLimits { WireLimits(maxMessageBytes: maxMessageBytes) }
}

/// What every handler and live session of the application shares.
final class AppContext: Sendable {
    let store: any SessionStore
    let tokens: TokenTable?
    let logger: Logger
    let limits: LiveLimits
    let metrics: ServerMetrics
    let live = LiveRegistry()
    /// This node among those sharing the store.
    let cluster: ClusterNode
    /// The sessions this node's watchers follow on other nodes.
    let followed = FollowedSessions()
    let writes = StoreWrites()
    let checkpoints: CheckpointBatcher
    let creates = CreateBatcher()
    let httpSessions: HTTPDrivenSessionRegistry
    /// The built-in and the tenants' custom exercises sessions start with.
    let exercises: ExerciseLibrary
    /// The patient codes this node knows (docs/protocol.md §6.1).
    let patientCodes: PatientCodes
    /// The IANA time zones adherence weeks are counted in, read from /usr/share/zoneinfo.
    let timeZones = TimeZoneDatabase()
    /// Unix milliseconds now (an input, so tests can pin it).
    let clock: @Sendable () -> Int64
    /// What the event loops' timers, and so live sessions' checkpoints and idle timeouts, run by; the checkpoint
    /// batch window too.
    let loopClock: LoopClock
    /// Told of every session write's outcome (tests); nil in production.
    let storeObserver: StoreWriteObserver?
    /// Whether the last store call failed.
    let storeFailing = Atomic<Bool>(false)
    /// Final summaries held while their writes are retried (``LiveLimits/maxHeldFinalWrites``).
    let heldFinalWrites = Atomic<Int>(0)
    /// When a draining server stops retrying final writes (monotonic nanoseconds), once it drains.
    private let drainDeadline = Locked<UInt64?>(nil)
    private let lastProbe = Locked<UInt64>(0)

    init(
        store: any SessionStore, tokens: TokenTable?, logger: Logger, limits: LiveLimits, metrics: ServerMetrics,
        clock: @escaping @Sendable () -> Int64, loopClock: LoopClock = .monotonic,
        storeObserver: StoreWriteObserver? = nil, exercises: ExerciseLibrary = ExerciseLibrary(),
        cluster: ClusterNode? = nil, patientCodes: PatientCodes = PatientCodes()
    ) {
        self.patientCodes = patientCodes
        self.store = store
        self.cluster = cluster ?? ClusterNode(id: store.node, name: store.node, deadAfter: .seconds(10))
        self.tokens = tokens
        self.logger = logger
        self.limits = limits
        self.metrics = metrics
        self.clock = clock
        self.loopClock = loopClock
        self.storeObserver = storeObserver
        self.exercises = exercises
        httpSessions = HTTPDrivenSessionRegistry(limits: limits)
        checkpoints = CheckpointBatcher(window: limits.checkpointBatchWindow, clock: loopClock)
    }

    /// What a bearer token grants: tenant `default` with every right when the server runs without tokens, nil
    /// when refused.
    func grant(forToken token: String?) -> TokenTable.Grant? {
        guard let tokens else { return TokenTable.Grant(tenant: "default", isOperator: true) }
        return token.flatMap { tokens.grant(for: $0) }
    }

    /// Times a store call into the `motion_store_seconds` histogram and records whether the store works: any failure
    /// says it does not (`/readyz`), and only a write's success says it does again.
    /// - Parameter writes: Whether the call writes. A read succeeds where writes fail (a full disk, a read-only
    ///   database), so its success clears no failure.
    func timed<T: Sendable>(
        _ operation: String, writes: Bool = false, _ body: () async throws -> T
    ) async rethrows -> T {
        let started = EventLoop.now()
        defer { metrics.observeStore(operation, seconds: Double(EventLoop.now() - started) / 1e9) }
        do {
            let result = try await body()
            if writes { storeFailing.store(false, ordering: .relaxed) }
            return result
        } catch {
            storeFailing.store(true, ordering: .relaxed)
            throw error
        }
    }

    /// Lets final writes be retried for `grace` more, then gives them up: the server is draining.
    func drain(grace: Duration) {
        drainDeadline.withLock { $0 = EventLoop.now() + Self.nanoseconds(grace) }
    }

    /// A duration in whole nanoseconds, zero if negative.
    static func nanoseconds(_ duration: Duration) -> UInt64 {
        let (seconds, attoseconds) = duration.components
        return UInt64(max(0, seconds)) * 1_000_000_000 + UInt64(max(0, attoseconds) / 1_000_000_000)
    }

    /// Whether the server drains and its grace period has passed.
    func isDrainedPastGrace() -> Bool {
        drainDeadline.withLock { $0 }.map { EventLoop.now() >= $0 } ?? false
    }

    /// Whether the store takes writes, for `/readyz`: not while writes fail (the last store call failed and no write
    /// has succeeded since). A probe that writes (``SessionStore/probe()``), at most one a second, checks it even
    /// when nothing else writes: a node whose disk filled while idle is not ready, and one that no traffic reaches
    /// after a failure comes back.
    func storeIsWorking() async -> Bool {
        let now = EventLoop.now()
        let due = lastProbe.withLock { last in
            guard last == 0 || now - last >= 1_000_000_000 else { return false }
            last = now
            return true
        }
        if due { _ = try? await timed("probe", writes: true) { try await store.probe() } }
        return !storeFailing.load(ordering: .relaxed)
    }
}
