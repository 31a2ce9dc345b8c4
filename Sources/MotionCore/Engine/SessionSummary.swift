/// What is stored for a session (PROTOCOL.md §5), as of the last processed pose.
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
    /// How many times each fault was reported since the last reset (faults never reported are absent).
    public var faultCounts: [FormFeedback: Int]
    /// Alternating exercises: counts and bests of each side since the last reset; empty otherwise.
    public var perSide: [BodySide: SideTally]
    /// The smoothed value over time, downsampled.
    public var series: ValueSeries
    /// The phone's acceleration over time, downsampled (empty without motion samples, PROTOCOL.md §3.3).
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
    ///   - faultCounts: How many times each fault was reported.
    ///   - perSide: Alternating exercises: each side's counts and best.
    ///   - series: The value over time.
    ///   - motion: The phone's acceleration over time.
    public init(
        exercise: String, exerciseVersion: Int = 1, side: BodySide? = nil,
        prescription: Prescription = Prescription(), firstTimestamp: Double? = nil, lastTimestamp: Double? = nil,
        frames: Int = 0, visibleFrames: Int = 0, repCount: Int = 0, rejectedCount: Int = 0, best: Double? = nil,
        baseline: Double? = nil, reps: [Rep] = [], faultCounts: [FormFeedback: Int] = [:],
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
/// Keeps one sample per `interval` seconds of pose time; when `capacity` is reached it drops every other sample
/// and doubles the interval, so an arbitrarily long session costs bounded memory. Storage grows with the samples
/// (16 bytes each: an unmeasured value is kept as a NaN, which the engine never measures), so a live session
/// costs little until it has run for a while.
public struct ValueSeries: Sendable, Hashable {
    /// Sample times (pose time, seconds).
    public private(set) var times: [Double] = []
    /// The values, NaN where unmeasurable.
    private var storedValues: [Double] = []
    /// The current spacing between samples, seconds.
    public private(set) var interval: Double
    /// The most samples kept.
    public let capacity: Int

    /// Values at ``times``; nil where the value could not be measured.
    public var values: [Double?] { storedValues.map { $0.isNaN ? nil : $0 } }

    /// Creates an empty series.
    /// - Parameters:
    ///   - interval: Spacing between samples, seconds (0.1 gives 10 Hz).
    ///   - capacity: The most samples kept, at least 2.
    public init(interval: Double = 0.1, capacity: Int = 36_000) {
        self.interval = interval
        self.capacity = max(2, capacity)
    }

    /// Rebuilds a series from samples kept earlier (e.g. read back from storage), so that it compares equal to the
    /// series they were taken from and goes on recording as that one would.
    ///
    /// Only the common prefix of `times` and `values` is kept, and at most `capacity` samples of it.
    /// - Parameters:
    ///   - times: Sample times, ascending.
    ///   - values: Values at those times; nil (or NaN) where unmeasurable.
    ///   - interval: The current spacing between samples, seconds.
    ///   - capacity: The most samples kept, at least 2.
    public init(times: [Double], values: [Double?], interval: Double, capacity: Int) {
        self.init(interval: interval, capacity: capacity)
        let count = min(times.count, values.count, self.capacity)
        self.times = Array(times.prefix(count))
        storedValues = values.prefix(count).map { $0 ?? .nan }
        if let origin = self.times.first, let last = self.times.last {
            lastSlot = Int(exactly: ((last - origin) / interval + 1e-6).rounded(.down))
        }
    }

    /// The number of samples kept.
    public var count: Int { times.count }

    /// Sample `index`: its time and value (nil where unmeasurable).
    /// - Parameter index: A position below ``count``.
    public subscript(index: Int) -> (t: Double, value: Double?) {
        let value = storedValues[index]
        return (times[index], value.isNaN ? nil : value)
    }

    /// Records a sample when at least `interval` has passed since the last one kept.
    /// - Parameters:
    ///   - value: The value, or nil when unmeasurable.
    ///   - t: Pose time.
    public mutating func record(_ value: Double?, at t: Double) {
        let origin = times.first ?? t
        // Slots on a fixed grid, so 30 Hz input keeps every third pose rather than drifting to every fourth.
        // A slot beyond any Int (a timestamp absurdly far from the first) is not recorded.
        guard let slot = Int(exactly: ((t - origin) / interval + 1e-6).rounded(.down)) else { return }
        if let last = lastSlot, slot <= last { return }
        if times.count == capacity { halve() }
        times.append(t)
        storedValues.append(value ?? .nan)
        lastSlot = Int(exactly: ((t - origin) / interval + 1e-6).rounded(.down))
    }

    private var lastSlot: Int?

    /// Equal when the samples (NaN matching NaN), interval and capacity are.
    public static func == (lhs: ValueSeries, rhs: ValueSeries) -> Bool {
        lhs.times == rhs.times && lhs.interval == rhs.interval && lhs.capacity == rhs.capacity
            && lhs.lastSlot == rhs.lastSlot
            && lhs.storedValues.elementsEqual(rhs.storedValues) { $0 == $1 || ($0.isNaN && $1.isNaN) }
    }

    /// Hashes the samples (every NaN alike), interval and capacity.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(times)
        hasher.combine(interval)
        hasher.combine(capacity)
        for value in storedValues { hasher.combine(value.isNaN ? Double.nan.bitPattern : value.bitPattern) }
    }

    func save(to writer: inout EngineStateWriter) {
        writer.write(interval)
        writer.write(lastSlot.map { UInt64(max(0, $0)) + 1 } ?? 0)
        writer.write(times.count)
        for index in times.indices {
            writer.write(times[index])
            writer.write(storedValues[index])
        }
    }

    mutating func restore(from reader: inout EngineStateReader) throws(EngineStateError) {
        interval = try reader.readDouble()
        guard interval > 0, interval.isFinite else { throw .corrupt("a series interval that is not positive") }
        let slot = try reader.readUInt64()
        lastSlot = slot == 0 ? nil : Int(exactly: slot - 1)
        let count = try reader.readCount(atMost: capacity)
        times.removeAll(keepingCapacity: true)
        storedValues.removeAll(keepingCapacity: true)
        for _ in 0..<count {
            let t = try reader.readDouble()
            guard t.isFinite, t >= (times.last ?? -.infinity) else { throw .corrupt("series times out of order") }
            times.append(t)
            storedValues.append(try reader.readDouble())
        }
    }

    private mutating func halve() {
        var kept = 0
        for i in stride(from: 0, to: times.count, by: 2) {
            times[kept] = times[i]
            storedValues[kept] = storedValues[i]
            kept += 1
        }
        times.removeLast(times.count - kept)
        storedValues.removeLast(storedValues.count - kept)
        interval *= 2
    }
}
