import HTTPServer
import Testing

/// The connection's decisions, without sockets or clocks.
@Suite struct HTTPConnectionStateTests {
    typealias State = HTTPConnectionState

    static func fresh(buffered: Int = 100, lingering: Int = 50) -> State {
        State(
            limits: .init(
                budget: ConnectionBudget(readAheadBytes: buffered, pendingOutputBytes: 1 << 20, kernelUnsentBytes: 0),
                maxLingeringBytes: lingering))
    }

    /// A connection that has received a whole request and is running its handler.
    static func handling() -> State {
        var state = fresh()
        _ = state.requestBegins()
        state.requestReceived()
        return state
    }

    @Test func aKeptConnectionStartsTheNextRequestOnceTheResponseHasLeft() {
        var state = Self.fresh()
        #expect(state.phase == .idle && state.parsesInput)
        #expect(state.initialTimeout == .head, "from the accept, the first head must arrive in time")
        let begins = state.requestBegins()
        #expect(begins == nil, "the first request's head timer has run since the accept")
        let again = state.requestBegins()
        #expect(again == nil, "one request at a time: the head timer is not re-armed")
        #expect(state.headReceived() == .body)
        state.requestReceived()
        #expect(state.phase == .handling && !state.parsesInput, "pipelined input waits")
        state.responseWritten(keepAlive: true, upgrade: false)
        #expect(state.phase == .handling, "the response is still leaving")
        let drained = state.outputDrained()
        #expect(drained == .nextRequest(resumeReading: false))
        #expect(state.phase == .idle)
        let none = state.outputDrained()
        #expect(none == nil, "nothing follows a drain between requests")
        let second = state.requestBegins()
        #expect(second == .head, "the next request's head timer starts with its first byte")
    }

    @Test func outputThatLeavesWhileARequestArrivesChangesNothing() {
        var state = Self.fresh()
        _ = state.requestBegins()
        // A 100 Continue left before the body.
        let drained = state.outputDrained()
        #expect(drained == nil)
        #expect(state.phase == .reading)
    }

    @Test func aStreamedResponseIsCompleteOnlyWhenItsStreamEnds() {
        var state = Self.handling()
        let early = state.outputDrained()
        #expect(early == nil, "chunks so far have left; more follow")
        state.streamEnded(keepAlive: true)
        let drained = state.outputDrained()
        #expect(drained == .nextRequest(resumeReading: false))

        var closing = Self.handling()
        closing.streamEnded(keepAlive: false)
        let last = closing.outputDrained()
        #expect(last == .linger)
    }

    @Test func keepAliveNeedsTheRequestsConsentAndNoDrainNoEndNoUpgrade() {
        let state = Self.handling()
        #expect(state.keepsAlive(requested: true, draining: false, upgrade: false))
        #expect(!state.keepsAlive(requested: false, draining: false, upgrade: false))
        #expect(!state.keepsAlive(requested: true, draining: true, upgrade: false))
        #expect(!state.keepsAlive(requested: true, draining: false, upgrade: true))
        var ended = Self.handling()
        _ = ended.receivedEnd()
        #expect(!ended.keepsAlive(requested: true, draining: false, upgrade: false), "the client has closed its side")
    }

    @Test func theLastResponseIsFollowedByALingeringClose() {
        var state = Self.handling()
        state.responseWritten(keepAlive: false, upgrade: false)
        #expect(state.phase == .closing(upgrade: false))
        let drained = state.outputDrained()
        #expect(drained == .linger)
        #expect(state.phase == .lingering)
        let dropped = state.received(10)
        #expect(dropped == .drop)
        let timer = state.timerFired(.lingering, outputEmpty: true)
        #expect(timer == .close)
    }

    @Test func lingeringEndsWhenTheClientClosesOrSendsTooMuch() {
        var ends = Self.handling()
        ends.responseWritten(keepAlive: false, upgrade: false)
        _ = ends.outputDrained()
        let end = ends.receivedEnd()
        #expect(end == .close)

        var floods = Self.handling()
        floods.responseWritten(keepAlive: false, upgrade: false)
        _ = floods.outputDrained()
        let first = floods.received(50)
        #expect(first == .drop, "the bound itself is allowed")
        let second = floods.received(1)
        #expect(second == .close)
    }

    @Test func inputPastTheBoundWhileTheLastResponseLeavesStopsReadingThenCloses() {
        var state = Self.handling()
        state.responseWritten(keepAlive: false, upgrade: false)
        let dropped = state.received(51)
        #expect(dropped == .stopReading)
        let drained = state.outputDrained()
        #expect(drained == .close, "no lingering once the bound is spent")
    }

    @Test func aClientThatHasClosedItsSideGetsItsResponseAndNoLingering() {
        var state = Self.handling()
        let end = state.receivedEnd()
        #expect(end == nil, "the response is still due")
        #expect(!state.readsInput)
        #expect(state.inputConsumed() == nil, "a request is being answered")
        let keepAlive = state.keepsAlive(requested: true, draining: false, upgrade: false)
        state.responseWritten(keepAlive: keepAlive, upgrade: false)
        let drained = state.outputDrained()
        #expect(drained == .close)
    }

    @Test func anIncompleteRequestClosesWhenTheClientStopsSending() {
        var state = Self.fresh()
        _ = state.requestBegins()
        _ = state.receivedEnd()
        #expect(state.inputConsumed() == .close)
        var idle = Self.fresh()
        _ = idle.receivedEnd()
        #expect(idle.inputConsumed() == .close)
    }

    @Test func readingPausesAtTheBoundWhileAResponseIsPendingAndResumesAfter() {
        var state = Self.fresh()
        #expect(state.readAllowance(buffered: 30) == 70, "a read takes what the bound leaves")
        #expect(state.readAllowance(buffered: 130) == 0)
        let whileReading = state.buffered(500)
        #expect(whileReading, "the bound holds in every phase: a client that only sends holds no more")
        let stillFull = state.roomForInput(buffered: 100)
        #expect(!stillFull)
        let room = state.roomForInput(buffered: 40)
        #expect(room && !state.readingPaused, "parsing made room: read again")
        state = Self.handling()
        let noRoom = state.roomForInput(buffered: 0)
        #expect(!noRoom, "while a handler runs, reading resumes only when its response has left")
        let under = state.buffered(99)
        #expect(!under)
        let at = state.buffered(100)
        #expect(at && state.readingPaused && !state.readsInput)
        state.responseWritten(keepAlive: true, upgrade: false)
        let drained = state.outputDrained()
        #expect(drained == .nextRequest(resumeReading: true))
        #expect(!state.readingPaused)

        var ended = Self.handling()
        _ = ended.buffered(100)
        _ = ended.receivedEnd()
        ended.responseWritten(keepAlive: true, upgrade: false)
        let after = ended.outputDrained()
        #expect(after == .nextRequest(resumeReading: false), "no reading resumes after the client's end")
    }

    @Test func anUpgradeHandsTheSocketOverOnceTheResponseHasLeft() {
        var state = Self.handling()
        state.responseWritten(keepAlive: false, upgrade: true)
        #expect(state.phase == .closing(upgrade: true))
        let drained = state.outputDrained()
        #expect(drained == .handOver)
        #expect(state.isClosed)
        let closed = state.closed()
        #expect(!closed, "a handed-over socket is not closed here")
    }

    @Test func timersActOnlyInTheirOwnPhase() {
        var silent = Self.fresh()
        let unanswered = silent.timerFired(.head, outputEmpty: true)
        #expect(unanswered == .close, "a connection silent since its accept closes at the head timeout")

        var idle = Self.handling()
        idle.responseWritten(keepAlive: true, upgrade: false)
        _ = idle.outputDrained()
        let stale = idle.timerFired(.head, outputEmpty: true)
        #expect(stale == nil, "a head timer of the last request, between requests")
        let fired = idle.timerFired(.idle, outputEmpty: true)
        #expect(fired == .close)

        var reading = Self.fresh()
        _ = reading.requestBegins()
        let late = reading.timerFired(.idle, outputEmpty: true)
        #expect(late == nil, "an idle timer that fired as a request began")
        let head = reading.timerFired(.head, outputEmpty: true)
        #expect(head == .respondTimeout)
        #expect(reading.phase == .closing(upgrade: false))

        var continued = Self.fresh()
        _ = continued.requestBegins()
        let body = continued.timerFired(.body, outputEmpty: false)
        #expect(body == .close, "a 100 Continue still leaving: no room for a 408")

        var handling = Self.handling()
        let none = handling.timerFired(.body, outputEmpty: true)
        #expect(none == nil, "a handler has no timeout")
    }

    @Test func drainingClosesIdleConnectionsAndLetsRequestsInFlightFinish() {
        #expect(Self.fresh().drain(requestStarted: false) == .close)
        var reading = Self.fresh()
        _ = reading.requestBegins()
        #expect(reading.drain(requestStarted: false) == .close, "only bytes TLS holds: no request yet")
        #expect(reading.drain(requestStarted: true) == nil)
        #expect(Self.handling().drain(requestStarted: true) == nil)
        var between = Self.fresh()
        #expect(between.closesWhenIdle(draining: true, buffered: 0))
        #expect(!between.closesWhenIdle(draining: true, buffered: 10), "a pipelined request is answered first")
        #expect(!between.closesWhenIdle(draining: false, buffered: 0))
        _ = between.requestBegins()
        #expect(!between.closesWhenIdle(draining: true, buffered: 0))
    }

    @Test func errorsOfTheConnectionsOwnCloseAfterTheirResponse() {
        var state = Self.fresh()
        _ = state.requestBegins()
        state.respondingAndClosing()
        let drained = state.outputDrained()
        #expect(drained == .linger)
        let closed = state.closed()
        #expect(closed)
        let again = state.closed()
        #expect(!again, "closed once")
        state.respondingAndClosing()
        #expect(state.isClosed, "nothing reopens a closed connection")
        let input = state.received(1)
        #expect(input == .parse, "bytes after the close are the driver's to ignore")
    }
}

@Suite struct HTTPOutputTests {
    @Test func tracksWhatHasLeftAndResetsOnceEverythingHas() {
        var output = HTTPOutput()
        #expect(output.isEmpty && !output.hasUnsent)
        output.bytes.append(contentsOf: [1, 2, 3, 4, 5])
        let (four, five) = (
            ConnectionBudget(readAheadBytes: 0, pendingOutputBytes: 4, kernelUnsentBytes: 0),
            ConnectionBudget(readAheadBytes: 0, pendingOutputBytes: 5, kernelUnsentBytes: 0)
        )
        #expect(output.unsentCount == 5 && four.isOverOutput(output.unsentCount) && !five.isOverOutput(5))
        output.sent(2)
        let unsent = output.withUnsent { Array($0) }
        #expect(unsent == [3, 4, 5])
        output.truncate(to: 4)
        #expect(output.unsentCount == 2)
        output.sent(10)
        #expect(!output.hasUnsent && !output.isEmpty, "left, but not reset yet")
        output.reset()
        #expect(output.isEmpty && output.written == 0)
    }

    @Test func givesBackTheRoomOfALargeResponse() {
        var output = HTTPOutput()
        output.bytes = [UInt8](repeating: 0, count: 1 << 20)
        output.sent(1 << 20)
        output.reset()
        #expect(output.bytes.capacity < 64 * 1024)
        output.bytes.reserveCapacity(1024)
        let small = output.bytes.capacity
        output.bytes.append(1)
        output.sent(1)
        output.reset()
        #expect(output.bytes.capacity == small, "a small buffer is kept for the next response")
    }
}
