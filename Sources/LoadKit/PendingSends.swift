/// The send times of messages still waiting for their answer, oldest first: the instant each was meant to leave
/// (for latency without coordinated omission) and the instant it did. Amortised O(1) push and pop.
public struct PendingSends: Sendable {
    private var intended: [UInt64] = []
    private var actual: [UInt64] = []
    private var head = 0

    /// An empty log.
    public init() {}

    /// How many messages wait.
    public var count: Int { intended.count - head }

    /// The oldest waiting message's times, if any.
    public var oldest: (intended: UInt64, actual: UInt64)? {
        head < intended.count ? (intended[head], actual[head]) : nil
    }

    /// Logs a message that was just sent.
    /// - Parameters:
    ///   - time: When it was meant to leave, nanoseconds.
    ///   - sent: When it did.
    public mutating func push(intended time: UInt64, actual sent: UInt64) {
        intended.append(time)
        actual.append(sent)
    }

    /// Removes and returns the oldest message's times.
    /// - Returns: Its times, or nil when nothing waits.
    public mutating func pop() -> (intended: UInt64, actual: UInt64)? {
        guard head < intended.count else { return nil }
        let times = (intended[head], actual[head])
        head += 1
        if head == intended.count {
            intended.removeAll(keepingCapacity: true)
            actual.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 4096 && head * 2 >= intended.count {
            intended.removeFirst(head)
            actual.removeFirst(head)
            head = 0
        }
        return times
    }

    /// The intended times of every waiting message, oldest first, without removing them.
    public var waitingIntended: ArraySlice<UInt64> { intended[head...] }

    /// Removes every waiting message.
    /// - Returns: Their intended send times, oldest first.
    public mutating func drain() -> [UInt64] {
        defer { self = PendingSends() }
        return Array(intended[head...])
    }
}
