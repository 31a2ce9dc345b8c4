/// A deadline that moves with nearly every event but seldom passes, such as a connection's timeout re-armed by each
/// request: one loop timer at a time, scheduled anew only when the deadline moves earlier than it, or when it fires
/// and finds the deadline moved later. A keep-alive connection answering requests back to back thus touches the
/// loop's timer heap once per timeout period, not three times per request. Loop thread only.
package struct MovingDeadline {
    /// The deadline on the loop's clock, nanoseconds; nil when cleared.
    package private(set) var deadline: UInt64?
    private var timer: LoopTimer?
    private var timerDeadline: UInt64 = 0

    /// No deadline.
    package init() {}

    /// Sets the deadline, scheduling `due` on `loop` unless the pending timer fires by then.
    /// - Parameters:
    ///   - deadline: The new deadline on `loop`'s clock.
    ///   - loop: The loop the timer runs on.
    ///   - due: Run when the timer fires; it must call ``fired(now:on:_:)`` with itself.
    package mutating func set(_ deadline: UInt64, on loop: EventLoop, _ due: @escaping () -> Void) {
        self.deadline = deadline
        if let timer, !timer.isDone, timerDeadline <= deadline { return }
        loop.cancel(timer)
        timerDeadline = deadline
        timer = loop.schedule(at: deadline, due)
    }

    /// Clears the deadline; a pending timer stays and finds nothing due.
    package mutating func clear() { deadline = nil }

    /// Clears the deadline and cancels the pending timer, releasing what its work holds; the timer leaves `loop`'s
    /// queue soon (``EventLoop/cancel(_:)``).
    /// - Parameter loop: The loop the timer runs on.
    package mutating func cancel(on loop: EventLoop) {
        deadline = nil
        loop.cancel(timer)
        timer = nil
    }

    /// Called by the timer's work: whether the deadline has passed (it is then cleared). A deadline moved later
    /// schedules `due` again for it.
    /// - Parameters:
    ///   - now: The loop's clock now.
    ///   - loop: The loop the timer runs on.
    ///   - due: The same work as given to ``set(_:on:_:)``.
    package mutating func fired(now: UInt64, on loop: EventLoop, _ due: @escaping () -> Void) -> Bool {
        timer = nil
        guard let deadline else { return false }
        if deadline <= now {
            self.deadline = nil
            return true
        }
        set(deadline, on: loop, due)
        return false
    }
}
