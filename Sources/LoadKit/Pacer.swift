import Glibc
public import NetCore

/// Fires members of a fixed-rate schedule on one event loop: member `m` is due at `start + phase(m) + k·period`
/// for k = 0, 1, …, until the end. Times are the loop's clock (``EventLoop/now()``). A CLOCK_MONOTONIC timerfd
/// wakes the loop (falling back to the loop's millisecond timers, which also run a loop on a ``ManualClock``); to
/// save wake-ups it fires whatever is due at most every `tick` nanoseconds, and that wait is the caller's to count
/// (the `due` time passed to `fire` is the intended one). Members may be added while it runs. Used only on its
/// loop's thread.
public final class Pacer: EventLoopHandler {
    private let loop: EventLoop
    private let period: UInt64
    private let tick: UInt64
    private let fire: (_ member: Int, _ due: UInt64) -> Void
    private var schedule: [(member: Int, phase: UInt64)] = []
    private var cursor = 0
    private var cycleStart: UInt64 = 0
    private var end: UInt64 = 0
    private var running = false
    private var timerFD: Int32 = -1
    private var fallback: LoopTimer?

    /// A pacer; nothing fires before ``start(at:until:)``.
    /// - Parameters:
    ///   - loop: The loop to fire on.
    ///   - period: Nanoseconds between two firings of one member.
    ///   - tick: The shortest wait between two wake-ups, nanoseconds (0: wake for each due time).
    ///   - fire: Called on the loop for each due member with its intended time.
    public init(
        loop: EventLoop, period: UInt64, tick: UInt64, fire: @escaping (_ member: Int, _ due: UInt64) -> Void
    ) {
        self.loop = loop
        self.period = max(1, period)
        self.tick = tick
        self.fire = fire
    }

    /// The phase for the `index`th member of an open-ended set: the base-2 radical inverse of `index` times the
    /// period (0, ½, ¼, ¾, ⅛, …), so any number of members added in order are spread evenly over the period.
    /// - Parameter index: The member's position, from 0.
    /// - Returns: Nanoseconds into the period.
    public func spreadPhase(_ index: Int) -> UInt64 {
        var bits = UInt64(index)
        var reversed: UInt64 = 0
        for _ in 0..<64 {
            reversed = reversed << 1 | bits & 1
            bits >>= 1
        }
        return UInt64(Double(reversed) / 18_446_744_073_709_551_616.0 * Double(period))
    }

    /// Adds a member (also while running; it first fires at its next due time).
    /// - Parameters:
    ///   - member: The caller's identifier, passed back to `fire`.
    ///   - phase: Nanoseconds into each period, below the period.
    public func add(_ member: Int, phase: UInt64) {
        let phase = min(phase, period - 1)
        var low = 0
        var high = schedule.count
        while low < high {
            let middle = (low + high) / 2
            if schedule[middle].phase <= phase { low = middle + 1 } else { high = middle }
        }
        // Members before the cursor have fired in this cycle; one inserted after it fires in this cycle, at most a
        // tick late (its due time lies between the last one fired and the next one due).
        if low < cursor { cursor += 1 }
        schedule.insert((member, phase), at: low)
        if running { arm(after: loop.now()) }
    }

    /// Starts firing.
    /// - Parameters:
    ///   - start: The start of the first period, in nanoseconds of the loop's clock (``EventLoop/now()``).
    ///   - end: No member fires at or after this instant.
    public func start(at start: UInt64, until end: UInt64) {
        cycleStart = start
        self.end = end
        cursor = 0
        running = true
        // The timerfd keeps the machine's time; a loop on a manual clock is woken by its own timers.
        if timerFD < 0, case .monotonic = loop.clock, let timer = PreciseTimer.make() {
            do {
                try loop.register(timer, for: [.readable], handler: self)
                timerFD = timer
            } catch {
                Glibc.close(timer)
            }
        }
        arm(after: loop.now())
    }

    /// Stops firing and releases the timer.
    public func stop() {
        running = false
        fallback?.cancel()
        fallback = nil
        guard timerFD >= 0 else { return }
        loop.deregister(timerFD)
        Glibc.close(timerFD)
        timerFD = -1
    }

    private var nextDue: UInt64 { cycleStart + schedule[cursor].phase }

    private func arm(after now: UInt64) {
        guard running, !schedule.isEmpty else { return }
        guard nextDue < end else { return stop() }
        let due = max(nextDue, now + tick)
        if timerFD >= 0 {
            PreciseTimer.set(timerFD, at: due)
        } else {
            fallback?.cancel()
            let wait = due > now ? due - now : 0
            fallback = loop.schedule(after: .nanoseconds(Int64(wait))) { [weak self] in self?.wake() }
        }
    }

    /// The timerfd fired (the event loop calls this).
    /// - Parameter events: Readable.
    public func handle(_ events: IOEvents) {
        var expirations: UInt64 = 0
        _ = read(timerFD, &expirations, 8)
        wake()
    }

    private func wake() {
        guard running, !schedule.isEmpty else { return }
        let now = loop.now()
        while running && nextDue <= now && nextDue < end {
            let due = nextDue
            let member = schedule[cursor].member
            cursor += 1
            if cursor == schedule.count {
                cursor = 0
                cycleStart += period
            }
            fire(member, due)
        }
        arm(after: now)
    }
}
