import LoadKit

/// What the sessions of one loop saw over a window of time. Windows merge by adding.
struct LoadStats: Sendable {
    /// The windows every worker keeps, each reset on its own schedule.
    enum Window: Int, CaseIterable {
        /// The current second, for the per-second lines.
        case second
        /// The current measurement: the steady phase of a run, or one level of `--find-capacity`.
        case measurement
        /// The whole run.
        case run
    }

    var sessionsOpened = 0
    var sessionsStarted = 0
    var framesSent = 0
    var snapshots = 0
    /// Frames answered by a later frame's snapshot (the server coalesced theirs under backpressure, or the
    /// session asked for snapshots at an interval).
    var coalesced = 0
    var events = 0
    var errors = 0
    var summaries = 0
    /// `checkpoint` messages: the server's word that a session's state is durable.
    var checkpoints = 0
    /// Frames still unanswered when their session ended (their age then is in `latency`, a lower bound).
    var unanswered = 0
    /// Intended send → snapshot that answered the frame, nanoseconds.
    var latency = Histogram()
    /// Intended → actual send time, nanoseconds (the load generator's own lateness).
    var sendLag = Histogram()
    /// Handshake + `start` → `started`, nanoseconds.
    var startLatency = Histogram()
    /// Connections cut on purpose (`--drop-every`), and the resumes that followed: their latency from the new
    /// connection's start to `resumed`.
    var drops = 0
    var resumes = 0
    var resumeLatency = Histogram()
    var eventKinds: [String: Int] = [:]
    var errorCodes: [String: Int] = [:]
    /// Closes by code (`"1000"`) or, for connections lost without a close frame, `"lost"`.
    var closes: [String: Int] = [:]
    /// Closes before the session was told to stop.
    var unexpectedCloses = 0
    var connectFailures: [String: Int] = [:]

    var connectFailureCount: Int { connectFailures.values.reduce(0, +) }

    mutating func merge(_ other: LoadStats) {
        sessionsOpened += other.sessionsOpened
        sessionsStarted += other.sessionsStarted
        framesSent += other.framesSent
        snapshots += other.snapshots
        coalesced += other.coalesced
        events += other.events
        errors += other.errors
        summaries += other.summaries
        checkpoints += other.checkpoints
        unanswered += other.unanswered
        latency.merge(other.latency)
        sendLag.merge(other.sendLag)
        startLatency.merge(other.startLatency)
        drops += other.drops
        resumes += other.resumes
        resumeLatency.merge(other.resumeLatency)
        eventKinds.merge(other.eventKinds, uniquingKeysWith: +)
        errorCodes.merge(other.errorCodes, uniquingKeysWith: +)
        closes.merge(other.closes, uniquingKeysWith: +)
        unexpectedCloses += other.unexpectedCloses
        connectFailures.merge(other.connectFailures, uniquingKeysWith: +)
    }

    /// Anything that went wrong: refused or failed connections, `error` messages, closes before `stop`.
    var problems: Int { connectFailureCount + errors + unexpectedCloses }
}
