/// A pending timer of an ``EventLoop``; cancel it on the loop's thread.
public final class LoopTimer {
    let deadline: UInt64
    let sequence: UInt64
    private var work: (() -> Void)?

    init(deadline: UInt64, sequence: UInt64, work: @escaping () -> Void) {
        self.deadline = deadline
        self.sequence = sequence
        self.work = work
    }

    /// Cancels the timer; its work will not run.
    public func cancel() { work = nil }

    /// Runs the work once (nothing if cancelled or already run).
    func fire() {
        guard let work else { return }
        self.work = nil
        work()
    }

    /// Whether the timer was cancelled or has run.
    public var isDone: Bool { work == nil }
}

@available(*, unavailable)
extension LoopTimer: Sendable {}

/// A binary min-heap of timers ordered by deadline, then by creation.
///
/// A timer cancelled with ``LoopTimer/cancel()`` stays in the heap until its deadline comes up; one cancelled through
/// ``cancel(_:)`` is counted, and once those make up an eighth of the heap they are all swept out at once. A connection
/// that hands its socket over or closes long before its timeout thus leaves no timer behind for long (the heap's
/// share of each idle connection stays its own live timers), at an amortized constant cost per cancellation.
struct TimerQueue {
    private var heap: [LoopTimer] = []
    private var sequence: UInt64 = 0
    /// Timers cancelled through ``cancel(_:)`` since the last sweep (some may have left the heap since).
    private var cancelledCount = 0
    /// The fewest counted cancellations worth a sweep: a small heap is not worth the pass.
    static let sweepThreshold = 64

    mutating func add(at deadline: UInt64, _ work: @escaping () -> Void) -> LoopTimer {
        sequence += 1
        let timer = LoopTimer(deadline: deadline, sequence: sequence, work: work)
        heap.append(timer)
        siftUp(heap.count - 1)
        return timer
    }

    /// Nanoseconds until the next live timer (0 when one is due); nil when there is none.
    mutating func nanosecondsUntilNext(now: UInt64) -> UInt64? {
        while let first = heap.first, first.isDone { removeFirst() }
        guard let first = heap.first else { return nil }
        return first.deadline > now ? first.deadline - now : 0
    }

    /// Milliseconds until the next live timer, rounded up; -1 when there is none.
    mutating func millisecondsUntilNext(now: UInt64) -> Int32 {
        guard let wait = nanosecondsUntilNext(now: now) else { return -1 }
        return Int32(min(UInt64(Int32.max), (wait + 999_999) / 1_000_000))
    }

    /// Removes and returns the earliest timer due by `now` (cancelled ones are dropped on the way), or nil.
    ///
    /// The loop runs the returned timer's work itself, outside any access to the queue, so that work may
    /// schedule new timers.
    mutating func popExpired(now: UInt64) -> LoopTimer? {
        while let first = heap.first, first.deadline <= now || first.isDone {
            removeFirst()
            if !first.isDone { return first }
        }
        return nil
    }

    var count: Int { heap.count }

    /// Cancels `timer` (its work will not run, and what the work holds is released) and drops it from the heap soon:
    /// at the next sweep, due once cancelled timers make up an eighth of the heap.
    /// - Parameter timer: A timer of this queue.
    /// - Complexity: Amortized O(1); a sweep is O(*n*).
    mutating func cancel(_ timer: LoopTimer) {
        guard !timer.isDone else { return }
        timer.cancel()
        cancelledCount += 1
        if cancelledCount >= Self.sweepThreshold && cancelledCount * 8 >= heap.count { sweep() }
    }

    /// Drops every cancelled or finished timer and restores the heap order.
    private mutating func sweep() {
        heap.removeAll { $0.isDone }
        cancelledCount = 0
        var index = heap.count / 2
        while index > 0 {
            index -= 1
            siftDown(index)
        }
    }

    /// Cancels and drops every timer.
    mutating func removeAll() {
        for timer in heap { timer.cancel() }
        heap.removeAll()
        cancelledCount = 0
    }

    private mutating func removeFirst() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        if !heap.isEmpty { siftDown(0) }
    }

    private func less(_ a: Int, _ b: Int) -> Bool {
        (heap[a].deadline, heap[a].sequence) < (heap[b].deadline, heap[b].sequence)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard less(child, parent) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            var smallest = parent
            let left = 2 * parent + 1
            if left < heap.count && less(left, smallest) { smallest = left }
            if left + 1 < heap.count && less(left + 1, smallest) { smallest = left + 1 }
            guard smallest != parent else { return }
            heap.swapAt(parent, smallest)
            parent = smallest
        }
    }
}
