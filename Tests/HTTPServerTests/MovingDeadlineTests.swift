import Synchronization
import Testing

@testable import HTTPServer
@testable import NetCore

/// A deadline that moves with every request and the one loop timer behind it, on a manual clock.
@Suite struct MovingDeadlineTests {
    /// Loop-confined: touched only in ``on(_:)``.
    final class Subject: LoopTestSubject, @unchecked Sendable {
        // Safety: used on the loop's thread only.
        let loop: EventLoop
        var deadline = MovingDeadline()
        var firedAt: [UInt64] = []

        init(loop: EventLoop) { self.loop = loop }

        func set(after milliseconds: UInt64) {
            deadline.set(loop.now() + milliseconds * 1_000_000, on: loop) { [self] in due() }
        }

        private func due() {
            if deadline.fired(now: loop.now(), on: loop, { [self] in due() }) { firedAt.append(loop.now()) }
        }
    }

    @Test func movedLaterItKeepsItsTimerAndFiresOnceAtTheNewDeadline() async throws {
        try await Subject.withSubject { subject, clock in
            let start = clock.now
            let timers = await subject.on { subject in
                subject.set(after: 100)
                let first = subject.loop.timerCount
                subject.set(after: 300)
                subject.set(after: 200)
                subject.set(after: 300)
                return (first, subject.loop.timerCount)
            }
            #expect(timers == (1, 1), "moving the deadline later schedules nothing")
            await clock.advance(by: .milliseconds(150))
            #expect(await subject.on { $0.firedAt }.isEmpty, "the early timer found the deadline moved")
            #expect(await subject.on { $0.loop.timerCount } == 1, "and scheduled one timer for it")
            await clock.advance(by: .milliseconds(149))
            #expect(await subject.on { $0.firedAt }.isEmpty)
            await clock.advance(by: .milliseconds(1))
            #expect(await subject.on { $0.firedAt } == [start + 300_000_000])
            await clock.advance(by: .seconds(10))
            #expect(await subject.on { $0.firedAt.count } == 1, "once")
        }
    }

    @Test func movedEarlierItSchedulesAgain() async throws {
        try await Subject.withSubject { subject, clock in
            let start = clock.now
            await subject.on { subject in
                subject.set(after: 500)
                subject.set(after: 200)
            }
            await clock.advance(by: .milliseconds(200))
            #expect(await subject.on { $0.firedAt } == [start + 200_000_000])
            await clock.advance(by: .seconds(1))
            #expect(await subject.on { $0.firedAt.count } == 1, "the cancelled later timer does nothing")
        }
    }

    @Test func clearedOrCancelledItNeverFires() async throws {
        try await Subject.withSubject { subject, clock in
            await subject.on { subject in
                subject.set(after: 100)
                subject.deadline.clear()
            }
            await clock.advance(by: .seconds(1))
            #expect(await subject.on { $0.firedAt }.isEmpty)
            let pending = await subject.on { subject in
                subject.set(after: 100)
                subject.deadline.cancel(on: subject.loop)
                return subject.deadline.deadline
            }
            #expect(pending == nil)
            await clock.advance(by: .seconds(1))
            #expect(await subject.on { $0.firedAt }.isEmpty)
            await subject.on { $0.set(after: 100) }
            await clock.advance(by: .milliseconds(100))
            #expect(await subject.on { $0.firedAt.count } == 1, "set again after a cancel, it fires")
        }
    }
}
