import HTTPServer
import HTTPWire
import MotionCore
import MotionWire
import SessionStore

/// Resuming (docs/protocol.md §3.1): a `resume` on this connection brings a session here, from another actor of this
/// process or from the store, and a session held here is handed over to the connection that resumed it.
extension LiveSession {
    /// Carries out a `resume` (the socket is not read meanwhile, so frames the client sent after it wait in order).
    func resume(_ request: ResumeRequest, started: UInt64) async {
        do throws(WireError) {
            let taken = try await context.takeOver(request, tenant: tenant, for: self)
            adopt(taken.handover, heldUpTo: taken.heldUpTo)
            context.metrics.countResume(taken.source)
            context.metrics.observeResume(source: taken.source, seconds: Double(socket.loop.now() - started) / 1e9)
        } catch {
            context.metrics.countResume(error.code.rawValue)
            analysis.audience.tell(error, frame: state.messageNumber)
            state.resumeFailed()
            analysis.audience.turnAway(SessionID(request.session), cluster: context.cluster)
            // A store failure may pass: 1011 says try again; the other refusals are final (1008).
            let code: WebSocketCloseCode = error.code == .storeUnavailable ? .internalError : .policyViolation
            socket.close(code: code, reason: error.code.rawValue)
        }
        resuming = nil
        socket.resumeReading()
    }

    /// Takes over a session handed over by its previous holder (or restored from the store) and tells the client
    /// (`resumed`, then a snapshot) and the watchers (`connection`, then the snapshot).
    private func adopt(_ handover: Handover, heldUpTo t: Double?) {
        let core = handover.core
        analysis.running = RunningSession(core)
        analysis.audience.welcome(handover, cluster: context.cluster)
        writes = WriteChain(after: handover.lastWrite)
        configure(for: core.start)
        analysis.tellResumed(heldUpTo: t)
        let detached = state.resumed(at: socket.loop.time) == .detach
        context.live.insert(self, id: core.id, tokenDigest: core.tokenDigest ?? [], connected: !detached)
        if detached { return detach() }
        writeThen(.connection(true))
        analysis.audience.tellWatchers { WireEncoder.encodeConnection(connected: true, into: &$0) }
        analysis.sendSnapshot(force: true, state: &state)
    }

    /// Gives this actor's session to a connection that resumed it: cancels this actor's timers and closes its
    /// connection with 4001 if it is still open. A restore still in progress here finishes first.
    /// - Returns: The session, or nil when this actor no longer holds one (it ended, or moved on).
    func handOver() async -> Handover? {
        if let resuming { await resuming.value }
        guard let running = analysis.running, state.handOver() else { return nil }
        analysis.running = nil
        timers.cancel()
        let handover = Handover(core: running.core, watchers: analysis.audience.watchers, lastWrite: writes.last)
        analysis.audience.watchers = SessionWatchers()
        if state.connected { socket.close(code: .takenOver, reason: "resumed on another connection") }
        return handover
    }
}
