import HTTPServer

/// Store writes in flight, so shutdown can wait for every summary to be stored before the process exits.
final class StoreWrites: Sendable {
    private let tasks = Locked<(next: UInt64, running: [UInt64: Task<Void, Never>])>((0, [:]))

    /// Runs `write` in a task after `previous` (so one session's writes stay in order) and tracks it.
    /// - Returns: The task, to chain the session's next write after it.
    @discardableResult
    func run(after previous: Task<Void, Never>?, _ write: @escaping @Sendable () async -> Void) -> Task<Void, Never> {
        tasks.withLock { state in
            let id = state.next
            state.next += 1
            let task = Task {
                await previous?.value
                await write()
                self.tasks.withLock { _ = $0.running.removeValue(forKey: id) }
            }
            state.running[id] = task
            return task
        }
    }

    /// Waits until every write started so far (and any they chain) has finished.
    func waitForAll() async {
        while true {
            let running = tasks.withLock { Array($0.running.values) }
            if running.isEmpty { return }
            for task in running { await task.value }
        }
    }
}
