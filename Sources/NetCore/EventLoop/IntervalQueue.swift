/// Deadlines that each lie one fixed interval after they were armed, for many owners on one loop, such as the
/// keep-alive checks of its WebSocket connections.
///
/// Since every deadline is `interval` after its arming, deadlines come due in the order they were armed: a
/// first-in-first-out queue holds them, and one loop timer, for the oldest, serves them all. An armed owner costs 16
/// bytes of the queue's storage and no allocation of its own, where a ``LoopTimer`` is an object (64 bytes with
/// malloc's overhead) plus a place in the loop's heap. Loop thread only.
///
/// ```
/// entries:  [ done | done | A@t1 | nil@t2 | B@t3 ]     t1 ≤ t2 ≤ t3; one loop timer at t1
///                          ^ head                       tickets count every arming, from `base` at index 0
/// ```
package final class IntervalQueue<Owner: AnyObject> {
    /// How long after its arming an owner comes due, nanoseconds.
    package let interval: UInt64
    private unowned let loop: EventLoop
    private let due: (Owner) -> Void
    /// Armed owners, oldest first from ``head``; nil where one was disarmed.
    private var entries: [(deadline: UInt64, owner: Owner?)] = []
    /// The index of the oldest entry not yet due.
    private var head = 0
    /// The ticket of `entries[0]`: an owner's ticket stays valid as the storage shifts.
    private var base = 0
    /// The loop timer for the oldest entry, nil when the queue is empty.
    private var timer: LoopTimer?

    /// An empty queue.
    /// - Parameters:
    ///   - interval: How long after its arming an owner comes due.
    ///   - loop: The loop it runs on; it must outlive the queue's use.
    ///   - due: Runs with each owner that comes due (it may arm the owner again).
    package init(interval: Duration, loop: EventLoop, due: @escaping (Owner) -> Void) {
        self.interval = EventLoop.nanoseconds(interval)
        self.loop = loop
        self.due = due
    }

    /// How many owners are armed or were disarmed and have not yet come due (tests).
    package var count: Int { entries.count - head }

    /// Arms `owner`: ``due`` runs with it ``interval`` from now on the loop's clock, unless it is disarmed first.
    /// - Parameter owner: The owner, held until it comes due or is disarmed.
    /// - Returns: The ticket to disarm it with.
    /// - Complexity: Amortized O(1).
    package func arm(_ owner: Owner) -> Int {
        let ticket = base + entries.count
        entries.append((loop.now() + interval, owner))
        if timer == nil { scheduleHead() }
        return ticket
    }

    /// Disarms `owner`, armed with `ticket`, releasing it; nothing when that arming has come due already.
    /// - Parameters:
    ///   - ticket: What ``arm(_:)`` returned.
    ///   - owner: The owner it armed.
    package func disarm(_ ticket: Int, of owner: Owner) {
        let index = ticket - base
        guard index >= head, index < entries.count, entries[index].owner === owner else { return }
        entries[index].owner = nil
    }

    /// Releases every owner and the timer (the loop is stopping).
    package func removeAll() {
        loop.cancel(timer)
        timer = nil
        entries = []
        base += head
        head = 0
    }

    private func fire() {
        // `timer` stays set while owners run, so that one armed again schedules no second timer.
        let now = loop.now()
        while head < entries.count, entries[head].deadline <= now {
            let owner = entries[head].owner
            entries[head].owner = nil
            head += 1
            if let owner { due(owner) }
        }
        if head == entries.count {
            // The room of a small queue is kept for the next arming; a large one's is given back.
            entries.removeAll(keepingCapacity: entries.capacity <= 64)
            base += head
            head = 0
        } else if head >= 64, head * 2 >= entries.count {
            entries.removeSubrange(..<head)
            base += head
            head = 0
        }
        timer = nil
        if head < entries.count { scheduleHead() }
    }

    private func scheduleHead() {
        // The queue holds its timer and the timer the queue until it fires or the loop stops (``removeAll()``).
        timer = loop.schedule(at: entries[head].deadline) { [self] in fire() }
    }
}

@available(*, unavailable)
extension IntervalQueue: Sendable {}
