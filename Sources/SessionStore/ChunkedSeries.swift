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
    /// Samples recorded, held or released.
    var count: Int { get }
    /// The position of the first sample held: 0 unless the owner released the ones before (see ``SeriesWrite``).
    var heldStart: Int { get }
    /// The current spacing between samples, seconds.
    var interval: Double { get }
    /// The most samples kept.
    var capacity: Int { get }
    /// The held samples' times, ascending.
    var times: [Double] { get }
    /// The last recorded sample's time.
    var lastTime: Double? { get }
    /// Samples `first…` (held positions) encoded as ``bytesPerSample`` bytes each.
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
/// still begins with it (same interval and capacity, the same last sample time at the same position, when that
/// sample is still held). Sample times only grow, so a series that halved its resolution fails the check and is
/// rewritten whole.
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
        lastTime = series.lastTime
    }

    /// Whether `series` begins with the written samples. A written sample the series no longer holds was released
    /// because it was stored: the positions before it are the written ones.
    func continues(in series: some ChunkedSeries) -> Bool {
        guard series.interval == interval, series.capacity == capacity, series.count >= count else { return false }
        return count <= series.heldStart || series.times[count - 1 - series.heldStart] == lastTime
    }
}

/// Puts a stored series back together from its chunks, read in order of position. Each chunk must begin at or past
/// the end of the one before: a gap is a stretch its session let go of without storing it (a store unreachable for
/// as long as a series' capacity takes to fill; see `SampledSeries`), an overlap is damage.
struct ChunkAssembly<Series: ChunkedSeries> {
    private var samples: [UInt8] = []
    private var end = 0

    /// Adds the chunk at position `first`; false when it is damaged (not whole samples) or overlaps the last.
    mutating func append(first: Int, samples chunk: [UInt8]) -> Bool {
        guard chunk.count % Series.bytesPerSample == 0, first >= end else { return false }
        samples += chunk
        end = first + chunk.count / Series.bytesPerSample
        return true
    }

    /// The series of the chunks added, thinned to `capacity`; nil when their samples are damaged.
    func series(interval: Double, capacity: Int) -> Series? {
        Series.decoded(samples, interval: interval, capacity: capacity)
    }
}
