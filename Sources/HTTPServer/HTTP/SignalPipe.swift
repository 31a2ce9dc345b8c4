import Dispatch
import Glibc

/// Watches one of CNetShim's signal pipes (`cnet_termination_fd`, `cnet_hangup_fd`, whose C handlers write a byte per
/// signal, whichever thread the kernel picks): drains it and runs a closure on a queue of its own.
enum SignalPipe {
    /// Starts watching.
    /// - Parameters:
    ///   - fd: The pipe's read end (negative: the pipe could not be made, and nothing is watched).
    ///   - label: The queue's name.
    ///   - handler: Run after each burst of signals.
    /// - Returns: The source to keep alive, nil when `fd` is negative.
    static func watch(
        _ fd: Int32, label: String, _ handler: @escaping @Sendable () -> Void
    ) -> (any DispatchSourceRead)? {
        guard fd >= 0 else { return nil }
        let source = DispatchSource.makeReadSource(fileDescriptor: fd, queue: DispatchQueue(label: label))
        source.setEventHandler {
            var bytes = [UInt8](repeating: 0, count: 16)
            while read(fd, &bytes, bytes.count) > 0 {}
            handler()
        }
        source.resume()
        return source
    }
}
