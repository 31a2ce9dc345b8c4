import Glibc

/// A value guarded by a `pthread_mutex_t`.
///
/// The server's modules use this rather than `Synchronization.Mutex` because the thread sanitizer intercepts
/// pthread mutexes but not the toolchain's futex-based `Mutex`, and would report every guarded access as a race.
public final class Locked<Value>: @unchecked Sendable {
    // Safety: `value` is read and written only between pthread_mutex_lock and pthread_mutex_unlock.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    /// Creates a lock around `value`.
    /// - Parameter value: The initial value.
    public init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
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
}
