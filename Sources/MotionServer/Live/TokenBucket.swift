/// A token bucket on a monotonic clock: `rate` tokens per second, holding at most `burst`, that may go into debt.
struct TokenBucket: Sendable {
    let rate: Double
    let burst: Double
    private(set) var tokens: Double
    private var last: UInt64?

    init(rate: Double, burst: Double) {
        self.rate = rate
        self.burst = burst
        tokens = burst
    }

    /// Takes `count` tokens at `now` (nanoseconds), into debt if there are not enough.
    /// - Returns: Whether the bucket is still within budget (not in debt).
    mutating func spend(_ count: Double, now: UInt64) -> Bool {
        if let last, now > last { tokens = min(burst, tokens + Double(now - last) / 1e9 * rate) }
        last = now
        tokens -= count
        return tokens >= 0
    }

    /// How long until the bucket holds `level` tokens again (zero if it does).
    func time(toReach level: Double) -> Duration {
        guard tokens < level else { return .zero }
        return .nanoseconds(Int64(((level - tokens) / rate * 1e9).rounded(.up)))
    }
}
