import Synchronization

/// Tasks waiting until a condition holds, woken each time what it reads may have changed (``notify()``) instead of
/// looking again every few milliseconds. A wait also ends when its `timeout` returns — a sleep on whichever clock the
/// caller keeps time by, so a test's manual clock ends it exactly.
///
/// A change cannot slip between a waiter's look at its condition and its suspension: every ``notify()`` is counted,
/// and a waiter that was notified since it looked looks again at once.
///
/// ```swift
/// let arrivals = ChangeSignal()
/// // A waiter, for at most 5 s:
/// let arrived = await arrivals.wait(
///     until: { registry.contains(id) }, timeout: { try? await Task.sleep(for: .seconds(5)) })
/// // Whoever changes the registry:
/// registry.insert(id)
/// arrivals.notify()
/// ```
public final class ChangeSignal: Sendable {
    private struct State {
        /// How many times ``notify()`` was called.
        var changes: UInt64 = 0
        var waiters: [CheckedContinuation<Void, Never>] = []
    }

    private let state = Mutex(State())

    /// A signal no task waits on yet.
    public init() {}

    /// Wakes every waiting task to look at its condition again. Cheap when none waits: one uncontended lock.
    public func notify() {
        let waiters = state.withLock { state in
            state.changes &+= 1
            let waiters = state.waiters
            state.waiters.removeAll()
            return waiters
        }
        for waiter in waiters { waiter.resume() }
    }

    /// Waits until `condition` holds or `timeout` returns, looking at the condition at once and after each
    /// ``notify()``.
    /// - Parameters:
    ///   - condition: What to wait for; called on the waiting task.
    ///   - timeout: Returns when the wait has lasted long enough (a sleep until a deadline); cancelled once the
    ///     condition holds.
    /// - Returns: Whether the condition holds.
    public func wait(until condition: () -> Bool, timeout: @escaping @Sendable () async -> Void) async -> Bool {
        let expired = Expiry()
        let timer = Task { [self] in
            await timeout()
            guard !Task.isCancelled else { return }
            expired.flag.store(true, ordering: .releasing)
            notify()
        }
        defer { timer.cancel() }
        while true {
            let seen = state.withLock { $0.changes }
            if condition() { return true }
            if expired.flag.load(ordering: .acquiring) { return false }
            await withCheckedContinuation { continuation in
                let changed = state.withLock { state in
                    guard state.changes == seen else { return true }
                    state.waiters.append(continuation)
                    return false
                }
                if changed { continuation.resume() }
            }
        }
    }
}

/// Whether a wait's timeout has come.
private final class Expiry: Sendable {
    let flag = Atomic<Bool>(false)
}
