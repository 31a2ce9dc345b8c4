import HTTPWire
import Testing

@Suite struct WebSocketLifecycleTests {
    typealias Lifecycle = WebSocketLifecycle

    @Test func theServerClosesAndFinishesWhenThePeerAnswers() {
        var lifecycle = Lifecycle(role: .server)
        let step1 = lifecycle.close(code: .normal, reason: "bye")
        #expect(step1 == .sendClose(.normal, reason: "bye"))
        let step2 = lifecycle.close(code: .goingAway, reason: "again")
        #expect(step2 == nil, "one close frame only")
        #expect(!lifecycle.isOpen && lifecycle.readsFrames, "no messages after our close, but the peer's is read")
        let step3 = lifecycle.outputDrained()
        #expect(step3 == nil, "the close frame has left: wait for the peer's")
        let step4 = lifecycle.receivedClose(code: .normal, reason: "")
        #expect(step4 == .finish, "the server closes TCP first")
        #expect(lifecycle.peerClose == .init(code: .normal, reason: ""))
        let step5 = lifecycle.finished()
        #expect(step5)
        let secondEnd = lifecycle.finished()
        #expect(!secondEnd, "the close is reported once")
    }

    @Test func theClientWaitsForTheServerToCloseTCP() {
        var lifecycle = Lifecycle(role: .client)
        let step6 = lifecycle.close(code: .normal, reason: "")
        #expect(step6 != nil)
        let step7 = lifecycle.receivedClose(code: .normal, reason: "")
        #expect(step7 == nil, "the server closes first")
        #expect(lifecycle.state == .closeReceived(finishAfterFlush: true))
    }

    @Test func thePeersCloseIsEchoedWithItsCode() {
        var server = Lifecycle(role: .server)
        let step8 = server.receivedClose(code: .goingAway, reason: "away")
        #expect(step8 == .sendClose(.goingAway, reason: ""))
        #expect(!server.readsFrames, "frames after the peer's close are ignored")
        let step9 = server.outputDrained()
        #expect(step9 == .finish, "the server closes once its echo has left")

        var withoutCode = Lifecycle(role: .server)
        let step10 = withoutCode.receivedClose(code: nil, reason: "")
        #expect(step10 == .sendClose(.normal, reason: ""))
        #expect(withoutCode.peerClose?.code == nil, "reported as 1006/none, echoed as 1000")

        var client = Lifecycle(role: .client)
        let step11 = client.receivedClose(code: .normal, reason: "")
        #expect(step11 == .sendClose(.normal, reason: ""))
        let step12 = client.outputDrained()
        #expect(step12 == nil, "a client waits for the server to close")
        let step13 = client.receivedClose(code: .normal, reason: "")
        #expect(step13 == nil, "a second close frame is ignored")
    }

    @Test func aFailingServerShutsItsWriteSideAndDiscards() {
        var lifecycle = Lifecycle(role: .server)
        let step14 = lifecycle.fail(code: .protocolError, reason: "bad")
        #expect(step14 == .sendClose(.protocolError, reason: "bad"))
        let step15 = lifecycle.outputDrained()
        #expect(step15 == .shutdownWrite)
        #expect(lifecycle.discardsInput && !lifecycle.readsFrames)
        let step16 = lifecycle.outputDrained()
        #expect(step16 == nil)
        let step17 = lifecycle.fail(code: .policyViolation, reason: "")
        #expect(step17 == nil)
    }

    @Test func aFailingClientFinishesOnceItsCloseHasLeft() {
        var lifecycle = Lifecycle(role: .client)
        let step18 = lifecycle.fail(code: .messageTooBig, reason: "")
        #expect(step18 != nil)
        let step19 = lifecycle.outputDrained()
        #expect(step19 == .finish)
    }

    @Test func failingAfterAnOrderlyCloseEndsAfterTheFlush() {
        var lifecycle = Lifecycle(role: .server)
        _ = lifecycle.close(code: .normal, reason: "")
        let step20 = lifecycle.fail(code: .policyViolation, reason: "too slow")
        #expect(step20 == nil, "no second close frame")
        let step21 = lifecycle.outputDrained()
        #expect(step21 == .shutdownWrite)
    }

    @Test func nothingHappensAfterTheEnd() {
        var lifecycle = Lifecycle(role: .server)
        let step22 = lifecycle.finished()
        #expect(step22)
        let step23 = lifecycle.close(code: .normal, reason: "")
        #expect(step23 == nil)
        let step24 = lifecycle.fail(code: .normal, reason: "")
        #expect(step24 == nil)
        let step25 = lifecycle.receivedClose(code: .normal, reason: "")
        #expect(step25 == nil)
        let step26 = lifecycle.outputDrained()
        #expect(step26 == nil)
        #expect(lifecycle.isClosed && !lifecycle.isOpen && !lifecycle.readsFrames)
    }

    @Test func keepAliveByTheClock() {
        var lifecycle = Lifecycle(role: .server)
        func decide(_ seconds: Int) -> Lifecycle.KeepAlive {
            lifecycle.keepAlive(silentFor: .seconds(seconds), pingInterval: .seconds(30), idleTimeout: .seconds(90))
        }
        #expect(decide(0) == .wait)
        #expect(decide(29) == .wait)
        #expect(decide(30) == .ping)
        #expect(decide(89) == .ping)
        #expect(decide(90) == .closeIdle)
        _ = lifecycle.close(code: .normal, reason: "")
        #expect(decide(10_000) == .stop, "a closing connection is not pinged or timed out again")
    }
}
