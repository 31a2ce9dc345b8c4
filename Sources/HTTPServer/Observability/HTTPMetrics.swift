import Basics
import Synchronization

/// Counters the application can expose (e.g. at `/metrics`). Updated with relaxed atomics from every loop.
public final class HTTPMetrics: Sendable {
    private let informational = Atomic<Int>(0)
    private let successful = Atomic<Int>(0)
    private let redirection = Atomic<Int>(0)
    private let clientError = Atomic<Int>(0)
    private let serverError = Atomic<Int>(0)
    private let open = Atomic<Int>(0)
    private let accepted = Atomic<Int>(0)
    private let refused = Atomic<Int>(0)
    private let received = Atomic<Int>(0)
    private let sent = Atomic<Int>(0)

    /// Creates counters at zero (pass them to an ``HTTPServer`` to have it count into them).
    public init() {}

    /// A consistent-enough copy of the counters.
    public struct Snapshot: Sendable, Equatable {
        /// Responses by status class: index 1 = 1xx … 5 = 5xx.
        public var responsesByClass: [Int]
        /// Connections open now (HTTP and upgraded).
        public var openConnections: Int
        /// Connections accepted since start.
        public var acceptedConnections: Int
        /// Connections refused because of the connection limit.
        public var refusedConnections: Int
        /// Bytes read from clients.
        public var bytesReceived: Int
        /// Bytes written to clients.
        public var bytesSent: Int
    }

    /// The current values.
    public var snapshot: Snapshot {
        Snapshot(
            responsesByClass: [
                0, informational.load(ordering: .relaxed), successful.load(ordering: .relaxed),
                redirection.load(ordering: .relaxed), clientError.load(ordering: .relaxed),
                serverError.load(ordering: .relaxed),
            ],
            openConnections: open.load(ordering: .relaxed), acceptedConnections: accepted.load(ordering: .relaxed),
            refusedConnections: refused.load(ordering: .relaxed), bytesReceived: received.load(ordering: .relaxed),
            bytesSent: sent.load(ordering: .relaxed))
    }

    func responded(_ code: Int) {
        switch code / 100 {
        case 1: informational.add(1, ordering: .relaxed)
        case 2: successful.add(1, ordering: .relaxed)
        case 3: redirection.add(1, ordering: .relaxed)
        case 4: clientError.add(1, ordering: .relaxed)
        default: serverError.add(1, ordering: .relaxed)
        }
    }
    func received(_ count: Int) { received.add(count, ordering: .relaxed) }
    func sent(_ count: Int) { sent.add(count, ordering: .relaxed) }
    func refusedConnection() { refused.add(1, ordering: .relaxed) }

    /// Counts a connection the server admitted (``ConnectionAdmission``).
    func openedConnection() {
        open.add(1, ordering: .relaxed)
        accepted.add(1, ordering: .relaxed)
    }

    func closedConnection() {
        if open.subtract(1, ordering: .relaxed).newValue == 0 { allClosed.notify() }
    }

    /// Notified each time the last open connection closes (a draining server waits on it).
    let allClosed = ChangeSignal()

    var openConnections: Int { open.load(ordering: .relaxed) }
}
