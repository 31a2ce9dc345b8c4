import CNetShim
import Dispatch
import Glibc

/// Catches SIGTERM and SIGINT for a graceful shutdown.
///
/// Create it before the server says it is ready, so a signal sent at once is neither lost nor fatal; then
/// `await wait()`. A C handler writes each signal to a pipe, whichever thread the kernel picks, and a dispatch
/// source reads the pipe; creating it replaces the signals' default action (exiting at once) for the process.
public final class SignalWaiter: @unchecked Sendable {
    // Safety: `source` is written once in init and only kept alive afterwards; `state` is locked.
    private let state = Locked<(received: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))
    private var source: (any DispatchSourceRead)?

    /// Starts catching SIGTERM and SIGINT.
    public init() {
        source = SignalPipe.watch(cnet_termination_fd(), label: "signals") { [weak self] in self?.received() }
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
