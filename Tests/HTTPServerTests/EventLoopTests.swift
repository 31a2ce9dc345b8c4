import Foundation
import Glibc
import HTTPServer
import Synchronization
import Testing

/// An actor whose executor is an event loop.
actor LoopBound {
    let loop: EventLoop
    nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }
    var count = 0

    init(loop: EventLoop) { self.loop = loop }

    func increment() -> (Int, Bool) {
        count += 1
        return (count, loop.inEventLoop)
    }
}

/// Reads a pipe when the loop reports it readable, on the loop thread, and reports the first byte.
private final class PipeReader: EventLoopHandler, @unchecked Sendable {
    // Safety: used only on the loop thread.
    let fd: Int32
    var onByte: ((UInt8, Bool) -> Void)?
    let loop: EventLoop

    init(fd: Int32, loop: EventLoop, onByte: @escaping (UInt8, Bool) -> Void) {
        self.fd = fd
        self.loop = loop
        self.onByte = onByte
    }

    func handle(_ events: IOEvents) {
        var byte: UInt8 = 0
        guard read(fd, &byte, 1) == 1, let onByte else { return }
        self.onByte = nil
        onByte(byte, loop.inEventLoop)
    }
}

/// Both ways a loop can wait when idle; everything a loop does must work the same under each.
private let idleWaits: [IdleWait] = [.block, .poll(interval: .milliseconds(2))]

@Suite("Event loops")
struct EventLoopTests {
    @Test(arguments: idleWaits)
    func executeRunsWorkOnTheLoopThreadInOrder(idleWait: IdleWait) async throws {
        let group = try EventLoopGroup(loops: 1, idleWait: idleWait)
        defer { group.shutdown() }
        let loop = group.next()
        let log = Mutex<[Int]>([])
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            for i in 0..<100 {
                loop.execute {
                    precondition(loop.inEventLoop)
                    log.withLock { $0.append(i) }
                    if i == 99 { done.resume() }
                }
            }
        }
        #expect(log.withLock { $0 } == Array(0..<100))
        #expect(!loop.inEventLoop)
    }

    @Test(arguments: idleWaits)
    func timersFireInDeadlineOrderAndCancelledOnesNever(idleWait: IdleWait) async throws {
        let group = try EventLoopGroup(loops: 1, idleWait: idleWait)
        defer { group.shutdown() }
        let loop = group.next()
        let fired = Mutex<[String]>([])
        await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
            loop.execute {
                loop.schedule(after: .milliseconds(30)) { fired.withLock { $0.append("b") } }
                loop.schedule(after: .milliseconds(10)) { fired.withLock { $0.append("a") } }
                let cancelled = loop.schedule(after: .milliseconds(20)) { fired.withLock { $0.append("x") } }
                cancelled.cancel()
                loop.schedule(after: .milliseconds(60)) { done.resume() }
            }
        }
        #expect(fired.withLock { $0 } == ["a", "b"])
    }

    @Test(arguments: idleWaits)
    func aReadableDescriptorIsHandledOnTheLoopThread(idleWait: IdleWait) async throws {
        let name = "pipe-\(idleWait == .block ? "b" : "p")"
        let group = try EventLoopGroup(loops: 1, name: name, idleWait: idleWait)
        defer { group.shutdown() }
        let loop = group.next()
        var ends: [Int32] = [0, 0]
        try #require(pipe(&ends) == 0)
        let (readEnd, writeEnd) = (ends[0], ends[1])
        defer { for fd in [readEnd, writeEnd] { close(fd) } }
        let (byte, onLoop) = await withCheckedContinuation { (done: CheckedContinuation<(UInt8, Bool), Never>) in
            loop.execute {
                let reader = PipeReader(fd: readEnd, loop: loop) { byte, onLoop in
                    loop.deregister(readEnd)
                    done.resume(returning: (byte, onLoop))
                }
                try? loop.register(readEnd, for: [.readable], handler: reader)
            }
            // Written from this thread once the loop waits (blocked in epoll, or polling and sleeping).
            Thread.waitUntilSleeping(named: "\(name)-0")
            var byte: UInt8 = 42
            _ = write(writeEnd, &byte, 1)
        }
        #expect(byte == 42)
        #expect(onLoop)
    }

    @Test func actorsRunOnTheLoopExecutorAndCanAssumeIsolation() async throws {
        let group = try EventLoopGroup(loops: 2)
        defer { group.shutdown() }
        let actor = LoopBound(loop: group.loops[1])
        for expected in 1...50 {
            let (count, onLoop) = await actor.increment()
            #expect(count == expected)
            #expect(onLoop)
        }
        let viaLoop = await withCheckedContinuation { (done: CheckedContinuation<Int, Never>) in
            group.loops[1].execute {
                let value = actor.assumeIsolated { actor in
                    actor.count += 1
                    return actor.count
                }
                done.resume(returning: value)
            }
        }
        #expect(viaLoop == 51)
    }

    @Test func tasksPreferringALoopRunOnIt() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        let loop = group.next()
        let onLoop = await Task(executorPreference: loop) { loop.inEventLoop }.value
        #expect(onLoop)
    }

    /// A task sleeping on a manual clock wakes once an advance reaches its deadline, not before; one whose deadline
    /// has passed does not wait; a cancelled one stops waiting.
    @Test func tasksSleepOnAManualClockUntilItReachesTheirDeadline() async throws {
        let manual = ManualClock()
        let clock = LoopClock.manual(manual)
        let deadline = clock.deadline(after: .seconds(5))
        #expect(deadline == manual.now + 5_000_000_000)
        let woke = Mutex<UInt64?>(nil)
        let sleeper = Task {
            try await clock.sleep(until: deadline)
            woke.withLock { $0 = manual.now }
        }
        await manual.advance(by: .seconds(5) - .nanoseconds(1))
        #expect(woke.withLock { $0 } == nil, "not before the deadline")
        await manual.advance(by: .nanoseconds(1))
        try await sleeper.value
        #expect(woke.withLock { $0 } == deadline)
        try await clock.sleep(until: deadline)  // passed: returns at once
        let cancelled = Task { try await clock.sleep(until: clock.deadline(after: .seconds(1))) }
        cancelled.cancel()
        await #expect(throws: CancellationError.self) { try await cancelled.value }
    }
}

private enum Thread {
    /// Returns once this process's thread called `name` is asleep (state `S` in `/proc`: blocked in a system call)
    /// just after a registration it had to make; gives up after 10 s (the test then checks the loop anyway).
    static func waitUntilSleeping(named name: String) {
        let deadline = ContinuousClock.now + .seconds(10)
        var asleepInARow = 0
        while ContinuousClock.now < deadline {
            if state(ofThreadNamed: name) == "S" {
                asleepInARow += 1
                // Twice in a row: not a thread caught between two steps of its work.
                if asleepInARow == 2 { return }
            } else {
                asleepInARow = 0
            }
            sched_yield()
        }
    }

    /// The scheduler state letter of this process's thread called `name`, nil when there is none.
    private static func state(ofThreadNamed name: String) -> Character? {
        guard let tasks = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/task") else { return nil }
        for task in tasks {
            let comm = try? String(contentsOfFile: "/proc/self/task/\(task)/comm", encoding: .utf8)
            guard comm?.trimmingCharacters(in: .newlines) == name,
                let stat = try? String(contentsOfFile: "/proc/self/task/\(task)/stat", encoding: .utf8),
                let close = stat.lastIndex(of: ")")
            else { continue }
            // "tid (comm) S …": the state follows the name's closing parenthesis.
            return stat[stat.index(after: close)...].first { $0 != " " }
        }
        return nil
    }
}
