import MotionWire

/// The life of one `/v1/stream` connection and the session it runs (docs/protocol.md §3, §3.1) — which messages it
/// takes, when it is slowed, when it is idle, what its end means — with no I/O and no clock read: ``LiveSession``
/// reports what happened, with the loop's time, and does what the answer says.
///
/// Five rules shape it:
/// - the first message is `start` or `resume`, once; pose, motion, reset, baseline and stop need a session;
/// - while the session's row is being created, or a resume is carried out, the socket is not read;
/// - frames and motion samples are never refused for speed: past a budget the socket is not read until both budgets
///   have refilled to a quarter of their burst (flow control);
/// - a connection that ends without `stop` leaves its session *detached*, resumable for the resume window, unless
///   the session cannot be resumed (then it is abandoned at once);
/// - a session ends here once: stopped, abandoned, not stored, or handed over to the connection that resumed it.
///
/// ```swift
/// var state = LiveSessionState(limits: .init(LiveLimits()), now: 0)
/// try state.start()                       // .creating: reading paused until the row is durable
/// state.created(stored: true)             // .started: send `started`, read again
/// state.connectionClosed(resumable: true) // .detach: checkpoint, tell the watchers, arm the window
/// state.expired()                         // true: stored as abandoned
/// ```
struct LiveSessionState: Sendable {
    /// Where the connection and its session are.
    enum Phase: Equatable, Sendable {
        /// Connected, nothing received yet: the first message must be `start` or `resume`.
        case opening
        /// `start` was accepted and the session's row is being created; the socket is not read.
        case creating
        /// A `resume` is carried out; the socket is not read, and watchers that ask wait for the session.
        case resuming
        /// The session runs with its client connected.
        case running
        /// The client is gone; the session waits for a resume until its window passes.
        case detached
        /// This connection is done with its session.
        case ended(Ending)
    }

    /// How a session ended here.
    enum Ending: Equatable, Sendable {
        /// `stop`: the summary was sent and is being stored.
        case stopped
        /// Stored as abandoned: its connection ended, it was abusive, or its resume window passed.
        case abandoned
        /// Its row could not be created: the client is told to start again.
        case notStored
        /// The `resume` was refused.
        case notResumed
        /// It moved to the connection that resumed it.
        case handedOver
    }

    /// The limits the machine applies, from ``LiveLimits``.
    struct Limits: Sendable {
        var framesPerSecond: Double
        var motionSamplesPerSecond: Double
        var maxConsecutiveErrors: Int
        /// Nanoseconds without a message after which the connection is closed.
        var idleTimeout: UInt64
        /// Whether a session outlives its connection at all (a zero resume window abandons it at once).
        var resumes: Bool

        init(_ limits: LiveLimits) {
            framesPerSecond = limits.framesPerSecond
            motionSamplesPerSecond = limits.motionSamplesPerSecond
            maxConsecutiveErrors = limits.maxConsecutiveErrors
            idleTimeout = AppContext.nanoseconds(limits.idleTimeout)
            resumes = limits.resumeWindow > .zero
        }
    }

    /// What a create's outcome asks of the connection.
    enum Creation: Equatable, Sendable {
        /// Send `started` and read again.
        case started
        /// Tell the client `storeUnavailable` and close with 1011; the session is dropped, unstored.
        case notStored
        /// Nothing: the session ended meanwhile.
        case none
    }

    /// What the end of the connection asks of the session.
    enum Disconnection: Equatable, Sendable {
        /// Checkpoint it, tell its watchers, and wait for a resume until the window passes.
        case detach
        /// Store it as abandoned.
        case abandon
        /// Nothing: there is no session, or it has ended.
        case none
    }

    /// What the connection's periodic timer asks.
    enum Tick: Equatable, Sendable {
        /// Write a checkpoint if frames came since the last, and run the timer again.
        case checkpoint
        /// Close the connection with 1001: the client has been silent for the idle timeout.
        case closeIdle
        /// Nothing, and no more ticks: the session has ended here.
        case stop
    }

    /// How a watcher that asks for the session is answered.
    enum Admission: Equatable, Sendable {
        /// Kept until the session arrives (a resume is carried out).
        case wait
        /// Sent to look for the session where it is now: it is not here (yet, or any more).
        case elsewhere
        /// Joined to the session, and told what the greeting does not say.
        case join(News)
    }

    /// What a joining watcher is told after its greeting.
    enum News: Equatable, Sendable {
        case none
        /// The client is gone (a `connection` message).
        case disconnected
        /// The session was stopped: the `summary` message, and the close that follows.
        case summary
    }

    let limits: Limits
    private(set) var phase = Phase.opening
    /// Whether the socket is still open.
    private(set) var connected = true
    /// The number of the current message on this connection, from 1 (the `frame` of an `error`).
    private(set) var messageNumber = 0
    private(set) var consecutiveErrors = 0
    /// Whether the socket is not read for flow control.
    private(set) var flowPaused = false
    private var lastMessage: UInt64
    private var frames: TokenBucket
    /// The budget of motion samples (docs/protocol.md §3.3), spent and refilled as ``frames`` is.
    private var samples: TokenBucket
    private var snapshots = SnapshotPolicy.every
    private var lastSnapshotTime: Double?

    /// A machine for a connection opened at `now` (nanoseconds of the loop's clock).
    init(limits: Limits, now: UInt64) {
        self.limits = limits
        lastMessage = now
        frames = TokenBucket(rate: limits.framesPerSecond, burst: limits.framesPerSecond * 2)
        samples = TokenBucket(rate: limits.motionSamplesPerSecond, burst: limits.motionSamplesPerSecond * 2)
    }

    /// Whether this connection holds a session that has not ended: one being created, running or detached.
    var holdsSession: Bool {
        switch phase {
        case .creating, .running, .detached: true
        case .opening, .resuming, .ended: false
        }
    }

    /// Whether the session ended here rather than moving on (or never coming): a resume of it is told it ended.
    var endedHere: Bool {
        guard case .ended(let ending) = phase else { return false }
        return ending != .handedOver && ending != .notResumed
    }

    // MARK: Messages

    /// A message arrived at `now`.
    mutating func messageArrived(at now: UInt64) {
        lastMessage = now
        messageNumber += 1
    }

    /// A message was taken: the count of consecutive refusals starts over.
    mutating func accepted() { consecutiveErrors = 0 }

    /// A message (or every frame of a batch) was refused.
    /// - Returns: Whether the connection is abusive now (``LiveLimits/maxConsecutiveErrors``) and is to be closed.
    mutating func refused() -> Bool {
        consecutiveErrors += 1
        return consecutiveErrors >= limits.maxConsecutiveErrors
    }

    /// Throws `notStarted` unless a session runs here (pose, motion, reset, baseline).
    func requireSession() throws(WireError) {
        guard holdsSession else { throw WireError(code: .notStarted, message: "send a start message first") }
    }

    /// `start`: the session's row is created next; the socket is not read until it is.
    mutating func start() throws(WireError) {
        try requireFirstMessage()
        phase = .creating
    }

    /// The create of the session's row ended, `stored` or not.
    mutating func created(stored: Bool) -> Creation {
        guard holdsSession else { return .none }
        guard stored else {
            phase = .ended(.notStored)
            return .notStored
        }
        if phase == .creating { phase = .running }
        return .started
    }

    /// `stop`: the session ends as finished; its summary is sent and stored, then the connection closes.
    mutating func stop() throws(WireError) {
        try requireSession()
        phase = .ended(.stopped)
    }

    /// Ends the session as abandoned (an abusive client, an expired window).
    /// - Returns: Whether there was a session to end.
    mutating func abandon() -> Bool {
        guard holdsSession else { return false }
        phase = .ended(.abandoned)
        return true
    }

    /// Throws `alreadyStarted` unless this is the connection's first `start` or `resume`.
    func requireFirstMessage() throws(WireError) {
        guard phase == .opening else {
            throw WireError(code: .alreadyStarted, message: "the session has started")
        }
    }

    // MARK: Flow control (docs/protocol.md §3, §3.3)

    /// Charges pose frames or motion samples to the budgets at `now`.
    /// - Returns: How long to stop reading, when this spending went past a budget and reading is not paused yet.
    mutating func spend(frames count: Int = 0, samples sampleCount: Int = 0, at now: UInt64) -> Duration? {
        let framesWithin = count == 0 || frames.spend(Double(count), now: now)
        let samplesWithin = sampleCount == 0 || samples.spend(Double(sampleCount), now: now)
        guard !(framesWithin && samplesWithin), !flowPaused else { return nil }
        flowPaused = true
        // Both brought to now, so the one not spent this time counts what it has refilled since.
        _ = frames.spend(0, now: now)
        _ = samples.spend(0, now: now)
        return max(frames.time(toReach: frames.burst / 4), samples.time(toReach: samples.burst / 4))
    }

    /// The socket is read again after a flow-control pause.
    mutating func flowResumed() { flowPaused = false }

    // MARK: Snapshots

    /// Sets what the client asked of snapshots (its `start`'s `options.snapshots`).
    mutating func configure(snapshots policy: SnapshotPolicy) { snapshots = policy }

    /// Whether a snapshot is wanted at all now: `force`d, watched, or asked for by the client.
    func wantsSnapshot(force: Bool, watched: Bool) -> Bool {
        if force || watched { return true }
        if case .off = snapshots { return false }
        return true
    }

    /// Whether the snapshot of the pose at `timestamp` goes to the client, as its `snapshots` option asks (or
    /// always, `force`); noted as sent when it does.
    mutating func snapshotGoesToClient(at timestamp: Double?, force: Bool) -> Bool {
        if !force {
            switch snapshots {
            case .off: return false
            case .every: break
            case .interval(let seconds):
                if let last = lastSnapshotTime, let timestamp, timestamp - last < seconds { return false }
            }
        }
        lastSnapshotTime = timestamp
        return true
    }

    // MARK: Resuming (docs/protocol.md §3.1)

    /// `resume`: carried out next; the socket is not read until it is.
    mutating func resumeBegins() throws(WireError) {
        try requireFirstMessage()
        phase = .resuming
    }

    /// The resumed session arrived at `now`.
    /// - Returns: ``Disconnection/detach`` when the connection ended meanwhile, else ``Disconnection/none``.
    mutating func resumed(at now: UInt64) -> Disconnection {
        lastMessage = now
        phase = connected ? .running : .detached
        return connected ? .none : .detach
    }

    /// The `resume` was refused.
    mutating func resumeFailed() { phase = .ended(.notResumed) }

    /// A connection that resumed the session takes it from here.
    /// - Returns: Whether there was a session to give; the socket, if still open, is then closed with 4001.
    mutating func handOver() -> Bool {
        guard holdsSession else { return false }
        phase = .ended(.handedOver)
        flowPaused = false
        return true
    }

    /// How a watcher asking for the session now is answered.
    var admission: Admission {
        switch phase {
        case .resuming: .wait
        case .opening, .ended(.handedOver), .ended(.notResumed): .elsewhere
        case .detached: .join(.disconnected)
        case .ended(.stopped): .join(.summary)
        case .creating, .running, .ended: .join(.none)
        }
    }

    /// Whether the client is told of checkpoints: it is connected and its session runs.
    var tellsCheckpoints: Bool { connected && (phase == .running || phase == .creating) }

    // MARK: Time and the end of the connection

    /// The periodic timer fired at `now`.
    func tick(at now: UInt64) -> Tick {
        if case .ended = phase { return .stop }
        let silent = now > lastMessage ? now - lastMessage : 0
        return silent >= limits.idleTimeout ? .closeIdle : .checkpoint
    }

    /// The socket closed; `resumable` says whether the session can be resumed at all (it has a resume token).
    mutating func connectionClosed(resumable: Bool) -> Disconnection {
        connected = false
        flowPaused = false
        guard holdsSession else { return .none }
        if resumable && limits.resumes {
            phase = .detached
            return .detach
        }
        phase = .ended(.abandoned)
        return .abandon
    }

    /// The resume window passed.
    /// - Returns: Whether the session, still detached, is to be stored as abandoned.
    mutating func expired() -> Bool {
        guard phase == .detached else { return false }
        phase = .ended(.abandoned)
        return true
    }
}
