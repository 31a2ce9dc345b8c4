import CNetShim
import Dispatch
import Glibc
import Synchronization

/// Catches SIGTERM and SIGINT for a graceful shutdown.
///
/// Create it before the server says it is ready, so a signal sent at once is neither lost nor fatal; then
/// `await wait()`. A C handler writes each signal to a pipe, whichever thread the kernel picks, and a dispatch
/// source reads the pipe; creating it replaces the signals' default action (exiting at once) for the process.
public final class SignalWaiter: @unchecked Sendable {
    // Safety: `source` is written once in init and only kept alive afterwards; `state` is a Mutex.
    private let state = Mutex<(received: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))
    private let source: (any DispatchSourceRead)?

    /// Starts catching SIGTERM and SIGINT.
    public init() {
        let fd = cnet_termination_fd()
        guard fd >= 0 else {
            source = nil
            return
        }
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: DispatchQueue(label: "signals"))
        self.source = source
        source.setEventHandler { [weak self] in
            var bytes = [UInt8](repeating: 0, count: 16)
            while read(fd, &bytes, bytes.count) > 0 {}
            self?.received()
        }
        source.resume()
    }

    private func received() {
        let waiter = state.withLock { state in
            state.received = true
            defer { state.waiter = nil }
            return state.waiter
        }
        waiter?.resume()
    }

    /// Returns once SIGTERM or SIGINT has arrived (at once if one already has).
    public func wait() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let already = state.withLock { state in
                if !state.received { state.waiter = continuation }
                return state.received
            }
            if already { continuation.resume() }
        }
    }
}
