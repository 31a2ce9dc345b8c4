/// The phone's acceleration over a session, downsampled for charts and bounded in size (PROTOCOL.md §5.2,
/// `GET /v1/sessions/{id}/motion`).
///
/// Keeps the acceleration including gravity (m/s², device axes, as sent) of the first sample in each `interval` of
/// sample time: 20 samples per second by default, on a grid anchored at the first sample's time, so a phone at 60
/// or 100 Hz keeps every third or fifth sample. When `capacity` is reached it drops every other sample and doubles
/// the interval (15 minutes at 20 Hz by default, then 10 Hz up to 30 minutes, …), so an arbitrarily long session
/// costs bounded memory: 32 bytes per sample, at most 576 KB at the defaults, as the value series. It is a chart's
/// record, not the analysis: ``MotionAnalyzer`` judges the samples at full rate.
public struct MotionSeries: Sendable, Hashable {
    /// The default spacing between kept samples, seconds (20 Hz).
    public static let defaultInterval = 0.05
    /// The default largest number of samples kept.
    public static let defaultCapacity = 18_000

    /// Sample times (the samples' own clock, the poses'), seconds.
    public private(set) var times: [Double] = []
    /// x, y and z of each kept sample, one after the other.
    private var readings: [Double] = []
    /// The current spacing between samples, seconds.
    public private(set) var interval: Double
    /// The most samples kept.
    public let capacity: Int
    private var lastSlot: Int?

    /// Creates an empty series.
    /// - Parameters:
    ///   - interval: Spacing between samples, seconds; a value that is not finite and positive takes the default.
    ///   - capacity: The most samples kept, at least 2.
    public init(interval: Double = defaultInterval, capacity: Int = defaultCapacity) {
        self.interval = interval > 0 && interval.isFinite ? interval : Self.defaultInterval
        self.capacity = max(2, capacity)
    }

    /// Rebuilds a series from samples kept earlier (e.g. read back from storage), so that it compares equal to the
    /// series they were taken from and goes on recording as that one would.
    ///
    /// Only the common prefix of `times` and `accelerations` is kept, and at most `capacity` samples of it.
    /// - Parameters:
    ///   - times: Sample times, ascending.
    ///   - accelerations: The acceleration at each time.
    ///   - interval: The current spacing between samples, seconds.
    ///   - capacity: The most samples kept, at least 2.
    public init(times: [Double], accelerations: [MotionVector], interval: Double, capacity: Int) {
        self.init(interval: interval, capacity: capacity)
        let count = min(times.count, accelerations.count, self.capacity)
        self.times = Array(times.prefix(count))
        readings.reserveCapacity(count * 3)
        for vector in accelerations.prefix(count) { readings += [vector.x, vector.y, vector.z] }
        if let origin = self.times.first, let last = self.times.last { lastSlot = slot(of: last, from: origin) }
    }

    /// The number of samples kept.
    public var count: Int { times.count }

    /// Whether no sample is kept.
    public var isEmpty: Bool { times.isEmpty }

    /// Sample `index`: its time and acceleration.
    /// - Parameter index: A position below ``count``.
    public subscript(index: Int) -> (t: Double, acceleration: MotionVector) {
        (times[index], MotionVector(x: readings[index * 3], y: readings[index * 3 + 1], z: readings[index * 3 + 2]))
    }

    /// Records a sample's acceleration when its time falls in a later slot of the grid than the last one kept.
    /// - Parameter sample: The sample (its rotation rate is not kept).
    /// - Complexity: Amortised O(1); O(``count``) when the capacity is reached and the series halves.
    public mutating func record(_ sample: MotionSample) {
        let origin = times.first ?? sample.t
        // A slot beyond any Int (a time absurdly far from the first) is not recorded.
        guard let slot = slot(of: sample.t, from: origin) else { return }
        if let lastSlot, slot <= lastSlot { return }
        if times.count == capacity {
            halve()
            guard let halved = self.slot(of: sample.t, from: origin), halved > (lastSlot ?? -1) else { return }
        }
        times.append(sample.t)
        readings += [sample.acceleration.x, sample.acceleration.y, sample.acceleration.z]
        lastSlot = self.slot(of: sample.t, from: origin)
    }

    private func slot(of t: Double, from origin: Double) -> Int? {
        Int(exactly: ((t - origin) / interval + 1e-6).rounded(.down))
    }

    private mutating func halve() {
        var kept = 0
        for i in stride(from: 0, to: times.count, by: 2) {
            times[kept] = times[i]
            for axis in 0..<3 { readings[kept * 3 + axis] = readings[i * 3 + axis] }
            kept += 1
        }
        times.removeLast(times.count - kept)
        readings.removeLast(readings.count - kept * 3)
        interval *= 2
        if let origin = times.first, let last = times.last { lastSlot = slot(of: last, from: origin) }
    }
}
