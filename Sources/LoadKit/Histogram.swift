/// A log-linear latency histogram in the manner of HdrHistogram: values below 256 are kept exactly, above that
/// 128 sub-buckets per power of two, so any value is known to within 1/128 (0.8 %). Values are nanoseconds (any
/// `UInt64`). Fixed size (58 KiB), no allocation per record; histograms merge by adding counts.
public struct Histogram: Sendable {
    private static let subBuckets = 128
    private static let bucketCount = 256 + 56 * 128
    private var counts: [UInt64] = Array(repeating: 0, count: Histogram.bucketCount)
    /// How many values were recorded.
    public private(set) var total: UInt64 = 0
    /// The largest value recorded (0 when empty).
    public private(set) var maximum: UInt64 = 0
    private var sum: Double = 0

    /// An empty histogram.
    public init() {}

    private static func index(_ value: UInt64) -> Int {
        if value < 256 { return Int(value) }
        let shift = (63 - value.leadingZeroBitCount) - 7
        return 256 + (shift - 1) * subBuckets + Int(value >> UInt64(shift)) - subBuckets
    }

    /// The largest value that lands in bucket `index`.
    private static func highestEquivalent(_ index: Int) -> UInt64 {
        if index < 256 { return UInt64(index) }
        let shift = UInt64((index - 256) / subBuckets + 1)
        let mantissa = UInt64((index - 256) % subBuckets + subBuckets)
        // The top bucket's bound is 2^64, one past the largest value.
        guard (mantissa + 1).leadingZeroBitCount > shift else { return .max }
        return ((mantissa + 1) << shift) - 1
    }

    /// Records one value.
    /// - Parameter value: Nanoseconds (or any unit; the histogram does not care).
    public mutating func record(_ value: UInt64) {
        counts[Self.index(value)] += 1
        total += 1
        sum += Double(value)
        maximum = max(maximum, value)
    }

    /// Adds every value of `other` to this histogram.
    /// - Parameter other: Another histogram.
    public mutating func merge(_ other: Histogram) {
        guard other.total > 0 else { return }
        for index in 0..<counts.count where other.counts[index] != 0 { counts[index] += other.counts[index] }
        total += other.total
        sum += other.sum
        maximum = max(maximum, other.maximum)
    }

    /// Forgets every value.
    public mutating func reset() {
        guard total > 0 else { return }
        for index in counts.indices { counts[index] = 0 }
        total = 0
        sum = 0
        maximum = 0
    }

    /// The value at percentile `p`: the highest value equivalent to the bucket holding that rank, never more
    /// than ``maximum``; 0 when empty.
    /// - Parameter p: A percentile, 0–100.
    /// - Returns: The value, within 1/128 above the exact one.
    public func percentile(_ p: Double) -> UInt64 {
        guard total > 0 else { return 0 }
        let rank = max(1, UInt64((p / 100 * Double(total)).rounded(.up)))
        var seen: UInt64 = 0
        for (index, count) in counts.enumerated() where count != 0 {
            seen += count
            if seen >= rank { return min(Self.highestEquivalent(index), maximum) }
        }
        return maximum
    }

    /// The mean of the recorded values (0 when empty).
    public var mean: Double { total == 0 ? 0 : sum / Double(total) }
}
