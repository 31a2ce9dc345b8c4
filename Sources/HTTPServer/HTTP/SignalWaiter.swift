import Dispatch
import Glibc
import Synchronization

/// Waits for SIGTERM or SIGINT, for graceful shutdown.
public enum SignalWaiter {
    /// Returns once the process receives SIGTERM or SIGINT (their default action, exiting at once, is disabled).
    public static func waitForTermination() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let queue = DispatchQueue(label: "signals")
            let once = OnceFlag()
            var sources: [any DispatchSourceSignal] = []
            for signalNumber in [SIGTERM, SIGINT] {
                signal(signalNumber, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: signalNumber, queue: queue)
                source.setEventHandler {
                    if once.claim() { continuation.resume() }
                }
                source.resume()
                sources.append(source)
            }
            Retainer.keep(sources)
        }
    }

    /// Keeps the signal sources alive for the life of the process.
    private enum Retainer {
        nonisolated(unsafe) static var sources: [any DispatchSourceSignal] = []
        static func keep(_ new: [any DispatchSourceSignal]) { queue.sync { sources += new } }
        static let queue = DispatchQueue(label: "signal-retainer")
    }
}

/// True the first time ``claim()`` is called, false after.
final class OnceFlag: Sendable {
    private let claimed = Atomic<Bool>(false)
    func claim() -> Bool { !claimed.exchange(true, ordering: .acquiringAndReleasing) }
}
