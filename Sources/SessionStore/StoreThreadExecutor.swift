import Glibc

/// A serial executor backed by one dedicated thread: the ``SQLiteSessionStore`` actor runs every job on it, so the
/// SQLite connection is only ever touched by that thread and blocking database calls never occupy the cooperative
/// pool or an event loop (ARCHITECTURE.md, concurrency model).
///
/// The thread lives until the executor is released; it holds only the shared ``Queue``, not the executor.
final class StoreThreadExecutor: SerialExecutor {
    /// Jobs waiting to run, guarded by a condition variable.
    ///
    /// `@unchecked Sendable` (the lowest layer): every mutable field is read and written only with `mutex`
    /// locked. A pthread mutex and condition variable rather than `Synchronization.Mutex` plus a semaphore,
    /// because the thread sanitizer understands pthread locks but not `Mutex`'s futex on Linux.
    private final class Queue: @unchecked Sendable {
        private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
        private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
        private var jobs: [UnownedJob] = []
        private var stopping = false
        private var thread: pthread_t?

        init() {
            pthread_mutex_init(mutex, nil)
            pthread_cond_init(condition, nil)
        }

        deinit {
            pthread_cond_destroy(condition)
            pthread_mutex_destroy(mutex)
            condition.deallocate()
            mutex.deallocate()
        }

        private func lock() { pthread_mutex_lock(mutex) }
        private func unlock() { pthread_mutex_unlock(mutex) }

        func push(_ job: UnownedJob) {
            lock()
            jobs.append(job)
            pthread_cond_signal(condition)
            unlock()
        }

        func stop() {
            lock()
            stopping = true
            pthread_cond_signal(condition)
            unlock()
        }

        /// Waits for jobs and takes them all, in order; nil once stopping with nothing left.
        func takeAll() -> [UnownedJob]? {
            lock()
            defer { unlock() }
            while jobs.isEmpty && !stopping { pthread_cond_wait(condition, mutex) }
            guard !jobs.isEmpty else { return nil }
            defer { jobs.removeAll(keepingCapacity: true) }
            return jobs
        }

        func register(_ current: pthread_t) {
            lock()
            thread = current
            unlock()
        }

        var isCurrentThread: Bool {
            lock()
            defer { unlock() }
            return thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false
        }
    }

    private let queue = Queue()

    /// Starts the thread.
    init() {
        let queue = self.queue
        let executor = UnownedSerialExecutor(ordinary: self)
        let body = Unmanaged.passRetained(
            ThreadBody {
                nameThread("session-store")
                queue.register(pthread_self())
                while let batch = queue.takeAll() {
                    for job in batch { job.runSynchronously(on: executor) }
                }
            }
        ).toOpaque()
        var thread = pthread_t()
        let result = pthread_create(
            &thread, nil,
            { argument in
                guard let argument else { return nil }
                let body = Unmanaged<ThreadBody>.fromOpaque(argument).takeRetainedValue()
                body.run()
                return nil
            }, body)
        precondition(result == 0, "pthread_create failed: \(result)")
        pthread_detach(thread)
    }

    deinit { queue.stop() }

    /// Queues a job to run on the thread.
    /// - Parameter job: The job.
    func enqueue(_ job: consuming ExecutorJob) { queue.push(UnownedJob(job)) }

    /// This executor, unowned, for an actor's `unownedExecutor`.
    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    /// Whether the calling thread is this executor's thread.
    var isCurrentThread: Bool { queue.isCurrentThread }

    /// Traps unless called on this executor's thread (the runtime's check behind `assumeIsolated`).
    func checkIsolated() {
        precondition(isCurrentThread, "not on the session store's thread")
    }
}

/// Names the calling thread (`/proc/thread-self/comm`, proc(5)): unnamed, it would carry the name of whichever
/// thread created it, and profiles would mix it up with those.
private func nameThread(_ name: StaticString) {
    let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
    guard fd >= 0 else { return }
    _ = write(fd, name.utf8Start, name.utf8CodeUnitCount)
    close(fd)
}

/// The work of the store's thread, handed through `pthread_create`'s context pointer.
private final class ThreadBody {
    let work: () -> Void

    init(_ work: @escaping () -> Void) { self.work = work }

    func run() { work() }
}
