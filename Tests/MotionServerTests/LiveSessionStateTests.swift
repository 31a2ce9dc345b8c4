import MotionWire
import Testing

@testable import MotionServer

/// The live session's machine on its own (docs/protocol.md §3, §3.1): no socket, no store, no clock — every time is
/// an input.
@Suite("LiveSessionState")
struct LiveSessionStateTests {
    static let second: UInt64 = 1_000_000_000

    static func machine(_ change: (inout LiveLimits) -> Void = { _ in }) -> LiveSessionState {
        var limits = LiveLimits()
        change(&limits)
        return LiveSessionState(limits: .init(limits), now: 0)
    }

    /// A machine whose session runs, its client connected.
    static func running(_ change: (inout LiveLimits) -> Void = { _ in }) throws -> LiveSessionState {
        var state = machine(change)
        try state.start()
        let creation = state.created(stored: true)
        #expect(creation == .started)
        return state
    }

    /// The code of the error `body` throws, nil if it throws none.
    static func code(_ body: () throws -> Void) -> ErrorCode? {
        do {
            try body()
            return nil
        } catch {
            return (error as? WireError)?.code
        }
    }

    @Test func theFirstMessageIsStartOrResumeAndOnlyOnce() throws {
        var state = Self.machine()
        #expect(Self.code { try state.requireSession() } == .notStarted, "a pose before start")
        #expect(Self.code { try state.stop() } == .notStarted, "stop before start")
        try state.start()
        #expect(state.phase == .creating)
        #expect(Self.code { try state.start() } == .alreadyStarted)
        #expect(Self.code { try state.resumeBegins() } == .alreadyStarted)
        #expect(Self.code { try state.requireSession() } == nil, "frames may follow start at once")

        var resuming = Self.machine()
        try resuming.resumeBegins()
        #expect(resuming.phase == .resuming)
        #expect(Self.code { try resuming.requireSession() } == .notStarted, "no session until it arrives")
        #expect(Self.code { try resuming.start() } == .alreadyStarted)
    }

    @Test func aSessionRunsOnceItsRowIsStored() throws {
        var state = Self.machine()
        try state.start()
        let creation = state.created(stored: true)
        #expect(creation == .started)
        #expect(state.phase == .running)
        #expect(state.holdsSession)
        #expect(state.tellsCheckpoints)
    }

    @Test func aSessionNotStoredEndsAndIsNotHeld() throws {
        var state = Self.machine()
        try state.start()
        let creation = state.created(stored: false)
        #expect(creation == .notStored)
        #expect(state.phase == .ended(.notStored))
        #expect(!state.holdsSession)
        #expect(Self.code { try state.requireSession() } == .notStarted)
        let creation2 = state.created(stored: true)
        #expect(creation2 == .none, "a late outcome changes nothing")
    }

    @Test func stopEndsTheSessionOnce() throws {
        var state = try Self.running()
        try state.stop()
        #expect(state.phase == .ended(.stopped))
        #expect(state.endedHere, "a resume is told it ended")
        #expect(Self.code { try state.stop() } == .notStarted)
        #expect(Self.code { try state.requireSession() } == .notStarted)
        #expect(state.admission == .join(.summary), "a watcher arriving now gets the summary")
        let abandoned = state.abandon()
        #expect(!abandoned)
        let disconnection = state.connectionClosed(resumable: true)
        #expect(disconnection == .none)
        #expect(state.tick(at: 1_000 * Self.second) == .stop)
    }

    @Test func aDroppedConnectionDetachesAResumableSession() throws {
        var state = try Self.running()
        let disconnection = state.connectionClosed(resumable: true)
        #expect(disconnection == .detach)
        #expect(state.phase == .detached)
        #expect(!state.connected)
        #expect(!state.tellsCheckpoints)
        #expect(state.admission == .join(.disconnected))
        let expired = state.expired()
        #expect(expired)
        #expect(state.phase == .ended(.abandoned))
        let expired2 = state.expired()
        #expect(!expired2, "the window ends a session once")
    }

    @Test func aDroppedConnectionAbandonsASessionThatCannotResume() throws {
        var noToken = try Self.running()
        let disconnection = noToken.connectionClosed(resumable: false)
        #expect(disconnection == .abandon)
        #expect(noToken.phase == .ended(.abandoned))

        var noWindow = try Self.running { $0.resumeWindow = .zero }
        let disconnection2 = noWindow.connectionClosed(resumable: true)
        #expect(disconnection2 == .abandon)

        var nothing = Self.machine()
        let disconnection3 = nothing.connectionClosed(resumable: true)
        #expect(disconnection3 == .none, "no session, nothing to end")
    }

    @Test func aDroppedConnectionWhileCreatingDetachesAndTheOutcomeStillCounts() throws {
        var state = Self.machine()
        try state.start()
        let disconnection = state.connectionClosed(resumable: true)
        #expect(disconnection == .detach)
        let creation = state.created(stored: true)
        #expect(creation == .started)
        #expect(state.phase == .detached, "stored, and still waiting for a resume")

        var failed = Self.machine()
        try failed.start()
        _ = failed.connectionClosed(resumable: true)
        let creation2 = failed.created(stored: false)
        #expect(creation2 == .notStored)
        let expired = failed.expired()
        #expect(!expired, "a session never stored does not expire into an abandoned one")
    }

    @Test func aResumeArrivesConnectedOrDetached() throws {
        var state = Self.machine()
        try state.resumeBegins()
        #expect(state.admission == .wait, "watchers wait for the session")
        let arrival = state.resumed(at: 5 * Self.second)
        #expect(arrival == .none)
        #expect(state.phase == .running)

        var dropped = Self.machine()
        try dropped.resumeBegins()
        let disconnection = dropped.connectionClosed(resumable: true)
        #expect(disconnection == .none, "nothing held yet")
        let arrival2 = dropped.resumed(at: 0)
        #expect(arrival2 == .detach, "it arrives detached and waits for the next resume")
        #expect(dropped.phase == .detached)

        var refused = Self.machine()
        try refused.resumeBegins()
        refused.resumeFailed()
        #expect(refused.phase == .ended(.notResumed))
        #expect(!refused.endedHere, "the session was never here")
        #expect(refused.admission == .elsewhere)
    }

    @Test func aSessionIsHandedOverOnce() throws {
        var state = try Self.running()
        let handedOver = state.handOver()
        #expect(handedOver)
        #expect(state.phase == .ended(.handedOver))
        #expect(!state.endedHere)
        #expect(state.admission == .elsewhere, "watchers follow it to its new connection")
        let handedOver2 = state.handOver()
        #expect(!handedOver2)
        let disconnection = state.connectionClosed(resumable: true)
        #expect(disconnection == .none, "the old connection's end is not the session's")

        var detached = try Self.running()
        _ = detached.connectionClosed(resumable: true)
        let handedOver3 = detached.handOver()
        #expect(handedOver3, "a detached session is handed over")
        let expired = detached.expired()
        #expect(!expired, "and its window no longer ends it")
    }

    @Test func twoHundredRefusalsInARowAreAbuseAndATakenMessageStartsTheCountOver() throws {
        var state = try Self.running()
        for _ in 1..<200 {
            let abusive = state.refused()
            #expect(!abusive)
        }
        state.accepted()
        for _ in 1..<200 {
            let abusive = state.refused()
            #expect(!abusive)
        }
        let abusive = state.refused()
        #expect(abusive, "the 200th in a row")
        let abandoned = state.abandon()
        #expect(abandoned)
        #expect(state.phase == .ended(.abandoned))
    }

    @Test func aSilentClientIsClosedAtTheIdleTimeout() throws {
        var state = try Self.running { $0.idleTimeout = .seconds(120) }
        #expect(state.tick(at: 119 * Self.second) == .checkpoint)
        #expect(state.tick(at: 120 * Self.second) == .closeIdle)
        state.messageArrived(at: 120 * Self.second)
        #expect(state.messageNumber == 1)
        #expect(state.tick(at: 239 * Self.second) == .checkpoint, "a message starts the silence over")
        #expect(state.tick(at: 240 * Self.second) == .closeIdle)

        var opening = Self.machine { $0.idleTimeout = .seconds(10) }
        #expect(opening.tick(at: 10 * Self.second) == .closeIdle, "a connection that never starts is idle too")
        try opening.resumeBegins()
        _ = opening.resumed(at: 10 * Self.second)
        #expect(opening.tick(at: 15 * Self.second) == .checkpoint, "a resume counts as a message")
    }

    @Test func aFastClientIsPausedUntilBothBudgetsRefillToAQuarter() throws {
        var state = try Self.running {
            $0.framesPerSecond = 8
            $0.motionSamplesPerSecond = 100
        }
        let pause = state.spend(frames: 16, at: 0)
        #expect(pause == nil, "the burst is twice the rate")
        let pause2 = state.spend(frames: 1, at: 0)
        #expect(pause2 == .milliseconds(625), "from −1 to a quarter of 16 at 8/s")
        #expect(state.flowPaused)
        let pause3 = state.spend(frames: 1, at: 0)
        #expect(pause3 == nil, "paused once, whatever was read already")
        state.flowResumed()
        #expect(!state.flowPaused)
        let pause4 = state.spend(samples: 250, at: 6 * Self.second / 10)
        #expect(pause4 != nil, "samples have their own budget")
    }

    @Test func snapshotsGoToTheClientAsItsOptionAsks() throws {
        var state = try Self.running()
        state.configure(snapshots: .interval(0.5))
        #expect(state.wantsSnapshot(force: false, watched: false))
        let toClient = state.snapshotGoesToClient(at: 1.0, force: false)
        #expect(toClient)
        let toClient2 = state.snapshotGoesToClient(at: 1.4, force: false)
        #expect(!toClient2)
        let toClient3 = state.snapshotGoesToClient(at: 1.4, force: true)
        #expect(toClient3, "a reset or baseline always answers")
        let toClient4 = state.snapshotGoesToClient(at: 2.0, force: false)
        #expect(toClient4)

        state.configure(snapshots: .off)
        #expect(!state.wantsSnapshot(force: false, watched: false), "nothing is computed for nobody")
        #expect(state.wantsSnapshot(force: false, watched: true), "a watcher still gets every snapshot")
        let toClient5 = state.snapshotGoesToClient(at: 3, force: false)
        #expect(!toClient5)
    }
}
