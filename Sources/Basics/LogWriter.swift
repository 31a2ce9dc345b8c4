import Glibc

/// Lines written to a file descriptor by a thread of their own, so that whoever logs (an event loop answering
/// requests) never waits for the descriptor: a pipe to a slow reader, a terminal, a full disk. A line is appended to
/// a buffer under a lock and the writer thread, woken by the first line into an empty buffer, lets lines gather for
/// 20 ms and writes them all in one `write(2)`; lines keep their order.
///
/// Bounded: past `capacity` unwritten bytes, new lines are dropped and counted, and once there is room a line says
/// how many (`level=warning msg="log lines dropped" count=12`). What is buffered is written when the process exits
/// (`exit`, a return from `main`); a process killed outright loses at most the lines of that moment.
///
/// ```swift
/// LogWriter.standardError.write(Array("level=info msg=ready\n".utf8))
/// ```
public final class LogWriter: Sendable {
    /// The writer of standard error, which ``Logger`` uses; started on first use.
    public static let standardError: LogWriter = {
        let writer = LogWriter(fd: STDERR_FILENO, name: "log-writer")
        atexit { LogWriter.standardError.finish() }
        return writer
    }()

    private struct State {
        var pending: [UInt8] = []
        var dropped = 0
        var writing = false
    }

    /// How long the thread lets lines gather after the first one wakes it. Under a steady stream each batch is a
    /// wake-up on another core; at one access-log line per request, 2 ms batches cost 3.5 µs of the server's CPU per
    /// request beside no log at all, 20 ms batches 1 µs (bench/RESULTS.md, 2026-12-05). A line is late by at most this.
    static let batchMicroseconds: UInt32 = 20_000

    private let fd: Int32
    private let capacity: Int
    private let state = Locked(State())

    /// Starts a writer thread for `fd`.
    /// - Parameters:
    ///   - fd: An open file descriptor, kept open for the life of the process.
    ///   - capacity: The most unwritten bytes held; lines past it are dropped and counted.
    ///   - name: The thread's name.
    public init(fd: Int32, capacity: Int = 4 << 20, name: String = "log-writer") {
        self.fd = fd
        self.capacity = capacity
        startThread(name: name, stackSize: 256 << 10) { [self] in run() }
    }

    /// Queues one or more whole lines.
    /// - Parameter line: The bytes, ending in a newline.
    public func write(_ line: [UInt8]) {
        queue(line, newline: false)
    }

    /// Queues a log line and its newline.
    /// - Parameter line: The line.
    public func write(_ line: LogLine) {
        queue(line.text, newline: true)
    }

    private func queue(_ line: [UInt8], newline: Bool) {
        let count = line.count + (newline ? 1 : 0)
        let wake = state.withLock { state -> Bool in
            guard state.pending.count + count <= capacity else {
                state.dropped += 1
                return false
            }
            state.pending += line
            if newline { state.pending.append(0x0A) }
            return state.pending.count == count
        }
        if wake { state.wakeWaiters() }
    }

    /// Waits until every line queued before the call has been written.
    public func flush() {
        state.withLock(waitingUntil: { $0.pending.isEmpty && $0.dropped == 0 && !$0.writing }, do: { _ in })
    }

    private func run() {
        var batch: [UInt8] = []
        while true {
            state.withLock(waitingUntil: { !$0.pending.isEmpty || $0.dropped > 0 }, do: { _ in })
            // Lines arriving meanwhile join this batch without waking the thread again (only the first line into an
            // empty buffer wakes it): one wake-up and one write per batch, not per line, under a steady stream.
            usleep(Self.batchMicroseconds)
            let dropped = state.withLock(
                waitingUntil: { !$0.pending.isEmpty || $0.dropped > 0 },
                do: { state in
                    swap(&batch, &state.pending)
                    state.writing = true
                    defer { state.dropped = 0 }
                    return state.dropped
                })
            if dropped > 0 { batch += Array("level=warning msg=\"log lines dropped\" count=\(dropped)\n".utf8) }
            Console.write(batch, to: fd)
            batch.removeAll(keepingCapacity: true)
            state.withLock { $0.writing = false }
            state.wakeWaiters()
        }
    }

    /// At exit: writes what is left without waiting on a writer stuck in `write(2)` for more than a second.
    private func finish() {
        for _ in 0..<1000 {
            if state.withLock({ !$0.writing }) { break }
            usleep(1000)
        }
        let rest = state.withLock { state in
            defer { state.pending = [] }
            return state.pending
        }
        Console.write(rest, to: fd)
    }
}
