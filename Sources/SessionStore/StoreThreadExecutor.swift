import Basics
import Glibc

/// A serial executor backed by one dedicated thread: the ``SQLiteSessionStore`` actor runs every job on it, so the
/// SQLite connection is only ever touched by that thread and blocking database calls never occupy the cooperative
/// pool or an event loop (docs/architecture.md, "Concurrency model").
///
/// The thread lives until the executor is released; it holds only the shared queue, not the executor.
final class StoreThreadExecutor: SerialExecutor {
    /// What the executor and its thread share.
    private struct Queue {
        /// Jobs waiting to run, in order.
        var jobs: [UnownedJob] = []
        /// Whether the executor is gone: the thread ends once `jobs` is empty.
        var stopping = false
        /// The thread, once it runs.
        var thread: pthread_t?
    }

    private let queue = Locked(Queue())

    /// Starts the thread.
    /// - Parameter name: The thread's name, as tools show it.
    init(name: String = "session-store") {
        let queue = self.queue
        let executor = UnownedSerialExecutor(ordinary: self)
        startThread(name: name) {
            queue.withLock { $0.thread = pthread_self() }
            while let batch = Self.takeAll(from: queue) {
                for job in batch { job.runSynchronously(on: executor) }
            }
        }
    }

    deinit {
        queue.withLock { $0.stopping = true }
        queue.wakeWaiters()
    }

    /// Waits for jobs and takes them all, in order; nil once stopping with nothing left.
    private static func takeAll(from queue: Locked<Queue>) -> [UnownedJob]? {
        queue.withLock(
            waitingUntil: { !$0.jobs.isEmpty || $0.stopping },
            do: { queue in
                guard !queue.jobs.isEmpty else { return nil }
                defer { queue.jobs.removeAll(keepingCapacity: true) }
                return queue.jobs
            })
    }

    /// Queues a job to run on the thread.
    /// - Parameter job: The job.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        queue.withLock { $0.jobs.append(job) }
        queue.wakeWaiters()
    }

    /// This executor, unowned, for an actor's `unownedExecutor`.
    func asUnownedSerialExecutor() -> UnownedSerialExecutor { UnownedSerialExecutor(ordinary: self) }

    /// Whether the calling thread is this executor's thread.
    var isCurrentThread: Bool {
        queue.withLock { $0.thread.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
    }

    /// Traps unless called on this executor's thread (the runtime's check behind `assumeIsolated`).
    func checkIsolated() {
        precondition(isCurrentThread, "not on the session store's thread")
    }
}
