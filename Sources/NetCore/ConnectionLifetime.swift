import Synchronization

/// Keeps a connection counted among the server's open connections until ``close()`` is called.
public final class ConnectionLifetime: Sendable {
    private let onClose: @Sendable () -> Void
    private let closed = Synchronization.Atomic<Bool>(false)

    package init(onClose: @escaping @Sendable () -> Void) { self.onClose = onClose }

    /// Marks the connection closed (idempotent).
    public func close() {
        if !closed.exchange(true, ordering: .acquiringAndReleasing) { onClose() }
    }

    deinit { close() }
}
