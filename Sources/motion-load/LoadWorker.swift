import LoadKit
import NetCore
import Synchronization

/// Counts the driver reads while the loops run.
final class SharedCounts: Sendable {
    let handshakesInFlight = Atomic<Int>(0)
    let started = Atomic<Int>(0)
    /// Sessions that will not start: failed to connect, or closed before `started`.
    let refused = Atomic<Int>(0)
    let finished = Atomic<Int>(0)
}

/// Everything on one client loop: its sessions, pacer and statistics. Used only on that loop's thread, except for
/// the immutable configuration; the driver reaches it with `onLoop`.
final class LoadWorker: @unchecked Sendable {
    // Safety: mutable state is touched only on `loop`'s thread.
    let loop: EventLoop
    let options: LoadOptions
    let script: PoseScript
    let shared: SharedCounts
    let context: RawWebSocketConnection.Context
    let startMessage: [UInt8]
    let microsecondsPerFrame: Double
    private(set) var windows = Array(repeating: LoadStats(), count: LoadStats.Window.allCases.count)
    private var sessions: [LoadSession] = []
    private var pacer: Pacer?
    private var scratch: [UInt8] = []

    init(loop: EventLoop, options: LoadOptions, target: WebSocketTarget, script: PoseScript, shared: SharedCounts) {
        self.loop = loop
        self.options = options
        self.script = script
        self.shared = shared
        context = RawWebSocketConnection.Context(loop: loop, target: target, keepsPayloads: true)
        startMessage = options.startMessage
        microsecondsPerFrame = 1e6 / options.rate
        scratch.reserveCapacity(4096)
    }

    /// Records into every window.
    func record(_ body: (inout LoadStats) -> Void) {
        for index in windows.indices { body(&windows[index]) }
    }

    /// Returns a window's statistics and starts it afresh.
    func take(_ window: LoadStats.Window) -> LoadStats {
        defer { windows[window.rawValue] = LoadStats() }
        return windows[window.rawValue]
    }

    /// Starts the pacer: from `start` on, each streaming session sends at the rate, on its own phase.
    func startPacing(at start: UInt64) {
        let pacer = Pacer(
            loop: loop, period: UInt64((1e9 / options.rate).rounded()), tick: UInt64(options.tickMicroseconds * 1000)
        ) { [unowned self] member, due in sessions[member].send(due: due) }
        self.pacer = pacer
        pacer.start(at: start, until: .max)
    }

    /// Opens session `number` (its global number: its subject, script offset and phase follow from it).
    func open(_ number: Int) {
        let session = LoadSession(number: number, slot: sessions.count, worker: self)
        sessions.append(session)
        session.connect()
    }

    /// A session received `started`: it joins the schedule.
    func streaming(_ session: LoadSession) {
        guard let pacer else { return }
        pacer.add(session.slot, phase: pacer.spreadPhase(session.number))
    }

    /// Writes frame `frame` of a session into the scratch buffer and hands it to `send`, with whether it is a binary
    /// frame (`--binary`) rather than JSON text.
    func withPoseMessage(frame: Int, offset: Int, _ send: (UnsafeRawBufferPointer, _ isBinary: Bool) -> Void) {
        scratch.removeAll(keepingCapacity: true)
        if options.binary {
            scratch.append(contentsOf: script.binaryFrames[(offset + frame) % script.binaryFrames.count])
            let t = Timestamp.seconds(frame: frame, microsecondsPerFrame: microsecondsPerFrame).bitPattern
            for index in 0..<8 {
                scratch[PoseScript.binaryTimeOffset + index] = UInt8(truncatingIfNeeded: t >> (8 * index))
            }
            return scratch.withUnsafeBytes { send($0, true) }
        }
        scratch.append(contentsOf: PoseScript.prefix)
        Timestamp.append(frame: frame, microsecondsPerFrame: microsecondsPerFrame, to: &scratch)
        scratch.append(contentsOf: script.frames[(offset + frame) % script.frames.count])
        scratch.withUnsafeBytes { send($0, false) }
    }

    /// Writes a `motion` message of the samples of `frames`' intervals at ``PoseScript/motionRate`` (`--motion`),
    /// the last at the last frame's time, and hands it to `send`. Sample `j` of the session is `t = j / rate` (the
    /// frames' own clock), so the stream increases across messages.
    func withMotionMessage(frames: ClosedRange<Int>, offset: Int, _ send: (UnsafeRawBufferPointer) -> Void) {
        let perFrame = max(1, Int((PoseScript.motionRate * microsecondsPerFrame / 1e6).rounded()))
        let microsecondsPerSample = microsecondsPerFrame / Double(perFrame)
        scratch.removeAll(keepingCapacity: true)
        scratch.append(contentsOf: Self.motionPrefix)
        // Frame 0 has only its own sample; a later frame the samples since the previous one.
        let first = frames.lowerBound == 0 ? 0 : (frames.lowerBound - 1) * perFrame + 1
        for sample in first...(frames.upperBound * perFrame) {
            if sample > first { scratch.append(UInt8(ascii: ",")) }
            scratch.append(UInt8(ascii: "["))
            Timestamp.append(frame: sample, microsecondsPerFrame: microsecondsPerSample, to: &scratch)
            let samples = script.motionSamples
            scratch.append(contentsOf: samples[(offset * perFrame + sample) % samples.count])
        }
        scratch.append(contentsOf: Self.motionSuffix)
        scratch.withUnsafeBytes { send($0) }
    }

    static let motionPrefix: [UInt8] = Array(#"{"type":"motion","samples":["#.utf8)
    static let motionSuffix: [UInt8] = Array("]}".utf8)

    /// Sends `stop` to every streaming session; returns how many were asked.
    func stopAll() -> Int {
        sessions.reduce(0) { $0 + ($1.stop() ? 1 : 0) }
    }

    /// Ends every session still connected, without a closing handshake, and stops the pacer: the loop then holds
    /// nothing that calls back into this worker (in a process that goes on after the run, as the tests do, the
    /// worker may be gone while the loop still runs).
    func abortAll() {
        for session in sessions { session.abort() }
        pacer?.stop()
        pacer = nil
    }

    /// The ages now of every frame still waiting for its snapshot (lower bounds of their latencies).
    func waitingAges() -> Histogram {
        var ages = Histogram()
        let now = EventLoop.now()
        for session in sessions { session.recordWaitingAges(now: now, into: &ages) }
        return ages
    }

    /// Frames sent and not yet answered, over every session.
    var waiting: Int { sessions.reduce(0) { $0 + $1.waitingCount } }
}
