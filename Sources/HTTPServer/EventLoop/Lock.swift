import Glibc

/// A value guarded by a `pthread_mutex_t`.
///
/// The event loop's inbox uses this rather than `Synchronization.Mutex` because the thread sanitizer intercepts
/// pthread mutexes but not the toolchain's futex-based `Mutex`, and would report every guarded access as a race.
final class Locked<Value>: @unchecked Sendable {
    // Safety: `value` is read and written only between pthread_mutex_lock and pthread_mutex_unlock.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private var value: Value

    init(_ value: Value) {
        self.value = value
        pthread_mutex_init(mutex, nil)
    }

    deinit {
        pthread_mutex_destroy(mutex)
        mutex.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    func withLock<T>(_ body: (inout Value) throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(&value)
    }
}
