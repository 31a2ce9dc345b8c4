import HTTPServer
public import Testing

/// State that the server side of a test records (from its loop or a handler) and the test waits on: no sleeping and
/// polling, the test wakes when a record makes its condition true.
public final class Observed<State: Sendable>: Sendable {
    private let state: Locked<State>
    private let arrivals: AsyncStream<Void>.Continuation
    private let signals: AsyncStream<Void>

    /// Starts from `initial`.
    public init(_ initial: State) {
        state = Locked(initial)
        (signals, arrivals) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
    }

    /// What has been recorded so far.
    public var current: State { state.withLock { $0 } }

    /// Records an observation and wakes the waiter.
    public func record(_ update: (inout State) -> Void) {
        state.withLock { update(&$0) }
        arrivals.yield()
    }

    /// Waits until `condition` holds, at most `timeout` (a test whose event never comes fails instead of hanging).
    /// - Returns: Whether it held in time.
    public func arrival(
        within timeout: Duration = .seconds(30), until condition: @escaping @Sendable (State) -> Bool
    ) async -> Bool {
        if condition(current) { return true }
        return await withTaskGroup(of: Bool.self) { group in
            group.addTask {
                for await _ in self.signals where condition(self.current) { return true }
                return condition(self.current)
            }
            group.addTask {
                try? await Task.sleep(for: timeout)
                return false
            }
            let first = await group.next() ?? false
            group.cancelAll()
            return first
        }
    }

    /// ``arrival(within:until:)``, recording an issue when the condition does not hold in time.
    public func wait(
        within timeout: Duration = .seconds(30), until condition: @escaping @Sendable (State) -> Bool,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async {
        if await !arrival(within: timeout, until: condition) {
            Issue.record("the condition did not hold within \(timeout)", sourceLocation: sourceLocation)
        }
    }
}
