import Glibc
import HTTPServer
import Synchronization
import Testing

/// Counts the readiness reports it gets and can run a closure on the first one.
private final class Recorder: EventLoopHandler, @unchecked Sendable {
    // Safety: used only on the loop thread.
    var calls = 0
    var onFirst: (() -> Void)?

    func handle(_ events: IOEvents) {
        calls += 1
        if calls == 1, let onFirst {
            self.onFirst = nil
            onFirst()
        }
    }
}

@Suite("Event loop descriptor reuse")
struct EventLoopReuseTests {
    /// epoll hands back a batch of events; a handler may close a descriptor and a new one may get its number
    /// before the batch is done. The old descriptor's event, still in the batch, must not reach the new handler.
    @Test func aStaleEventOfAReusedDescriptorIsNotDelivered() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        let loop = group.next()
        let newHandlerCalls = await withCheckedContinuation { (done: CheckedContinuation<Int, Never>) in
            loop.execute {
                var first: [Int32] = [0, 0]
                var second: [Int32] = [0, 0]
                var third: [Int32] = [0, 0]
                guard pipe(&first) == 0, pipe(&second) == 0, pipe(&third) == 0 else {
                    return done.resume(returning: -1)
                }
                let reused = second[0]
                let (firstRead, firstWrite, secondWrite, thirdRead, thirdWrite) =
                    (first[0], first[1], second[1], third[0], third[1])
                let old = Recorder()
                let new = Recorder()
                let trigger = Recorder()
                trigger.onFirst = {
                    // The old descriptor's readiness is already in this batch. Put an empty pipe at its number.
                    loop.deregister(reused)
                    dup2(thirdRead, reused)
                    close(thirdRead)
                    try? loop.register(reused, for: [.readable], handler: new)
                    // Runs after the batch: nothing was readable on the new pipe, so it heard nothing.
                    loop.execute {
                        let calls = new.calls
                        loop.deregister(firstRead)
                        loop.deregister(reused)
                        for fd in [firstRead, firstWrite, reused, secondWrite, thirdWrite] { close(fd) }
                        done.resume(returning: calls)
                    }
                }
                try? loop.register(firstRead, for: [.readable], handler: trigger)
                try? loop.register(reused, for: [.readable], handler: old)
                var byte: UInt8 = 1
                _ = write(firstWrite, &byte, 1)
                _ = write(secondWrite, &byte, 1)
            }
        }
        #expect(newHandlerCalls == 0)
    }
}
