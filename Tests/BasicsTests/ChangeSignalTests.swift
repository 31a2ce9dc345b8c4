import Basics
import Synchronization
import Testing

/// Waiting for a condition without polling it: woken by a change, ended by a timeout the caller controls.
@Suite("ChangeSignal")
struct ChangeSignalTests {
    /// A timeout that returns only when the test says so.
    final class Gate: Sendable {
        private let waiting = Mutex<[CheckedContinuation<Void, Never>]>([])
        private let opened = Atomic<Bool>(false)

        func wait() async {
            await withCheckedContinuation { continuation in
                let open = waiting.withLock { waiting in
                    if opened.load(ordering: .acquiring) { return true }
                    waiting.append(continuation)
                    return false
                }
                if open { continuation.resume() }
            }
        }

        func open() {
            opened.store(true, ordering: .releasing)
            for continuation in waiting.withLock({ waiting in
                defer { waiting.removeAll() }
                return waiting
            }) {
                continuation.resume()
            }
        }
    }

    final class Value: Sendable {
        let number = Atomic<Int>(0)
    }

    @Test func aConditionThatHoldsEndsTheWaitAtOnce() async {
        let signal = ChangeSignal()
        let gate = Gate()
        let held = await signal.wait(until: { true }, timeout: { await gate.wait() })
        #expect(held, "nothing to wait for, and the timeout never came")
    }

    @Test func aWaiterWakesOnTheChangeItWaitsFor() async {
        let signal = ChangeSignal()
        let value = Value()
        let gate = Gate()
        let waiter = Task {
            await signal.wait(until: { value.number.load(ordering: .acquiring) == 3 }, timeout: { await gate.wait() })
        }
        // Changes that do not satisfy it wake it to look, and it waits on.
        for number in 1...3 {
            value.number.store(number, ordering: .releasing)
            signal.notify()
            await Task.yield()
        }
        #expect(await waiter.value, "woken by the third change, long before any timeout")
        gate.open()
    }

    @Test func theTimeoutEndsAWaitWhoseConditionNeverHolds() async {
        let signal = ChangeSignal()
        let gate = Gate()
        let waiter = Task { await signal.wait(until: { false }, timeout: { await gate.wait() }) }
        signal.notify()
        gate.open()
        #expect(await waiter.value == false)
    }

    @Test func manyWaitersOnOneSignalEachEndOnTheirOwnCondition() async {
        let signal = ChangeSignal()
        let value = Value()
        let gate = Gate()
        let waiters = (1...20).map { target in
            Task {
                await signal.wait(
                    until: { value.number.load(ordering: .acquiring) >= target }, timeout: { await gate.wait() })
            }
        }
        for number in 1...20 {
            value.number.store(number, ordering: .releasing)
            signal.notify()
        }
        for waiter in waiters { #expect(await waiter.value) }
        gate.open()
    }
}
