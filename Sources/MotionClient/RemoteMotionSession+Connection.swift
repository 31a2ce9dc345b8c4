import Dispatch
import MotionCore
import MotionWire

/// The close codes the session sends (RFC 6455 §7.4.1).
enum CloseCode {
    static let normal = 1000
    static let goingAway = 1001
    static let protocolError = 1002
}

/// The connection: opening it, the `start` or `resume` handshake, the server's messages, drops and reconnection.
///
/// Connection callbacks run on the transport's thread, one at a time; the state is changed under the session's lock,
/// and nothing that may call back (a close) is done while it is held: sends are queued with the transport in lock
/// order.
extension RemoteMotionSession {
    /// Opens the connection, and again after every drop, until the session ends.
    func drive() async {
        var request = TransportRequest(
            address: server, timeout: configuration.connectTimeout,
            certificateAuthorityFile: configuration.certificateAuthorityFile, verifiesPeer: configuration.verifiesPeer)
        if let token { request.headers.append((name: "Authorization", value: "Bearer \(token)")) }
        var failures = 0
        while !Task.isCancelled, !state.withLock({ $0.isOver }) {
            if failures > 0 {
                guard failures <= configuration.maxReconnectAttempts else {
                    return fail(.reconnectFailed(attempts: failures - 1))
                }
                try? await Task.sleep(for: reconnectDelay(after: failures))
            }
            let connection: any TransportConnection
            do {
                connection = try await transport.connect(request)
            } catch {
                if state.withLock({ $0.sessionID == nil }) { return fail(.connectionFailed(error)) }
                failures += 1
                continue
            }
            failures = await serve(connection) ? 1 : failures + 1
        }
    }

    private func reconnectDelay(after failures: Int) -> Duration {
        var delay = configuration.reconnectDelay
        for _ in 1..<max(1, failures) where delay < configuration.maxReconnectDelay { delay *= 2 }
        return min(delay, configuration.maxReconnectDelay)
    }

    /// Runs one connection until it closes.
    /// - Returns: Whether the server started or resumed the session on it.
    private func serve(_ connection: any TransportConnection) async -> Bool {
        let (closes, closed) = AsyncStream.makeStream(of: Void.self)
        await connection.start(
            onMessage: { [weak self] message in self?.receive(message, on: connection) },
            onClose: { [weak self] code, reason in
                self?.connectionClosed(connection, code: code, reason: reason)
                closed.finish()
            })
        let before: Int? = state.withLock { state in
            guard !state.isOver else { return nil }
            state.connection = connection
            state.ready = false
            state.stopSent = false
            var first: [UInt8] = []
            if let session = state.sessionID, let token = state.resumeToken {
                WireEncoder.encodeResume(ResumeRequest(session: session, token: token), into: &first)
            } else {
                first = start.encoded()
            }
            connection.send(.text(String(decoding: first, as: UTF8.self)))
            return state.readyCount
        }
        guard let before else {
            connection.close(code: CloseCode.goingAway, reason: "")
            return false
        }
        let timeout = configuration.answerTimeout
        let timer = Task { [weak self] in
            try? await Task.sleep(for: timeout)
            guard !Task.isCancelled, let self else { return }
            let (unanswered, started) = state.withLock {
                ($0.connection === connection && !$0.ready, $0.sessionID != nil)
            }
            guard unanswered else { return }
            if started {
                connection.close(code: CloseCode.goingAway, reason: "no answer to resume")
            } else {
                fail(.timedOut)
            }
        }
        for await _ in closes {}
        timer.cancel()
        return state.withLock { $0.readyCount } > before
    }

    // MARK: Messages

    private func receive(_ received: TransportMessage, on connection: any TransportConnection) {
        guard case .text(let text) = received else {
            return violation("a binary message from the server", on: connection)
        }
        let message: ServerMessage
        do {
            message = try ServerMessage(decoding: Array(text.utf8))
        } catch {
            return violation("\(error)", on: connection)
        }
        handle(message, on: connection)
    }

    private func violation(_ reason: String, on connection: any TransportConnection) {
        fail(.protocolViolation(reason))
        connection.close(code: CloseCode.protocolError, reason: "")
    }

    private func handle(_ message: ServerMessage, on connection: any TransportConnection) {
        switch message {
        case .started(let session, let resume):
            let waiters = state.withLock { state -> [CheckedContinuation<Result<Void, RemoteSessionError>, Never>]? in
                guard state.connection === connection, !state.ready, state.sessionID == nil else { return nil }
                state.sessionID = session
                state.resumeToken = resume
                state.binary = configuration.binaryFrames && resume != nil
                state.ready = true
                state.readyCount += 1
                flush(&state)
                defer { state.readyWaiters.removeAll() }
                return state.readyWaiters
            }
            guard let waiters else { return violation("an unexpected started", on: connection) }
            for waiter in waiters { waiter.resume(returning: .success(())) }
            tell(.started(session: session))
        case .resumed(_, let t, let motionT):
            let resent = state.withLock { state -> Int? in
                guard state.connection === connection, !state.ready, state.sessionID != nil else { return nil }
                state.ready = true
                state.readyCount += 1
                defer { flush(&state) }
                return state.outbox.rewind(after: t, motionAfter: motionT)
            }
            guard let resent else { return violation("an unexpected resumed", on: connection) }
            tell(.resumed(t: t, resent: resent))
        case .checkpoint(let t):
            state.withLock { $0.outbox.acknowledge(through: t) }
        case .event(_, let event):
            deliver(event)
        case .snapshot(let snapshot):
            publish(snapshot)
        case .summary(_, var summary):
            // Not stored yet: the server stores the summary after sending it, and its close says how that went.
            state.withLock { state in
                if summary.frames > 0 {
                    summary.firstTimestamp = state.firstPoseTime
                    summary.lastTimestamp = state.outbox.lastPoseTime
                }
                state.receivedSummary = summary
            }
            var last = snapshot
            last.isRunning = false
            publish(last)
        case .error(let code, let text):
            let phase = state.withLock { ($0.ready, $0.sessionID != nil) }
            switch phase {
            case (true, _): tell(.serverError(code: code.rawValue, message: text))
            case (false, false):
                fail(.refused(code: code.rawValue, message: text))
                connection.close(code: CloseCode.normal, reason: "")
            case (false, true):
                fail(.resumeRefused(code: code.rawValue, message: text))
                connection.close(code: CloseCode.normal, reason: "")
            }
        case .other(let type):
            if !state.withLock({ $0.ready }) { violation("\(type) before started", on: connection) }
        }
    }

    /// The connection closed: resume unless the session is over or the close is final.
    private func connectionClosed(_ connection: any TransportConnection, code: Int?, reason: String) {
        enum Next {
            case nothing, reconnect
            case fail(RemoteSessionError)
            case stored(SessionSummary, [CheckedContinuation<Result<SessionSummary, RemoteSessionError>, Never>])
        }
        let next: Next = state.withLock { state in
            guard state.connection === connection else { return .nothing }
            state.connection = nil
            state.ready = false
            if state.isOver { return .nothing }
            // docs/protocol.md §3: the server answers `stop` with the summary, stores it, then closes with 1000. Any other
            // end after the summary (1011 after `storeUnavailable`, a lost connection) leaves it unconfirmed.
            if let summary = state.receivedSummary {
                guard code == 1000 else { return .fail(.closed(code: code, reason: reason)) }
                state.summary = summary
                defer { state.stopWaiters.removeAll() }
                return .stored(summary, state.stopWaiters)
            }
            // 1001 (a server going away) and a lost connection are resumed; the other codes are final.
            let resumable = code == nil || code == 1001 || code == 1006 || code == 1012
            guard state.sessionID != nil, state.resumeToken != nil, resumable else {
                return .fail(.closed(code: code, reason: reason))
            }
            return .reconnect
        }
        switch next {
        case .nothing: break
        case .reconnect: tell(.disconnected(code: code))
        case .fail(let error): fail(error)
        case .stored(let summary, let waiters):
            for waiter in waiters { waiter.resume(returning: .success(summary)) }
            finishListeners()
        }
    }

    // MARK: Sending and telling

    /// Sends the queued entries not sent yet (and `stop` once asked), when the server is ready. Call under the lock.
    func flush(_ state: inout ClientState) {
        guard state.ready, let connection = state.connection else { return }
        var messages: [TransportMessage] = []
        for item in state.outbox.takeUnsent() {
            var buffer: [UInt8] = []
            switch item {
            case .pose(let pose):
                if state.binary {
                    BinaryPoseFrame.encode(pose, into: &buffer)
                    messages.append(.binary(buffer))
                    continue
                }
                WireEncoder.encodePose(pose, into: &buffer)
            case .motion(let samples): WireEncoder.encodeMotion(samples, into: &buffer)
            case .reset: buffer = Array(#"{"type":"reset"}"#.utf8)
            case .baseline: buffer = Array(#"{"type":"baseline"}"#.utf8)
            }
            messages.append(.text(String(decoding: buffer, as: UTF8.self)))
        }
        if state.stopRequested && !state.stopSent {
            state.stopSent = true
            messages.append(.text(#"{"type":"stop"}"#))
        }
        for message in messages { connection.send(message) }
    }

    /// Ends the session with `error`: waiters get it, streams end, the connection closes.
    func fail(_ error: RemoteSessionError) {
        let taken = state.withLock { state in
            guard !state.isOver else { return nil as (ClientState.Waiters, (any TransportConnection)?)? }
            state.failure = error
            defer {
                state.readyWaiters.removeAll()
                state.stopWaiters.removeAll()
                state.connection = nil
            }
            return ((state.readyWaiters, state.stopWaiters), state.connection)
        }
        guard let ((ready, stop), connection) = taken else { return }
        for waiter in ready { waiter.resume(returning: .failure(error)) }
        for waiter in stop { waiter.resume(returning: .failure(error)) }
        connection?.close(code: CloseCode.goingAway, reason: "")
        tell(.failed(error))
        finishListeners()
    }

    func tell(_ event: ConnectionEvent) {
        listeners.withLock { listeners in
            for continuation in listeners.connection.values { continuation.yield(event) }
        }
    }

    private func deliver(_ event: MotionEvent) {
        listeners.withLock { listeners in
            for continuation in listeners.events.values { continuation.yield(event) }
        }
    }

    private func publish(_ snapshot: MotionSnapshot) {
        guard configuration.updatesSnapshotOnMainActor else { return store(snapshot) }
        DispatchQueue.main.async { self.store(snapshot) }
    }

    private func store(_ snapshot: MotionSnapshot) {
        #if canImport(Observation)
        registrar.withMutation(of: self, keyPath: \.snapshot) { published.withLock { $0 = snapshot } }
        #else
        published.withLock { $0 = snapshot }
        #endif
    }

    func finishListeners() {
        let (events, connection) = listeners.withLock { listeners in
            defer {
                listeners.events.removeAll()
                listeners.connection.removeAll()
            }
            return (Array(listeners.events.values), Array(listeners.connection.values))
        }
        for continuation in events { continuation.finish() }
        for continuation in connection { continuation.finish() }
    }
}
