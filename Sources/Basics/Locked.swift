import Glibc

/// A value guarded by a pthread mutex, with a condition variable for waiting until the value is as wanted.
///
/// The server's modules use this rather than `Synchronization.Mutex` because the thread sanitizer intercepts
/// pthread mutexes but not the toolchain's futex-based `Mutex`, and would report every guarded access as a race.
///
/// ```swift
/// let jobs = Locked<[Int]>([])
/// jobs.withLock { $0.append(1) }
/// jobs.wakeWaiters()
/// let first = jobs.withLock(waitingUntil: { !$0.isEmpty }, do: { $0.removeFirst() })  // on another thread
/// ```
public final class Locked<Value>: @unchecked Sendable {
    // Safety: `value` is read and written only between pthread_mutex_lock and pthread_mutex_unlock.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var value: Value

    /// Creates a lock around `value`.
    /// - Parameter value: The initial value.
    public init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    /// - Parameter body: Work on the value; it must not call back into the same lock.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }

    /// Blocks until `isReady` holds for the value, then runs `body` with exclusive access to it. The lock is let go
    /// while waiting; `isReady` is asked again each time ``wakeWaiters()`` is called (and, rarely, spuriously).
    /// - Parameters:
    ///   - isReady: Whether the value is as wanted; called with the lock held.
    ///   - body: Work on the value; it must not call back into the same lock.
    /// - Returns: What `body` returns.
    /// - Throws: What `body` throws.
    public func withLock<T>(
        waitingUntil isReady: (Value) -> Bool, do body: (inout Value) throws -> T
    ) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !isReady(value) { pthread_cond_wait(condition, mutex) }
        return try body(&value)
    }

    /// Wakes every thread waiting in ``withLock(waitingUntil:do:)`` to look at the value again: call it after
    /// changing the value in ``withLock(_:)``.
    public func wakeWaiters() { pthread_cond_broadcast(condition) }
}
