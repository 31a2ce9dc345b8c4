/// The phone's acceleration over a session, downsampled for charts and bounded in size (docs/protocol.md §5.2,
/// `GET /v1/sessions/{id}/motion`).
///
/// Keeps the acceleration including gravity (m/s², device axes, as sent) of the first sample in each `interval` of
/// sample time: 20 samples per second by default, on a grid anchored at the first sample's time, so a phone at 60
/// or 100 Hz keeps every third or fifth sample, 32 bytes each. Memory stays bounded however long the session, as for
/// the value series: a series that holds all its samples drops every other one when `capacity` is reached and
/// doubles the interval (15 minutes at 20 Hz by default, then 10 Hz up to 30 minutes, …; at most 576 KB); a live
/// session's series lets go of each stretch once its store has it (``release(before:)``). It is a chart's record,
/// not the analysis: ``MotionAnalyzer`` judges the samples at full rate.
public struct MotionSeries: Sendable, Hashable {
    /// The default spacing between kept samples, seconds (20 Hz).
    public static let defaultInterval = 0.05
    /// The default largest number of samples held.
    public static let defaultCapacity = 18_000

    private var samples: SampledSeries<MotionVector>

    /// The held samples' times (the samples' own clock, the poses'), seconds: positions ``heldStart``..<``count``.
    public var times: [Double] { samples.times }
    /// The current spacing between samples, seconds.
    public var interval: Double { samples.interval }
    /// The most samples held.
    public var capacity: Int { samples.capacity }

    /// Creates an empty series.
    /// - Parameters:
    ///   - interval: Spacing between samples, seconds; a value that is not finite and positive takes the default.
    ///   - capacity: The most samples held, at least 2.
    public init(interval: Double = defaultInterval, capacity: Int = defaultCapacity) {
        samples = SampledSeries(
            interval: interval > 0 && interval.isFinite ? interval : Self.defaultInterval, capacity: capacity)
    }

    /// Rebuilds a whole series from samples kept earlier (e.g. read back from storage), so that it compares equal to
    /// the series they were taken from and goes on recording as that one would.
    ///
    /// Only the common prefix of `times` and `accelerations` is kept; more than `capacity` samples are recorded
    /// again, in order, so they are thinned as recording them would have (the interval doubling each time it fills).
    /// - Parameters:
    ///   - times: Sample times, ascending.
    ///   - accelerations: The acceleration at each time.
    ///   - interval: The spacing of those samples, seconds.
    ///   - capacity: The most samples held, at least 2.
    public init(times: [Double], accelerations: [MotionVector], interval: Double, capacity: Int) {
        samples = SampledSeries(
            times: times, readings: accelerations,
            interval: interval > 0 && interval.isFinite ? interval : Self.defaultInterval, capacity: capacity)
    }

    /// The number of samples recorded: those held and those released before them.
    public var count: Int { samples.count }

    /// Whether no sample was recorded.
    public var isEmpty: Bool { samples.count == 0 }

    /// The position of the first held sample: 0 unless samples were released.
    public var heldStart: Int { samples.heldStart }

    /// The last recorded sample's time, held or not.
    public var lastTime: Double? { samples.lastTime }

    /// Sample `position`: its time and acceleration.
    /// - Parameter position: A held position, ``heldStart``..<``count``.
    public subscript(position: Int) -> (t: Double, acceleration: MotionVector) {
        let sample = samples[position]
        return (sample.t, sample.reading)
    }

    /// Records a sample's acceleration when its time falls in a later slot of the grid than the last one kept.
    /// - Parameter sample: The sample (its rotation rate is not kept).
    /// - Complexity: Amortised O(1); O(``capacity``) when the capacity is reached.
    public mutating func record(_ sample: MotionSample) {
        samples.record(sample.acceleration, at: sample.t)
    }

    /// Lets go of the samples before `position`, which the caller has stored: the series then holds only the ones
    /// after, keeps counting positions from its first sample, and no longer halves.
    /// - Parameter position: The first position to keep holding.
    public mutating func release(before position: Int) {
        samples.release(before: position)
    }

    /// Whether this series holds every sample of the one `position` stands for (restored from saved state without
    /// its samples).
    func holdsAllSamples(of position: MotionSeries) -> Bool { samples.holdsAllSamples(of: position.samples) }

    /// Equal when the samples, positions, interval and capacity are.
    public static func == (lhs: MotionSeries, rhs: MotionSeries) -> Bool {
        lhs.samples.isEqual(to: rhs.samples, comparing: ==)
    }

    /// Hashes the samples, positions, interval and capacity.
    public func hash(into hasher: inout Hasher) {
        samples.hashShape(into: &hasher)
        for reading in samples.readings { hasher.combine(reading) }
    }

    /// Saves the series' position, without its samples (a live session's store holds them).
    func savePosition(to writer: inout EngineStateWriter) {
        samples.save(to: &writer, samples: nil)
    }

    /// Restores what ``savePosition(to:)`` saved: a series holding no sample that records the next ones where the
    /// saved one would have.
    init(restoringPositionFrom reader: inout EngineStateReader) throws(EngineStateError) {
        samples = try SampledSeries(restoringFrom: &reader, capacity: Self.defaultCapacity, samples: nil)
    }
}
