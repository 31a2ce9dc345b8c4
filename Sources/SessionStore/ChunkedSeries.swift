import MotionCore

/// A downsampled series the stores keep as chunks of samples: the value series (`series`, `series_chunks`) and the
/// motion series (`motion_series`, `motion_chunks`). Both stores write and read them the same way, through this.
///
/// A series' shape (interval, capacity) is one row of ``shapeTable``; its samples are blobs in ``chunkTable``, each
/// keyed by its first sample's position, which concatenate in order to the whole encoding. A checkpoint appends
/// one chunk of the samples recorded since the last write (see ``SeriesMark``).
protocol ChunkedSeries {
    /// The table of interval and capacity, one row per session.
    static var shapeTable: String { get }
    /// The table of chunks.
    static var chunkTable: String { get }
    /// Bytes per encoded sample.
    static var bytesPerSample: Int { get }
    /// Whether an empty series is written (a shape row, no chunk). The motion series is not: most sessions have no
    /// motion samples, and an empty one never follows samples (the series never shrinks), so it has nothing to
    /// replace; such a session has no row and reads an empty series.
    static var storesEmpty: Bool { get }
    /// An empty series (what a session without one reads as).
    init()
    /// Samples kept.
    var count: Int { get }
    /// The current spacing between samples, seconds.
    var interval: Double { get }
    /// The most samples kept.
    var capacity: Int { get }
    /// Sample times, ascending.
    var times: [Double] { get }
    /// Samples `first…` encoded as ``bytesPerSample`` bytes each.
    func encodedSamples(from first: Int) -> [UInt8]
    /// Rebuilds a series from the concatenated chunks, or nil when they are malformed.
    static func decoded(_ bytes: [UInt8], interval: Double, capacity: Int) -> Self?
}

extension ValueSeries: ChunkedSeries {
    static var shapeTable: String { "series" }
    static var chunkTable: String { "series_chunks" }
    static var bytesPerSample: Int { 16 }
    static var storesEmpty: Bool { true }

    init() { self.init(interval: 0.1, capacity: 36_000) }

    func encodedSamples(from first: Int) -> [UInt8] { SessionRecordCoding.encodeSamples(self, from: first) }

    static func decoded(_ bytes: [UInt8], interval: Double, capacity: Int) -> ValueSeries? {
        SessionRecordCoding.decodeSeries(bytes, interval: interval, capacity: capacity)
    }
}

extension MotionSeries: ChunkedSeries {
    static var shapeTable: String { "motion_series" }
    static var chunkTable: String { "motion_chunks" }
    static var bytesPerSample: Int { 32 }
    static var storesEmpty: Bool { false }

    init() { self.init(interval: MotionSeries.defaultInterval, capacity: MotionSeries.defaultCapacity) }

    func encodedSamples(from first: Int) -> [UInt8] { SessionRecordCoding.encodeMotion(self, from: first) }

    static func decoded(_ bytes: [UInt8], interval: Double, capacity: Int) -> MotionSeries? {
        SessionRecordCoding.decodeMotion(bytes, interval: interval, capacity: capacity)
    }
}

/// How far one of a live session's series is written: the next checkpoint appends past it as long as the series
/// still begins with it (same interval and capacity, the same last sample time at the same position). Sample times
/// only grow, so a series that halved its resolution fails the check and is rewritten whole.
struct SeriesMark: Sendable, Equatable {
    /// Samples written.
    var count: Int
    /// The interval when they were.
    var interval: Double
    /// The capacity.
    var capacity: Int
    /// The last written sample's time.
    var lastTime: Double?

    /// What writing `series` whole leaves.
    init(_ series: some ChunkedSeries) {
        count = series.count
        interval = series.interval
        capacity = series.capacity
        lastTime = series.times.last
    }

    /// Whether `series` begins with the written samples.
    func continues(in series: some ChunkedSeries) -> Bool {
        series.interval == interval && series.capacity == capacity && series.count >= count
            && (count == 0 || series.times[count - 1] == lastTime)
    }
}
