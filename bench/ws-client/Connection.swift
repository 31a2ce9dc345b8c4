import LoadKit
import Synchronization

/// What all loops share: connection counts, read by the main task while the loops run.
final class Shared: Sendable {
    let inFlight = Atomic<Int>(0)
    let opened = Atomic<Int>(0)
    let failed = Atomic<Int>(0)
    let lost = Atomic<Int>(0)
    let finished = Atomic<Int>(0)
}

/// One benchmark connection. Used only on its worker's loop thread.
class Connection {
    let index: Int
    unowned let worker: Worker
    var times = PendingSends()
    var isOpen = false
    var sentFrames = 0

    init(index: Int, worker: Worker) {
        self.index = index
        self.worker = worker
    }

    func start() {}
    func send(_ count: Int) {}
    func close() {}
}
