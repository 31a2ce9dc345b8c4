import Synchronization
import Testing

@testable import HTTPServer
@testable import NetCore

/// The per-loop queue of fixed-interval deadlines behind idle WebSocket connections' keep-alive checks, and the
/// sweep of cancelled loop timers, on a manual clock.
@Suite struct IntervalQueueTests {
    /// An owner of a queue entry; records when it came due.
    final class Owner: Sendable {
        let name: String
        init(_ name: String) { self.name = name }
    }

    /// Loop-confined: touched only in ``on(_:)``.
    final class Subject: LoopTestSubject, @unchecked Sendable {
        // Safety: used on the loop's thread only.
        let loop: EventLoop
        lazy var queue: IntervalQueue<Owner> = IntervalQueue(interval: .milliseconds(100), loop: loop) {
            [unowned self] owner in
            fired.append((owner.name, loop.now()))
            if repeating.contains(owner.name) { tickets[owner.name] = queue.arm(owner) }
        }
        var fired: [(String, UInt64)] = []
        /// Owners that arm themselves again when due.
        var repeating: Set<String> = []
        var tickets: [String: Int] = [:]

        init(loop: EventLoop) { self.loop = loop }
    }

    @Test func ownersComeDueInArmingOrderOneIntervalLaterOnOneLoopTimer() async throws {
        try await Subject.withSubject { subject, clock in
            let start = clock.now
            let owners = [Owner("a"), Owner("b"), Owner("c")]
            let timers = await subject.on { subject in
                subject.tickets["a"] = subject.queue.arm(owners[0])
                return subject.loop.timerCount
            }
            await clock.advance(by: .milliseconds(30))
            let armed = await subject.on { subject in
                subject.tickets["b"] = subject.queue.arm(owners[1])
                subject.tickets["c"] = subject.queue.arm(owners[2])
                return (subject.loop.timerCount, subject.queue.count)
            }
            #expect(timers == 1)
            #expect(armed == (1, 3), "three owners, one loop timer")
            await clock.advance(by: .milliseconds(69))
            #expect(await subject.on { $0.fired.isEmpty })
            await clock.advance(by: .milliseconds(1))
            #expect(await subject.on { $0.fired.map(\.0) } == ["a"])
            await clock.advance(by: .milliseconds(30))
            let fired = await subject.on { $0.fired }
            #expect(fired.map(\.0) == ["a", "b", "c"])
            #expect(fired.map(\.1) == [start + 100_000_000, start + 130_000_000, start + 130_000_000])
            #expect(await subject.on { ($0.queue.count, $0.loop.timerCount) } == (0, 0), "nothing left armed")
        }
    }

    @Test func aDisarmedOwnerIsReleasedAndNeverComesDue() async throws {
        try await Subject.withSubject { subject, clock in
            let released = await subject.on { subject in
                var owner: Owner? = Owner("gone")
                weak let watched = owner
                let ticket = subject.queue.arm(owner!)
                _ = subject.queue.arm(Owner("kept"))
                subject.queue.disarm(ticket, of: owner!)
                owner = nil
                return watched == nil
            }
            #expect(released, "the queue let go of the disarmed owner")
            await clock.advance(by: .milliseconds(100))
            #expect(await subject.on { $0.fired.map(\.0) } == ["kept"])
        }
    }

    @Test func aStaleTicketDisarmsNoOtherOwner() async throws {
        try await Subject.withSubject { subject, clock in
            let first = Owner("first")
            let second = Owner("second")
            await subject.on { subject in
                subject.tickets["first"] = subject.queue.arm(first)
                subject.tickets["second"] = subject.queue.arm(second)
                // The first owner's ticket, presented for the second: not its arming.
                subject.queue.disarm(subject.tickets["first"]!, of: second)
            }
            await clock.advance(by: .milliseconds(100))
            #expect(await subject.on { $0.fired.map(\.0) } == ["first", "second"])
            await subject.on { subject in
                // Both came due: their tickets disarm nothing now, and a new arming is untouched.
                subject.tickets["third"] = subject.queue.arm(first)
                subject.queue.disarm(subject.tickets["second"]!, of: second)
                subject.queue.disarm(subject.tickets["first"]!, of: first)
            }
            await clock.advance(by: .milliseconds(100))
            #expect(await subject.on { $0.fired.map(\.0) } == ["first", "second", "first"])
        }
    }

    @Test func ownersArmedAgainWhenDueKeepOneLoopTimerAndTheirPace() async throws {
        try await Subject.withSubject { subject, clock in
            let owners = (0..<100).map { Owner("o\($0)") }
            await subject.on { subject in
                for owner in owners {
                    subject.repeating.insert(owner.name)
                    subject.tickets[owner.name] = subject.queue.arm(owner)
                }
            }
            for _ in 0..<5 { await clock.advance(by: .milliseconds(100)) }
            let (fired, timers, armed) = await subject.on { ($0.fired, $0.loop.timerCount, $0.queue.count) }
            #expect(fired.count == 500, "every owner every interval")
            #expect(timers == 1)
            #expect(armed == 100, "the storage of owners that came due is reclaimed")
            #expect(Array(fired.prefix(100).map(\.0)) == owners.map(\.name))
        }
    }

    @Test func cancelledLoopTimersAreSweptBeforeTheirDeadline() async throws {
        try await Subject.withSubject { subject, clock in
            let fired = Mutex<[Int]>([])
            let counts = await subject.on { subject in
                let loop = subject.loop
                let timers = (0..<200).map { index in
                    loop.schedule(after: .seconds(60 + index)) { fired.withLock { $0.append(index) } }
                }
                // Cancelled alone, a timer waits in the heap until its deadline.
                timers[0].cancel()
                let plain = loop.timerCount
                // Cancelled through the loop, timers are swept out once they are an eighth of the heap.
                for timer in timers[1..<TimerQueue.sweepThreshold] { loop.cancel(timer) }
                let beforeSweep = loop.timerCount
                loop.cancel(timers[TimerQueue.sweepThreshold])
                return (plain, beforeSweep, loop.timerCount)
            }
            #expect(counts.0 == 200)
            #expect(counts.1 == 200)
            #expect(counts.2 == 200 - TimerQueue.sweepThreshold - 1, "every cancelled timer swept at once")
            await clock.advance(by: .seconds(60 + 200))
            #expect(fired.withLock { $0 } == Array((TimerQueue.sweepThreshold + 1)..<200), "the rest, in order")
        }
    }
}
