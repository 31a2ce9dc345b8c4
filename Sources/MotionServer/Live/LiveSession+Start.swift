import MotionCore
import MotionWire
import SessionStore

/// Starting (docs/protocol.md §3): a `start` makes the session, written durably before `started` is sent; a programme
/// item's `start` (§5.3) reads the programme first, with the socket paused so nothing overtakes it.
extension LiveSession {
    /// Starts a programme item's session (``ProgrammeStart``); a refusal is answered like any `start`'s, and the
    /// connection stays open for another.
    func beginProgramme(_ start: StartRequest) async {
        do throws(WireError) {
            let resolved = try await ProgrammeStart.resolve(start, caller: caller, context: context)
            // The client may have gone while the programme was read: nothing is started for nobody.
            guard state.connected else {
                resuming = nil
                return
            }
            if let resolved {
                try begin(resolved.start, exercise: resolved.exercise)
            } else {
                try begin(start)
            }
            resuming = nil
            return
        } catch {
            analysis.audience.tell(error, frame: state.messageNumber)
            countRefusal()
        }
        resuming = nil
        socket.resumeReading()
    }

    func begin(_ start: StartRequest, exercise: Exercise? = nil) throws(WireError) {
        try state.requireFirstMessage()
        let token = ResumeToken.generate()
        let session =
            if let exercise {
                try SessionCore(
                    start: start, tenant: tenant, now: context.clock(), exercise: exercise,
                    tokenDigest: ResumeToken.digest(of: token))
            } else {
                try SessionCore(
                    start: start, tenant: tenant, now: context.clock(), exercises: context.exercises,
                    tokenDigest: ResumeToken.digest(of: token))
            }
        try state.start()
        analysis.running = RunningSession(session)
        configure(for: start)
        context.live.insert(self, id: session.id, tokenDigest: session.tokenDigest ?? [], connected: true)
        context.metrics.sessionOpened()
        // `started` waits for the session's row to be durable (one group commit, milliseconds), so that from the
        // moment the client knows its id every node finds it: a watcher, a REST read, a resume after this node dies.
        // What the client sends meanwhile waits in the socket, in order.
        socket.pauseReading()
        writeThen(.create(session.newRecord)) { $0.created(stored: $1, token: token) }
    }

    /// The session's create was written (or failed): `started`, and the client's next messages are read; or
    /// `storeUnavailable` and 1011, which says to start again (docs/protocol.md §3), and the session is dropped unstored.
    private func created(stored: Bool, token: String) {
        guard let core = analysis.core else { return }
        switch state.created(stored: stored) {
        case .none: return
        case .notStored:
            timers.cancel()
            context.live.remove(core.id, holder: self)
            context.metrics.sessionClosed()
            analysis.audience.closeUnstored(
                "the session could not be stored; start again", reason: "session not stored", frame: state.messageNumber
            )
        case .started:
            analysis.tellStarted(token: token, window: context.limits.resumeWindow)
            socket.resumeReading()
        }
    }
}
