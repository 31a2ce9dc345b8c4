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

@Suite("Event loops")
struct EventLoopTests {
    @Test func executeRunsWorkOnTheLoopThreadInOrder() async throws {
        let group = try EventLoopGroup(loops: 1)
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

    @Test func timersFireInDeadlineOrderAndCancelledOnesNever() async throws {
        let group = try EventLoopGroup(loops: 1)
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
