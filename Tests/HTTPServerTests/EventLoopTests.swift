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
        let group = try EventLoopGroup(loops: 1, idleWait: idleWait)
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
            // Written from this thread while the loop waits (blocked in epoll, or polling and sleeping).
            Thread.sleep(forMilliseconds: 20)
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
}

private enum Thread {
    static func sleep(forMilliseconds milliseconds: Int) { usleep(UInt32(milliseconds * 1000)) }
}
