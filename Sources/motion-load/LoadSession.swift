import LoadKit
import NetCore

/// One simulated patient: a WebSocket session that sends `start`, streams poses on its worker's schedule once
/// `started` arrives, and matches each snapshot to the frames it answers. Used only on its worker's loop thread.
///
/// With `--drop-every`, a share of the sessions cut their connection now and then (an abort, as a phone's network
/// change does) and resume on a new one (docs/protocol.md §3.1): the frames due meanwhile are kept, and after `resumed`
/// every frame after its `t` is sent again, as a phone app does.
final class LoadSession: RawWebSocketDelegate {
    private enum State {
        case connecting, starting, streaming, resuming, stopping, done
    }

    /// The session's global number.
    let number: Int
    /// Its index in its worker's sessions.
    let slot: Int
    private unowned let worker: LoadWorker
    private var socket: RawWebSocketConnection?
    private var state = State.connecting
    private var connectedAt: UInt64 = 0
    /// The next frame to send.
    private var frame = 0
    /// The last frame whose motion samples were sent (`--motion`); -1 before any.
    private var motionThrough = -1
    /// Frames answered so far: the frame number of `waiting`'s oldest entry.
    private var answered = 0
    private var waiting = PendingSends()
    private let offset: Int
    /// The session id and resume token from `started`, for resuming.
    private var sessionID: String?
    private var resumeToken: String?
    /// Ends the current connection on purpose (`--drop-every`).
    private var dropTimer: LoopTimer?
    /// `stop` was asked for while resuming: it is sent once the session is back.
    private var stopsAfterResume = false

    init(number: Int, slot: Int, worker: LoadWorker) {
        self.number = number
        self.slot = slot
        self.worker = worker
        offset = number &* 7919 % max(1, worker.script.frames.count)
    }

    var waitingCount: Int { waiting.count }

    func connect() {
        connectedAt = EventLoop.now()
        let socket = RawWebSocketConnection(index: number, context: worker.context, delegate: self)
        self.socket = socket
        socket.start()
    }

    /// The pacer says frame `frame` is due at `due`.
    func send(due: UInt64) {
        if state == .resuming {
            // The camera goes on while the connection is down: the frame is kept and sent after `resumed`.
            frame += 1
            return
        }
        guard state == .streaming, let socket else { return }
        let now = EventLoop.now()
        if worker.options.measuresLatency { waiting.push(intended: due, actual: now) }
        if worker.options.motion, frame - motionThrough >= worker.options.motionEvery {
            sendMotion(through: frame, on: socket)
        }
        worker.withPoseMessage(frame: frame, offset: offset) { bytes, isBinary in
            if isBinary { socket.sendBinary(bytes) } else { socket.sendText(bytes) }
        }
        frame += 1
        worker.record {
            $0.framesSent += 1
            $0.sendLag.record(now &- due)
        }
    }

    /// Sends `stop` if streaming; returns whether it did.
    func stop() -> Bool {
        dropTimer?.cancel()
        if state == .resuming {
            stopsAfterResume = true
            return true
        }
        guard state == .streaming || state == .starting, let socket else { return false }
        state = .stopping
        // The samples of the last poses, short of a whole batch, go before `stop`.
        if worker.options.motion { sendMotion(through: frame - 1, on: socket) }
        Self.stopMessage.withUnsafeBytes { socket.sendText($0) }
        return true
    }

    /// Sends the motion samples of the frames after ``motionThrough`` up to `last` in one `motion` message.
    private func sendMotion(through last: Int, on socket: RawWebSocketConnection) {
        guard last > motionThrough else { return }
        worker.withMotionMessage(frames: (motionThrough + 1)...last, offset: offset) { socket.sendText($0) }
        motionThrough = last
    }

    func abort() {
        dropTimer?.cancel()
        socket?.abort()
    }

    // MARK: Dropping and resuming

    /// Cuts the connection after `--drop-every` seconds (the first cut at a phase of its own, so sessions do not
    /// drop together).
    private func scheduleDrop(first: Bool) {
        guard let every = worker.options.dropEvery, worker.options.drops(number) else { return }
        let phase = first ? Double(number &* 7919 % 1000) / 1000 : 1
        dropTimer = worker.loop.schedule(after: .nanoseconds(Int64(every * phase * 1e9) + 1)) { [weak self] in
            self?.drop()
        }
    }

    /// Aborts the connection (no close frame) and opens a new one that resumes the session.
    private func drop() {
        guard state == .streaming, let old = socket else { return }
        state = .resuming
        // Frames in flight on the old connection are not matched to snapshots any more: they are re-sent after the
        // resume (or were processed already).
        _ = waiting.drain()
        worker.record { $0.drops += 1 }
        socket = nil
        old.abort()
        worker.shared.handshakesInFlight.add(1, ordering: .relaxed)
        connect()
    }

    /// The session is back: frames after the server's `t`, those kept while disconnected included, are sent again,
    /// each with its motion samples (`--motion`) when they come after the server's `motionT`.
    private func resumed(_ payload: UnsafeRawBufferPointer) {
        guard state == .resuming, let socket else { return }
        let rate = worker.options.rate
        let held = ServerMessage.numberField(ServerMessage.timeKey, in: payload).flatMap {
            Timestamp.frame(of: $0, framesPerSecond: rate)
        }
        // Frame k's motion message ends with a sample at frame k's time: the first not held is the one after.
        let motionHeld = ServerMessage.numberField(ServerMessage.motionTimeKey, in: payload).flatMap {
            Timestamp.frame(of: $0, framesPerSecond: rate, atOrBefore: true)
        }
        let firstPose = held.map { $0 + 1 } ?? 0
        let firstMotion = worker.options.motion ? (motionHeld.map { $0 + 1 } ?? 0) : frame
        let elapsed = EventLoop.now() &- connectedAt
        var resent = 0
        if worker.options.motion { motionThrough = firstMotion - 1 }
        for again in min(firstPose, firstMotion)..<frame {
            if worker.options.motion, again >= firstMotion, again - motionThrough >= worker.options.motionEvery {
                sendMotion(through: again, on: socket)
            }
            guard again >= firstPose else { continue }
            worker.withPoseMessage(frame: again, offset: offset) { bytes, isBinary in
                if isBinary { socket.sendBinary(bytes) } else { socket.sendText(bytes) }
            }
            resent += 1
        }
        // Snapshots of re-sent frames answer nothing measured; the next frame sent on schedule is the next matched.
        answered = frame
        worker.record {
            $0.resumes += 1
            $0.resumeLatency.record(elapsed)
            $0.framesSent += resent
        }
        state = .streaming
        if stopsAfterResume {
            _ = stop()
        } else {
            scheduleDrop(first: false)
        }
    }

    func recordWaitingAges(now: UInt64, into ages: inout Histogram) {
        for intended in waiting.waitingIntended { ages.record(now &- intended) }
    }

    private static let stopMessage: [UInt8] = Array(#"{"type":"stop"}"#.utf8)

    // MARK: RawWebSocketDelegate

    func webSocketDidOpen(_ connection: RawWebSocketConnection) {
        worker.shared.handshakesInFlight.subtract(1, ordering: .relaxed)
        if state == .resuming, let sessionID, let resumeToken {
            let message = #"{"type":"resume","session":"\#(sessionID)","token":"\#(resumeToken)"}"#
            Array(message.utf8).withUnsafeBytes { connection.sendText($0) }
            return
        }
        worker.record { $0.sessionsOpened += 1 }
        state = .starting
        worker.startMessage.withUnsafeBytes { connection.sendText($0) }
    }

    func webSocketDidFail(_ connection: RawWebSocketConnection, reason: String) {
        worker.shared.handshakesInFlight.subtract(1, ordering: .relaxed)
        if state != .resuming { worker.shared.refused.add(1, ordering: .relaxed) }
        worker.record { $0.connectFailures[reason, default: 0] += 1 }
        state = .done
    }

    func webSocket(
        _ connection: RawWebSocketConnection, didReceive payload: UnsafeRawBufferPointer, length: Int, text: Bool
    ) {
        switch ServerMessage.kind(of: payload) {
        case .snapshot: snapshot(payload)
        case .event:
            let kind = ServerMessage.stringField(ServerMessage.eventKey, in: payload) ?? "?"
            worker.record {
                $0.events += 1
                $0.eventKinds[kind, default: 0] += 1
            }
        case .resumed: resumed(payload)
        case .started:
            guard state == .starting else { return }
            state = .streaming
            sessionID = ServerMessage.stringField(ServerMessage.sessionKey, in: payload)
            resumeToken = ServerMessage.stringField(ServerMessage.resumeKey, in: payload)
            scheduleDrop(first: true)
            let elapsed = EventLoop.now() &- connectedAt
            worker.record {
                $0.sessionsStarted += 1
                $0.startLatency.record(elapsed)
            }
            worker.shared.started.add(1, ordering: .relaxed)
            worker.streaming(self)
        case .summary: worker.record { $0.summaries += 1 }
        case .checkpoint: worker.record { $0.checkpoints += 1 }
        case .error:
            let code = ServerMessage.stringField(ServerMessage.codeKey, in: payload) ?? "?"
            worker.record {
                $0.errors += 1
                $0.errorCodes[code, default: 0] += 1
            }
        case .other:
            worker.record {
                $0.errors += 1
                $0.errorCodes["unrecognisedMessage", default: 0] += 1
            }
        }
    }

    private func snapshot(_ payload: UnsafeRawBufferPointer) {
        worker.record { $0.snapshots += 1 }
        guard worker.options.measuresLatency else { return }
        guard let number = ServerMessage.numberField(ServerMessage.timeKey, in: payload),
            let answers = Timestamp.frame(of: number, framesPerSecond: worker.options.rate)
        else { return }
        let now = EventLoop.now()
        var matched = 0
        while answered <= answers, let times = waiting.pop() {
            answered += 1
            matched += 1
            worker.record { $0.latency.record(now &- times.intended) }
        }
        if matched > 1 { worker.record { $0.coalesced += matched - 1 } }
    }

    func webSocketDidClose(_ connection: RawWebSocketConnection, code: Int?, reason: String) {
        guard connection === socket else { return }  // a connection this session cut on purpose
        dropTimer?.cancel()
        let expected = state == .stopping
        if state == .connecting || state == .starting { worker.shared.refused.add(1, ordering: .relaxed) }
        state = .done
        let now = EventLoop.now()
        let left = waiting.drain()
        worker.record {
            $0.closes[code.map { "\($0)" } ?? "lost", default: 0] += 1
            if !expected { $0.unexpectedCloses += 1 }
            $0.unanswered += left.count
            for intended in left { $0.latency.record(now &- intended) }
        }
    }

    func webSocketDidFinish(_ connection: RawWebSocketConnection) {
        guard connection === socket else { return }  // a connection this session cut on purpose
        dropTimer?.cancel()
        if state != .done {
            // Aborted by the load generator while connected.
            let now = EventLoop.now()
            let left = waiting.drain()
            worker.record {
                $0.unanswered += left.count
                for intended in left { $0.latency.record(now &- intended) }
            }
            state = .done
        }
        socket = nil
        worker.shared.finished.add(1, ordering: .relaxed)
    }
}
