import Basics
import CNetShim
import Dispatch
import Glibc
import Synchronization

/// Readiness reported by epoll for a registered file descriptor.
public struct IOEvents: OptionSet, Sendable {
    /// The raw epoll bits.
    public let rawValue: UInt32
    /// Creates a set from epoll bits.
    /// - Parameter rawValue: The bits.
    public init(rawValue: UInt32) { self.rawValue = rawValue }
    /// Data can be read (or a connection accepted).
    public static let readable = IOEvents(rawValue: EPOLLIN.rawValue)
    /// Data can be written.
    public static let writable = IOEvents(rawValue: EPOLLOUT.rawValue)
    /// The peer closed its writing side.
    public static let readHangup = IOEvents(rawValue: EPOLLRDHUP.rawValue)
    /// The descriptor hung up.
    public static let hangup = IOEvents(rawValue: EPOLLHUP.rawValue)
    /// The descriptor is in error.
    public static let error = IOEvents(rawValue: EPOLLERR.rawValue)
    /// Report readiness once per change (epoll's edge-triggered mode) instead of while it lasts: the handler must
    /// read until a short read or EAGAIN, but epoll need not look at the descriptor again after reporting it.
    public static let edgeTriggered = IOEvents(rawValue: EPOLLET.rawValue)
}

/// How an ``EventLoop`` waits when nothing is ready.
public enum IdleWait: Sendable, Equatable {
    /// Blocks in epoll until a descriptor is ready, a timer is due or work arrives: the lowest latency.
    case block
    /// Polls epoll without blocking and, when nothing was ready, sleeps `interval` (less when a timer is due
    /// sooner). Readiness and work handed over from other threads wait up to the interval, but whoever makes a
    /// descriptor ready never has to wake this thread: on a virtual machine a cross-CPU wake-up can cost more than
    /// the message that caused it. For a load generator that shares the machine with the server it measures; a
    /// server should block.
    case poll(interval: Duration)
}

/// A connection whose liveness its loop checks at a fixed interval (``EventLoop/keepAliveQueue(every:)``).
package protocol KeepAliveChecked: AnyObject {
    /// The interval has passed since the connection was armed; it may arm itself again.
    func checkKeepAlive()
}

/// An object that owns a file descriptor registered with an ``EventLoop``. Called only on the loop's thread.
public protocol EventLoopHandler: AnyObject {
    /// The descriptor is ready.
    /// - Parameter events: What it is ready for.
    func handle(_ events: IOEvents)
}

/// One thread running an epoll set: the descriptors registered with it, timers, and work scheduled from anywhere.
///
/// The loop is also a `SerialExecutor` and a `TaskExecutor`, so an actor (or a task) can run on the loop's thread
/// and reach the connections it owns without a thread hop.
public final class EventLoop: @unchecked Sendable {
    // Safety: `registrations`, `timers`, `threadID` and `draining` are touched only on the loop thread (or before it
    // starts); everything other threads hand over goes through `inbox`, a pthread mutex.
    private struct Inbox {
        var work: [Work] = []
        var isWoken = false
    }

    private enum Work {
        case closure(@Sendable () -> Void)
        case job(UnownedJob)
    }

    /// The loop's position in its group.
    public let index: Int
    /// Its thread's name.
    let name: String
    /// How it waits when nothing is ready.
    let idleWait: IdleWait
    /// The clock its timers run by when it is not the machine's (tests).
    private let manualClock: ManualClock?
    private let epollFD: Int32
    private let wakeFD: Int32
    private let inbox = Locked(Inbox())
    /// The work taken from the inbox being run; swapped with the inbox's list, so that neither list is ever copied
    /// and both keep their capacity (handing work over allocates nothing once they have grown).
    private var draining: [Work] = []
    private let running = Atomic<Bool>(true)
    /// A registered descriptor's registration number (see ``token(_:_:)``) and handler.
    private struct Registration {
        var number: UInt32 = 0
        var handler: (any EventLoopHandler)?
    }

    /// Registrations indexed by descriptor (descriptors are small integers, reused lowest first).
    private var registrations: [Registration] = []
    private var lastRegistration: UInt32 = 0
    private var timers = TimerQueue()
    /// The keep-alive checks of the loop's connections (WebSocket pings), a queue per interval (nanoseconds). Loop
    /// thread only.
    package var keepAliveQueues: [UInt64: IntervalQueue<AnyObject>] = [:]
    private let threadID = Atomic<UInt>(0)
    private let finished = DispatchSemaphore(value: 0)
    /// A read buffer shared by every connection of this loop (loop thread only): an idle connection holds
    /// no buffer of its own.
    package let readBuffer = ReadBuffer(capacity: 64 * 1024)

    init(index: Int, name: String, idleWait: IdleWait = .block, clock: LoopClock = .monotonic) throws(SystemError) {
        self.index = index
        self.name = name
        self.idleWait = idleWait
        if case .manual(let clock) = clock { manualClock = clock } else { manualClock = nil }
        wokeAt = manualClock?.now ?? Self.now()
        epollFD = epoll_create1(Int32(EPOLL_CLOEXEC))
        guard epollFD >= 0 else { throw SystemError.last("epoll_create1") }
        wakeFD = eventfd(0, Int32(EFD_NONBLOCK | EFD_CLOEXEC))
        guard wakeFD >= 0 else { throw SystemError.last("eventfd") }
        var event = epoll_event(events: EPOLLIN.rawValue, data: epoll_data_t(u64: Self.token(wakeFD, 0)))
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, wakeFD, &event) == 0 else { throw SystemError.last("epoll_ctl") }
        manualClock?.attach(self)
    }

    deinit {
        close(wakeFD)
        close(epollFD)
    }

    /// Starts the loop's thread.
    func start() {
        startThread(name: name, stackSize: 1 << 20) { [self] in run() }
    }

    /// Whether the caller runs on this loop's thread.
    public var inEventLoop: Bool {
        threadID.load(ordering: .acquiring) == UInt(bitPattern: Int(bitPattern: pthread_self()))
    }

    /// Runs `work` on the loop's thread, soon, in order with other scheduled work.
    /// - Parameter work: The work.
    public func execute(_ work: @escaping @Sendable () -> Void) { push(.closure(work)) }

    private func push(_ work: Work) {
        let wake = inbox.withLock { inbox in
            inbox.work.append(work)
            defer { inbox.isWoken = true }
            return !inbox.isWoken
        }
        if wake {
            var one: UInt64 = 1
            _ = write(wakeFD, &one, 8)
        }
    }

    /// The loop's keep-alive queue for `interval`, made on first use: each connection armed in it has its
    /// ``KeepAliveChecked/checkKeepAlive()`` called `interval` later. Loop thread only.
    /// - Parameter interval: How long after its arming a connection is checked.
    /// - Returns: The queue.
    package func keepAliveQueue(every interval: Duration) -> IntervalQueue<AnyObject> {
        let key = Self.nanoseconds(interval)
        if let queue = keepAliveQueues[key] { return queue }
        let queue = IntervalQueue<AnyObject>(interval: interval, loop: self) {
            ($0 as? any KeepAliveChecked)?.checkKeepAlive()
        }
        keepAliveQueues[key] = queue
        return queue
    }

    /// Registers `handler` for readiness of `fd`. Loop thread only.
    /// - Parameters:
    ///   - fd: The descriptor, non-blocking.
    ///   - events: The readiness to report.
    ///   - handler: Who handles it; the loop keeps it until ``deregister(_:)``.
    /// - Throws: ``SystemError`` when epoll refuses.
    public func register(_ fd: Int32, for events: IOEvents, handler: any EventLoopHandler) throws(SystemError) {
        lastRegistration = lastRegistration == .max ? 1 : lastRegistration + 1
        var event = epoll_event(events: events.rawValue, data: epoll_data_t(u64: Self.token(fd, lastRegistration)))
        guard epoll_ctl(epollFD, EPOLL_CTL_ADD, fd, &event) == 0 else { throw SystemError.last("epoll_ctl(ADD)") }
        let index = Int(fd)
        if index >= registrations.count {
            registrations.append(contentsOf: repeatElement(Registration(), count: index + 1 - registrations.count))
        }
        registrations[index] = Registration(number: lastRegistration, handler: handler)
    }

    /// What epoll hands back for a registration: the descriptor and a registration number. A descriptor closed
    /// while handling one event of a batch can be reused at once by a new socket; a later event of the same batch
    /// for the old one must not reach the new one's handler, so events are delivered only when the registration
    /// number matches too.
    private static func token(_ fd: Int32, _ registration: UInt32) -> UInt64 {
        UInt64(registration) << 32 | UInt64(UInt32(bitPattern: fd))
    }

    /// Changes the readiness reported for `fd`. Loop thread only.
    /// - Parameters:
    ///   - fd: A registered descriptor.
    ///   - events: The readiness to report.
    public func modify(_ fd: Int32, for events: IOEvents) {
        guard let registration = registration(of: fd) else { return }
        var event = epoll_event(events: events.rawValue, data: epoll_data_t(u64: Self.token(fd, registration)))
        _ = epoll_ctl(epollFD, EPOLL_CTL_MOD, fd, &event)
    }

    /// Stops reporting `fd` and releases its handler. Loop thread only; close the descriptor afterwards.
    /// - Parameter fd: A registered descriptor.
    public func deregister(_ fd: Int32) {
        _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, fd, nil)
        if registration(of: fd) != nil { registrations[Int(fd)] = Registration() }
    }

    /// The registration number of `fd`, nil when it is not registered.
    private func registration(of fd: Int32) -> UInt32? {
        let index = Int(fd)
        guard index >= 0, index < registrations.count, registrations[index].handler != nil else { return nil }
        return registrations[index].number
    }

    /// Runs `work` on the loop thread after `delay`, unless cancelled. Loop thread only.
    /// - Parameters:
    ///   - delay: How long to wait.
    ///   - work: The work.
    /// - Returns: A handle to cancel the timer.
    @discardableResult
    public func schedule(after delay: Duration, _ work: @escaping () -> Void) -> LoopTimer {
        timers.add(at: now() + Self.nanoseconds(delay), work)
    }

    /// Runs `work` on the loop thread once the loop's clock reaches `deadline` (at the next wake-up when it has
    /// already), unless cancelled. Loop thread only.
    /// - Parameters:
    ///   - deadline: When, on the loop's clock (``now()``), nanoseconds.
    ///   - work: The work.
    /// - Returns: A handle to cancel the timer.
    @discardableResult
    public func schedule(at deadline: UInt64, _ work: @escaping () -> Void) -> LoopTimer {
        timers.add(at: deadline, work)
    }

    /// Cancels `timer`: its work will not run, what the work holds is released at once, and the timer itself leaves
    /// the loop's queue soon, not at its deadline (``LoopTimer/cancel()`` alone leaves it there until then). Loop
    /// thread only.
    /// - Parameter timer: A timer of this loop; nil does nothing.
    /// - Complexity: Amortized O(1).
    public func cancel(_ timer: LoopTimer?) {
        guard let timer else { return }
        timers.cancel(timer)
    }

    /// How many timers the loop holds, cancelled ones not yet dropped included. Loop thread only.
    var timerCount: Int { timers.count }

    /// Runs the timers due by the loop's clock now. Loop thread only (``ManualClock/advance(by:)``).
    func runDueTimers() {
        wokeAt = now()
        while let timer = timers.popExpired(now: wokeAt) { timer.fire() }
    }

    /// A duration in whole nanoseconds (0 for a negative one).
    package static func nanoseconds(_ duration: Duration) -> UInt64 {
        UInt64(max(0, duration.components.seconds)) * 1_000_000_000
            + UInt64(max(0, duration.components.attoseconds / 1_000_000_000))
    }

    /// The machine's monotonic time in nanoseconds.
    public static func now() -> UInt64 { MonotonicClock.nanoseconds() }

    /// The loop's clock in nanoseconds (the machine's, or a ``ManualClock``): what timeouts of the loop's connections
    /// are measured in. Safe from any thread.
    public func now() -> UInt64 { manualClock?.now ?? MonotonicClock.nanoseconds() }

    /// The clock the loop's timers run by: ``LoopClock/monotonic``, or the ``ManualClock`` it was made with.
    public var clock: LoopClock { manualClock.map { .manual($0) } ?? .monotonic }

    /// ``now()`` as of the loop's latest wake-up: what the work of one batch of events shares, read without a clock
    /// call each. Loop thread only.
    public var time: UInt64 {
        precondition(inEventLoop, "EventLoop.time must be read on the loop's thread")
        return wokeAt
    }
    private var wokeAt: UInt64

    /// Asks the loop to stop after the work already scheduled; ``waitUntilStopped()`` waits for it.
    public func stop() {
        execute { [self] in running.store(false, ordering: .releasing) }
    }

    /// Blocks until the loop's thread has finished.
    public func waitUntilStopped() { finished.wait() }

    private func run() {
        threadID.store(UInt(bitPattern: Int(bitPattern: pthread_self())), ordering: .releasing)
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        let pollInterval: UInt64? =
            switch idleWait {
            case .block: nil
            case .poll(let interval): max(1, Self.nanoseconds(interval))
            }
        while running.load(ordering: .acquiring) {
            var timeout = pollInterval == nil ? timers.millisecondsUntilNext(now: now()) : 0
            // A manual clock moves only by `advance`, which wakes the loop: no real time is worth waiting for.
            if manualClock != nil && timeout > 0 { timeout = -1 }
            let count = events.withUnsafeMutableBufferPointer { epoll_wait(epollFD, $0.baseAddress, 256, timeout) }
            wokeAt = now()
            if count > 0 {
                for event in events[0..<Int(count)] {
                    let token = event.data.u64
                    let fd = Int32(bitPattern: UInt32(truncatingIfNeeded: token))
                    if fd == wakeFD {
                        var value: UInt64 = 0
                        _ = read(wakeFD, &value, 8)
                    } else if Int(fd) < registrations.count, registrations[Int(fd)].number == UInt32(token >> 32),
                        let handler = registrations[Int(fd)].handler
                    {
                        handler.handle(IOEvents(rawValue: event.events))
                    }
                }
            }
            runInbox()
            while let timer = timers.popExpired(now: wokeAt) { timer.fire() }
            if count <= 0, let pollInterval { pause(upTo: pollInterval) }
        }
        runInbox()
        for (fd, registration) in registrations.enumerated() where registration.handler != nil {
            _ = epoll_ctl(epollFD, EPOLL_CTL_DEL, Int32(fd), nil)
        }
        registrations.removeAll()
        // Timers may hold their owners (and so this loop) strongly; a stopped loop runs none of them.
        timers.removeAll()
        for queue in keepAliveQueues.values { queue.removeAll() }
        keepAliveQueues.removeAll()
        finished.signal()
    }

    /// Sleeps (outside epoll) for `interval`, or until the next timer is due when that is sooner.
    private func pause(upTo interval: UInt64) {
        let next = manualClock == nil ? timers.nanosecondsUntilNext(now: now()) : nil
        let wait = min(interval, next ?? interval)
        guard wait > 0 else { return }
        var remaining = timespec(tv_sec: Int(wait / 1_000_000_000), tv_nsec: Int(wait % 1_000_000_000))
        var request = remaining
        while nanosleep(&request, &remaining) != 0 && errno == EINTR { request = remaining }
    }

    private func runInbox() {
        while true {
            inbox.withLock { inbox in
                inbox.isWoken = false
                swap(&inbox.work, &draining)
            }
            if draining.isEmpty { return }
            for work in draining {
                switch work {
                case .closure(let closure): closure()
                case .job(let job):
                    job.runSynchronously(isolatedTo: asUnownedSerialExecutor(), taskExecutor: asUnownedTaskExecutor())
                }
            }
            draining.removeAll(keepingCapacity: true)
        }
    }
}

extension EventLoop: SerialExecutor, TaskExecutor {
    /// Runs a job of an actor or task bound to this loop, on the loop's thread.
    /// - Parameter job: The job.
    public func enqueue(_ job: consuming ExecutorJob) { push(.job(UnownedJob(job))) }

    /// This loop as an actor's executor.
    public func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    /// This loop as a task's preferred executor.
    public func asUnownedTaskExecutor() -> UnownedTaskExecutor { UnownedTaskExecutor(ordinary: self) }

    /// Traps unless called on the loop's thread (what `assumeIsolated` relies on).
    public func checkIsolated() {
        precondition(inEventLoop, "not on event loop \(index)")
    }
}
