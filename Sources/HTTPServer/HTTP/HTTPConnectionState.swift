import NetCore

/// The lifecycle of one HTTP/1.1 connection — waiting, reading a request, answering it, closing — and every decision
/// on it (keep-alive, which timeout runs, when to stop reading, when the next request may start, how to close), with
/// no I/O: ``HTTPConnection`` reports what happened and does what it answers. Parsing is the parser's, the bytes
/// on their way out are ``HTTPOutput``'s.
///
/// Five rules shape it:
/// - a connection holds at most ``ConnectionBudget/readAheadBytes`` of unparsed input, whatever its phase: past it the socket
///   is not read until parsing has taken some (TCP then slows the client down), so a client that sends without
///   reading holds that much and one response, never more;
/// - requests are answered one at a time, in order: input read while a handler runs is buffered, not parsed;
/// - a connection that has sent nothing gets the head timeout from its accept, not the idle timeout: a silent client
///   holds its slot no longer than a slow one;
/// - a response that keeps the connection lets the next request start only once it has left entirely;
/// - a request still incomplete when the client stops sending can never complete: the connection closes;
/// - the last response is followed by a lingering close (nginx's): the write side is shut down and what the client
///   still sends is dropped for a bounded time and size, so the kernel does not answer it with a reset that destroys
///   the response before the client reads it.
///
/// ```swift
/// var state = HTTPConnectionState(limits: .init(budget: ConnectionBudget(), maxLingeringBytes: 65_536))
/// state.initialTimeout             // .head: from the accept, the first head must arrive in time
/// state.requestBegins()            // the first request's bytes (its head timer runs already)
/// state.requestReceived()          // the handler runs; no timeout
/// state.responseWritten(keepAlive: true, upgrade: false)
/// state.outputDrained()            // .nextRequest: the response has left
/// ```
package struct HTTPConnectionState: Sendable {
    /// Where the connection is.
    package enum Phase: Equatable, Sendable {
        /// Between requests, nothing buffered.
        case idle
        /// A request is arriving.
        case reading
        /// Its handler runs, or its response leaves with the connection kept; input is buffered but not parsed.
        case handling
        /// The last response leaves; then the connection closes, or is handed over when `upgrade`.
        case closing(upgrade: Bool)
        /// The last response has left and the write side is shut down; input is dropped until the client closes, a
        /// bound is reached or the lingering timeout fires.
        case lingering
        /// The socket is closed, or handed over.
        case closed
    }

    /// The timer the connection runs: each phase has at most one.
    package enum Timeout: Equatable, Sendable {
        /// Between requests (``HTTPServerConfiguration/idleTimeout``).
        case idle
        /// From a request's first byte to its complete head (``HTTPServerConfiguration/headTimeout``).
        case head
        /// From the head to the end of the body (``HTTPServerConfiguration/bodyTimeout``).
        case body
        /// After the last response (``HTTPServerConfiguration/lingeringTimeout``).
        case lingering
    }

    /// What to do with bytes just read.
    package enum Input: Equatable, Sendable {
        /// Hand them to the parser.
        case parse
        /// Drop them and read on.
        case drop
        /// Drop them and stop reading: the client has sent more than the lingering bound while its last response
        /// leaves (the connection closes once it has).
        case stopReading
        /// Drop them and close: the bound is reached while lingering.
        case close
    }

    /// What the connection must do after a step.
    package enum Action: Equatable, Sendable {
        /// Start the next request: arm the idle timer, read again if reading was paused, parse what is buffered.
        case nextRequest(resumeReading: Bool)
        /// Hand the socket to the upgrade handler.
        case handOver
        /// Shut the write side down, arm the lingering timer and read (and drop) what still arrives.
        case linger
        /// Answer `408 Request Timeout` and close.
        case respondTimeout
        /// Close the socket.
        case close
    }

    /// The bounds the decisions depend on.
    package struct Limits: Sendable {
        /// What the connection may hold; its ``ConnectionBudget/readAheadBytes`` of unparsed input pauses reading, in
        /// every phase.
        package var budget: ConnectionBudget
        /// Input dropped around the last response before the connection stops reading or closes.
        package var maxLingeringBytes: Int

        /// Bounds from the server's configuration.
        package init(budget: ConnectionBudget, maxLingeringBytes: Int) {
            self.budget = budget
            self.maxLingeringBytes = maxLingeringBytes
        }
    }

    package let limits: Limits
    package private(set) var phase = Phase.idle
    /// Whether the client has closed its side: nothing more will arrive.
    package private(set) var inputEnded = false
    /// Whether reading is paused because the budget's read-ahead is buffered.
    package private(set) var readingPaused = false
    /// Whether a request has begun on the connection: until then the head timeout runs from the accept.
    private var anyRequest = false
    /// Whether the response being written is complete: the next request waits only for it to leave.
    private var responseComplete = false
    /// Input dropped since the last response began to close the connection.
    private var discarded = 0

    /// A connection that has just been accepted; arm ``initialTimeout``.
    package init(limits: Limits) {
        self.limits = limits
    }

    /// The timer of a connection just accepted: the head timeout, as if its first request had begun (a client that
    /// connects and sends nothing is as slow as one that sends a head byte by byte).
    package var initialTimeout: Timeout { .head }

    /// Whether a request may be parsed from buffered input now.
    package var parsesInput: Bool { phase == .idle || phase == .reading }

    /// Whether the socket is closed.
    package var isClosed: Bool { phase == .closed }

    /// Whether the connection should be reading the socket (it is being told to stop or pause otherwise).
    package var readsInput: Bool { !readingPaused && !inputEnded && phase != .closed }

    // MARK: Reading

    /// `count` bytes have been read.
    package mutating func received(_ count: Int) -> Input {
        switch phase {
        case .closing, .lingering:
            discarded += count
            guard discarded > limits.maxLingeringBytes else { return .drop }
            return phase == .lingering ? .close : .stopReading
        case .idle, .reading, .handling, .closed:
            return .parse
        }
    }

    /// How many bytes the next read may take: what the budget's read-ahead leaves beside the `buffered` unparsed
    /// bytes (0: stop reading).
    package func readAllowance(buffered: Int) -> Int {
        limits.budget.readRoom(holding: buffered)
    }

    /// The parser now holds `buffered` unparsed bytes.
    /// - Returns: Whether to stop reading: the buffer is at its bound (parsing, or the next request, makes room).
    package mutating func buffered(_ buffered: Int) -> Bool {
        guard phase != .closed, phase != .lingering, buffered >= limits.budget.readAheadBytes else { return false }
        readingPaused = true
        return true
    }

    /// Parsing has left `buffered` unparsed bytes.
    /// - Returns: Whether to read again: reading was paused for the bound, and a request may be parsed from what
    ///   comes (while a handler runs, reading waits for ``outputDrained()``).
    package mutating func roomForInput(buffered: Int) -> Bool {
        guard readingPaused, parsesInput, !inputEnded, buffered < limits.budget.readAheadBytes else { return false }
        readingPaused = false
        return true
    }

    /// The client has closed its side.
    /// - Returns: `.close` while lingering (the response is safe); nil otherwise (stop reading: under level-triggered
    ///   epoll the end of input stays readable, and the connection would spin).
    package mutating func receivedEnd() -> Action? {
        if phase == .lingering { return .close }
        inputEnded = true
        return nil
    }

    /// A request's first bytes are in (in the parser, or held by TLS as part of a record).
    /// - Returns: `.head` when this starts a request after the first (arm the head timer); nil when one is already
    ///   arriving, or for the first request, whose head timer has run since the accept (``initialTimeout``).
    package mutating func requestBegins() -> Timeout? {
        guard phase == .idle else { return nil }
        phase = .reading
        // The first request's head timer has run since the accept.
        defer { anyRequest = true }
        return anyRequest ? .head : nil
    }

    /// The request's head is complete: the body timer runs.
    package func headReceived() -> Timeout { .body }

    /// The whole request is in: its handler runs, with no timeout.
    package mutating func requestReceived() {
        phase = .handling
    }

    /// Parsing stopped for want of input (or a request was dispatched).
    /// - Returns: `.close` when the client has stopped sending and no request is being answered: one incomplete
    ///   can never complete.
    package func inputConsumed() -> Action? {
        inputEnded && parsesInput ? .close : nil
    }

    // MARK: Responding

    /// Whether the response about to be written keeps the connection.
    /// - Parameters:
    ///   - requested: The request allows it (HTTP/1.1 without `Connection: close`, or 1.0 with `keep-alive`).
    ///   - draining: The server is shutting down.
    ///   - upgrade: The response hands the connection over (a `101` with a handler, or a `101` without one, which
    ///     cannot keep a connection that has switched protocols either).
    package func keepsAlive(requested: Bool, draining: Bool, upgrade: Bool) -> Bool {
        requested && !draining && !inputEnded && !upgrade
    }

    /// The response's head, and its body when it has one, are queued.
    /// - Parameters:
    ///   - keepAlive: Whether the connection is kept (``keepsAlive(requested:draining:upgrade:)``).
    ///   - upgrade: Whether the connection is handed over once the response has left.
    ///   - complete: Whether the whole response is queued (false for a body still streaming).
    /// - Returns: Nothing: once the output has left, ``outputDrained()`` says what follows.
    package mutating func responseWritten(keepAlive: Bool, upgrade: Bool, complete: Bool = true) {
        guard phase == .handling else { return }
        if upgrade {
            phase = .closing(upgrade: true)
        } else if !keepAlive {
            phase = .closing(upgrade: false)
        }
        responseComplete = complete
    }

    /// A streamed body has ended: its last chunk is queued.
    package mutating func streamEnded(keepAlive: Bool) {
        guard phase == .handling else { return }
        if !keepAlive { phase = .closing(upgrade: false) }
        responseComplete = true
    }

    /// The connection answers with an error of its own (a malformed request, a timeout, an invalid response) and
    /// closes after it.
    package mutating func respondingAndClosing() {
        guard phase != .closed, phase != .lingering else { return }
        phase = .closing(upgrade: false)
    }

    /// Every queued byte has left.
    /// - Returns: `.nextRequest` once a kept connection's complete response has left; `.handOver` or `.linger` once
    ///   the last one has; nil otherwise.
    package mutating func outputDrained() -> Action? {
        switch phase {
        case .closing(upgrade: true):
            phase = .closed
            return .handOver
        case .closing(upgrade: false):
            return linger()
        case .handling where responseComplete:
            return nextRequest()
        case .idle, .reading, .handling, .lingering, .closed:
            return nil
        }
    }

    private mutating func nextRequest() -> Action {
        responseComplete = false
        phase = .idle
        let resume = readingPaused
        readingPaused = false
        return .nextRequest(resumeReading: resume && !inputEnded)
    }

    /// Whether a connection between requests should close instead of waiting for another: the server is draining
    /// and nothing is buffered.
    package func closesWhenIdle(draining: Bool, buffered: Int) -> Bool {
        phase == .idle && draining && buffered == 0
    }

    private mutating func linger() -> Action {
        guard !inputEnded, discarded <= limits.maxLingeringBytes else { return .close }
        phase = .lingering
        return .linger
    }

    // MARK: Timers and closing

    /// A timer armed for `timeout` has fired.
    /// - Parameter outputEmpty: Whether nothing waits to be written (a 408 can still be sent).
    /// - Returns: `.respondTimeout` for a request too slow to arrive; `.close` for an idle, lingering or otherwise
    ///   stuck connection; nil for a timer the connection has moved past.
    package mutating func timerFired(_ timeout: Timeout, outputEmpty: Bool) -> Action? {
        switch (timeout, phase) {
        case (.idle, .idle), (.lingering, .lingering):
            return .close
        case (.head, .idle) where !anyRequest:
            // Connected and silent since the accept: nothing to answer.
            return .close
        case (.head, .reading), (.body, .reading):
            guard outputEmpty else { return .close }
            phase = .closing(upgrade: false)
            return .respondTimeout
        default:
            return nil
        }
    }

    /// The server is shutting down.
    /// - Parameter requestStarted: Whether part of a request has been parsed (it is then answered first).
    /// - Returns: `.close` when no request is under way; nil when the current one is answered first (it closes
    ///   after, as ``keepsAlive(requested:draining:upgrade:)`` sees the drain).
    package func drain(requestStarted: Bool) -> Action? {
        switch phase {
        case .idle: .close
        case .reading: requestStarted ? nil : .close
        case .handling, .closing, .lingering, .closed: nil
        }
    }

    /// The socket has been closed (after `.close`, a failure, a hang-up or the server's forced close).
    /// - Returns: Whether it was open until now.
    package mutating func closed() -> Bool {
        guard phase != .closed else { return false }
        phase = .closed
        return true
    }
}
