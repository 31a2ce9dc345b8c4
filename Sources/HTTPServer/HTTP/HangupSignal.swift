import CNetShim
import Dispatch
import Glibc

/// Calls a closure on every SIGHUP (the operator's "reload": a renewed certificate, say), on a queue of its own.
///
/// Creating it replaces SIGHUP's default action (exiting) for the process; keep it alive as long as reloads should
/// work. Signals that arrive while the closure runs are merged into one more call.
public final class HangupSignal: @unchecked Sendable {
    // Safety: `source` is written once in init and only kept alive (and cancelled) afterwards.
    private let source: (any DispatchSourceRead)?

    /// Starts catching SIGHUP.
    /// - Parameter onHangup: Run once per SIGHUP (or per burst of them), never on an event loop.
    public init(_ onHangup: @escaping @Sendable () -> Void) {
        source = SignalPipe.watch(cnet_hangup_fd(), label: "hangup", onHangup)
    }

    deinit { source?.cancel() }
}
