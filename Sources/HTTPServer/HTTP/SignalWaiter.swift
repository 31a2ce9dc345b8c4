import Dispatch
import Glibc
import Synchronization

/// Catches SIGTERM and SIGINT for a graceful shutdown.
///
/// Create it before the server says it is ready, so a signal sent at once is never lost nor fatal; then
/// `await wait()`. Creating it turns off the signals' default action (exiting at once) for the process.
public final class SignalWaiter: @unchecked Sendable {
    // Safety: `sources` is written once in init and only kept alive afterwards; `state` is a Mutex.
    private let state = Mutex<(received: Bool, waiter: CheckedContinuation<Void, Never>?)>((false, nil))
    private let sources: [any DispatchSourceSignal]

    /// Starts catching SIGTERM and SIGINT.
    public init() {
        let queue = DispatchQueue(label: "signals")
        var sources: [any DispatchSourceSignal] = []
        for signalNumber in [SIGTERM, SIGINT] {
            signal(signalNumber, SIG_IGN)
            sources.append(DispatchSource.makeSignalSource(signal: signalNumber, queue: queue))
        }
        self.sources = sources
        for source in sources {
            source.setEventHandler { [weak self] in self?.received() }
            source.resume()
        }
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
