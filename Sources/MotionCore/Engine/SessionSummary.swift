/// What is stored for a session (docs/protocol.md §5), as of the last processed pose.
public struct SessionSummary: Sendable, Hashable {
    /// The exercise id.
    public var exercise: String
    /// The version of the exercise's definition the session used.
    public var exerciseVersion: Int
    /// The working side, if the exercise has one.
    public var side: BodySide?
    /// What was in effect: the target and thresholds after the prescription, and its goals.
    public var prescription: Prescription
    /// Timestamp of the first processed pose.
    public var firstTimestamp: Double?
    /// Timestamp of the last processed pose.
    public var lastTimestamp: Double?
    /// Poses processed.
    public var frames: Int
    /// Poses in which every measured joint was seen.
    public var visibleFrames: Int
    /// Clean reps since the last reset.
    public var repCount: Int
    /// Rejected reps since the last reset.
    public var rejectedCount: Int
    /// The furthest value from rest since the last reset (highest rising, lowest falling).
    public var best: Double?
    /// The baseline, once measured.
    public var baseline: Double?
    /// Every rep since the last reset, in order.
    public var reps: [Rep]
    /// Hold exercises: every hold attempt that ended since the last reset, in order, with the time held.
    public var holds: [Hold]
    /// The longest hold, seconds; nil without one.
    public var bestHold: Double? { holds.map(\.held).max() }
    /// How many times each fault was reported since the last reset (faults never reported are absent).
    public var faultCounts: [FormFeedback: Int]
    /// Alternating exercises: counts and bests of each side since the last reset; empty otherwise.
    public var perSide: [BodySide: SideTally]
    /// The smoothed value over time, downsampled.
    public var series: ValueSeries
    /// The phone's acceleration over time, downsampled (empty without motion samples, docs/protocol.md §3.3).
    public var motion: MotionSeries

    /// Creates a summary from its parts (e.g. one read back from storage).
    /// - Parameters:
    ///   - exercise: The exercise id.
    ///   - exerciseVersion: The version of its definition.
    ///   - side: The working side, if the exercise has one.
    ///   - prescription: What was in effect.
    ///   - firstTimestamp: Timestamp of the first processed pose.
    ///   - lastTimestamp: Timestamp of the last processed pose.
    ///   - frames: Poses processed.
    ///   - visibleFrames: Poses in which every measured joint was seen.
    ///   - repCount: Clean reps.
    ///   - rejectedCount: Rejected reps.
    ///   - best: Highest value.
    ///   - baseline: The baseline, once measured.
    ///   - reps: Every rep, in order.
    ///   - holds: Every hold attempt that ended, in order.
    ///   - faultCounts: How many times each fault was reported.
    ///   - perSide: Alternating exercises: each side's counts and best.
    ///   - series: The value over time.
    ///   - motion: The phone's acceleration over time.
    public init(
        exercise: String, exerciseVersion: Int = 1, side: BodySide? = nil,
        prescription: Prescription = Prescription(), firstTimestamp: Double? = nil, lastTimestamp: Double? = nil,
        frames: Int = 0, visibleFrames: Int = 0, repCount: Int = 0, rejectedCount: Int = 0, best: Double? = nil,
        baseline: Double? = nil, reps: [Rep] = [], holds: [Hold] = [], faultCounts: [FormFeedback: Int] = [:],
        perSide: [BodySide: SideTally] = [:], series: ValueSeries = ValueSeries(),
        motion: MotionSeries = MotionSeries()
    ) {
        self.exercise = exercise
        self.exerciseVersion = exerciseVersion
        self.side = side
        self.prescription = prescription
        self.firstTimestamp = firstTimestamp
        self.lastTimestamp = lastTimestamp
        self.frames = frames
        self.visibleFrames = visibleFrames
        self.repCount = repCount
        self.rejectedCount = rejectedCount
        self.best = best
        self.baseline = baseline
        self.reps = reps
        self.holds = holds
        self.faultCounts = faultCounts
        self.perSide = perSide
        self.series = series
        self.motion = motion
    }

    /// Seconds from the first to the last pose.
    public var duration: Double {
        guard let firstTimestamp, let lastTimestamp else { return 0 }
        return lastTimestamp - firstTimestamp
    }

    /// The share of poses with every measured joint seen, 0…1 (0 before any pose).
    public var visibleRatio: Double { frames == 0 ? 0 : Double(visibleFrames) / Double(frames) }
}

/// One side's results in an alternating exercise.
public struct SideTally: Sendable, Hashable {
    /// Clean reps.
    public var repCount: Int
    /// Rejected reps.
    public var rejectedCount: Int
    /// The furthest value from rest (once counting began), nil before any.
    public var best: Double?

    /// Creates a tally.
    /// - Parameters:
    ///   - repCount: Clean reps.
    ///   - rejectedCount: Rejected reps.
    ///   - best: The furthest value from rest.
    public init(repCount: Int = 0, rejectedCount: Int = 0, best: Double? = nil) {
        self.repCount = repCount
        self.rejectedCount = rejectedCount
        self.best = best
    }
}

/// A measured value over time, downsampled for charts and bounded in size.
///
/// Keeps one sample per `interval` seconds of pose time, on a grid anchored at the first pose, 16 bytes each (an
/// unmeasured value is kept as a NaN, which the engine never measures). Memory stays bounded however long the
/// session: a series that holds all its samples drops every other one when `capacity` is reached and doubles the
/// interval; a live session's series lets go of each stretch once its store has it (``release(before:)``) and holds
/// only the samples since (see `SampledSeries`).
public struct ValueSeries: Sendable, Hashable {
    private var samples: SampledSeries<Double>

    /// The held samples' times (pose time, seconds): positions ``heldStart``..<``count``, all of them unless some
    /// were released.
    public var times: [Double] { samples.times }
    /// The current spacing between samples, seconds.
    public var interval: Double { samples.interval }
    /// The most samples held.
    public var capacity: Int { samples.capacity }

    /// Values at ``times``; nil where the value could not be measured.
    public var values: [Double?] { samples.readings.map { $0.isNaN ? nil : $0 } }

    /// Creates an empty series.
    /// - Parameters:
    ///   - interval: Spacing between samples, seconds (0.1 gives 10 Hz).
    ///   - capacity: The most samples held, at least 2.
    public init(interval: Double = 0.1, capacity: Int = 36_000) {
        samples = SampledSeries(interval: interval, capacity: capacity)
    }

    /// Rebuilds a whole series from samples kept earlier (e.g. read back from storage), so that it compares equal to
    /// the series they were taken from and goes on recording as that one would.
    ///
    /// Only the common prefix of `times` and `values` is kept; more than `capacity` samples are recorded
    /// again, in order, so they are thinned as recording them would have (the interval doubling each time it fills).
    /// - Parameters:
    ///   - times: Sample times, ascending.
    ///   - values: Values at those times; nil (or NaN) where unmeasurable.
    ///   - interval: The spacing of those samples, seconds.
    ///   - capacity: The most samples held, at least 2.
    public init(times: [Double], values: [Double?], interval: Double, capacity: Int) {
        samples = SampledSeries(
            times: times, readings: values.map { $0 ?? .nan }, interval: interval, capacity: capacity)
    }

    /// The number of samples recorded: those held and those released before them.
    public var count: Int { samples.count }

    /// The position of the first held sample: 0 unless samples were released.
    public var heldStart: Int { samples.heldStart }

    /// The last recorded sample's time, held or not.
    public var lastTime: Double? { samples.lastTime }

    /// Sample `position`: its time and value (nil where unmeasurable).
    /// - Parameter position: A held position, ``heldStart``..<``count``.
    public subscript(position: Int) -> (t: Double, value: Double?) {
        let sample = samples[position]
        return (sample.t, sample.reading.isNaN ? nil : sample.reading)
    }

    /// Records a sample when at least `interval` has passed since the last one kept.
    /// - Parameters:
    ///   - value: The value, or nil when unmeasurable.
    ///   - t: Pose time.
    public mutating func record(_ value: Double?, at t: Double) {
        samples.record(value ?? .nan, at: t)
    }

    /// Lets go of the samples before `position`, which the caller has stored: the series then holds only the ones
    /// after, keeps counting positions from its first sample, and no longer halves. Positions already released
    /// change nothing.
    /// - Parameter position: The first position to keep holding.
    public mutating func release(before position: Int) {
        samples.release(before: position)
    }

    /// Whether this series holds every sample of the one `position` stands for (restored from saved state without
    /// its samples).
    func holdsAllSamples(of position: ValueSeries) -> Bool { samples.holdsAllSamples(of: position.samples) }

    /// Equal when the samples (NaN matching NaN), positions, interval and capacity are.
    public static func == (lhs: ValueSeries, rhs: ValueSeries) -> Bool {
        lhs.samples.isEqual(to: rhs.samples) { $0 == $1 || ($0.isNaN && $1.isNaN) }
    }

    /// Hashes the samples (every NaN alike), positions, interval and capacity.
    public func hash(into hasher: inout Hasher) {
        samples.hashShape(into: &hasher)
        for value in samples.readings { hasher.combine(value.isNaN ? Double.nan.bitPattern : value.bitPattern) }
    }

    /// Saves the series' position and, when `includingSamples`, its held samples.
    func save(to writer: inout EngineStateWriter, includingSamples: Bool) {
        samples.save(to: &writer, samples: includingSamples ? { value, writer in writer.write(value) } : nil)
    }

    /// Restores what ``save(to:includingSamples:)`` saved.
    init(
        restoringFrom reader: inout EngineStateReader, capacity: Int, includingSamples: Bool
    )
        throws(EngineStateError)
    {
        samples = try SampledSeries(
            restoringFrom: &reader, capacity: capacity,
            samples: includingSamples ? { reader throws(EngineStateError) in try reader.readDouble() } : nil)
    }

    /// Restores a whole series in the format of engine state version 2 and before: interval, last slot, samples.
    init(restoringVersion2From reader: inout EngineStateReader, capacity: Int) throws(EngineStateError) {
        let interval = try reader.readDouble()
        guard interval > 0, interval.isFinite else { throw .corrupt("a series interval that is not positive") }
        _ = try reader.readUInt64()  // the last slot, which the samples give again
        let count = try reader.readCount(atMost: capacity)
        var times: [Double] = []
        var values: [Double] = []
        for _ in 0..<count {
            let t = try reader.readDouble()
            guard t.isFinite, t >= (times.last ?? -.infinity) else { throw .corrupt("series times out of order") }
            times.append(t)
            values.append(try reader.readDouble())
        }
        samples = SampledSeries(times: times, readings: values, interval: interval, capacity: capacity)
    }
}
