import Dispatch

/// Runs blocking work (file reads, `stat`) off the event loops and resumes the caller with the result.
public enum BlockingIO {
    private static let queue = DispatchQueue(label: "blocking-io", attributes: .concurrent)

    /// Runs `work` on the blocking-I/O queue.
    /// - Parameter work: Work that may block.
    /// - Returns: What `work` returns.
    public static func run<T: Sendable>(_ work: @escaping @Sendable () -> T) async -> T {
        await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: work()) }
        }
    }
}
