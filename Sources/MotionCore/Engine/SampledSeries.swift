/// What ``ValueSeries`` and ``MotionSeries`` share: samples kept on a grid of `interval`-wide slots anchored at the
/// first sample's time (the first sample of each slot is kept), bounded in memory two ways.
///
/// - **Halving.** A series that holds every sample it recorded drops every other one when `capacity` is reached and
///   doubles the interval, so an arbitrarily long session costs bounded memory and the series still spans all of it.
/// - **Releasing.** A series whose owner stores the samples elsewhere (a live session's store) lets them go once
///   stored (``release(before:)``): it then holds only the samples recorded since, and keeps counting positions from
///   the first sample ever recorded, so the store appends each new stretch after the last. Such a series never
///   halves (the samples it would thin are gone); should its owner stop releasing (a store unreachable for as long
///   as `capacity` samples take), the oldest half of what it holds is let go unstored rather than growing without
///   bound.
struct SampledSeries<Reading: Sendable>: Sendable {
    /// The held samples' times, ascending: positions ``heldStart``..<``count``.
    private(set) var times: [Double] = []
    /// The held samples' readings.
    private(set) var readings: [Reading] = []
    /// The current spacing between samples, seconds.
    private(set) var interval: Double
    /// The most samples held.
    let capacity: Int
    /// The position of the first held sample: 0 unless samples were released.
    private(set) var heldStart = 0
    /// The first recorded sample's time: the grid's origin.
    private(set) var origin: Double?
    /// The last recorded sample's time, held or not.
    private(set) var lastTime: Double?
    /// The last recorded sample's slot on the grid.
    private var lastSlot: Int?

    /// Creates an empty series.
    init(interval: Double, capacity: Int) {
        self.interval = interval
        self.capacity = max(2, capacity)
    }

    /// Rebuilds a whole series from its samples (e.g. read back from storage). More than `capacity` samples are
    /// recorded again, in order, so they are thinned as recording them would have (the interval doubling each time
    /// the series fills).
    init(times: [Double], readings: [Reading], interval: Double, capacity: Int) {
        self.init(interval: interval, capacity: capacity)
        let count = min(times.count, readings.count)
        guard count <= self.capacity else {
            for index in 0..<count { record(readings[index], at: times[index]) }
            return
        }
        self.times = Array(times.prefix(count))
        self.readings = Array(readings.prefix(count))
        origin = self.times.first
        lastTime = self.times.last
        lastSlot = lastTime.flatMap { slot(of: $0) }
    }

    /// Every sample recorded: the held ones and those released before them.
    var count: Int { heldStart + times.count }

    /// Whether every recorded sample is held.
    var isWhole: Bool { heldStart == 0 }

    /// The held sample at `position` (``heldStart``..<``count``).
    subscript(position: Int) -> (t: Double, reading: Reading) {
        (times[position - heldStart], readings[position - heldStart])
    }

    /// Records a sample when its time falls in a later slot of the grid than the last one kept.
    /// - Complexity: Amortised O(1); O(``capacity``) when the capacity is reached.
    mutating func record(_ reading: Reading, at t: Double) {
        let origin = origin ?? t
        // A slot beyond any Int (a time absurdly far from the first) is not recorded.
        guard let slot = slot(of: t, from: origin) else { return }
        if let lastSlot, slot <= lastSlot { return }
        if times.count == capacity {
            if isWhole {
                halve()
                guard let halved = self.slot(of: t, from: origin), halved > (lastSlot ?? -1) else { return }
            } else {
                release(before: heldStart + capacity / 2)
            }
        }
        self.origin = origin
        times.append(t)
        readings.append(reading)
        lastTime = t
        lastSlot = self.slot(of: t, from: origin)
    }

    /// Lets go of the held samples before `position` (its owner stored them); positions go on counting from the
    /// first sample ever recorded. A position at or before ``heldStart`` changes nothing.
    /// - Complexity: O(samples still held).
    mutating func release(before position: Int) {
        let drop = min(position, count) - heldStart
        guard drop > 0 else { return }
        times.removeFirst(drop)
        readings.removeFirst(drop)
        heldStart += drop
    }

    /// Whether this series holds every sample of the one `position` stands for (a series restored without its
    /// samples): a whole series on the same grid, with the same count and last time.
    func holdsAllSamples(of position: Self) -> Bool {
        isWhole && count == position.count && interval == position.interval && capacity == position.capacity
            && origin == position.origin && lastTime == position.lastTime
    }

    /// Whether both hold the same samples at the same positions on the same grid; `same` compares two readings.
    func isEqual(to other: Self, comparing same: (Reading, Reading) -> Bool) -> Bool {
        times == other.times && interval == other.interval && capacity == other.capacity
            && heldStart == other.heldStart && origin == other.origin && lastTime == other.lastTime
            && readings.elementsEqual(other.readings, by: same)
    }

    /// Hashes what ``isEqual(to:comparing:)`` compares but the readings.
    func hashShape(into hasher: inout Hasher) {
        hasher.combine(times)
        hasher.combine(interval)
        hasher.combine(capacity)
        hasher.combine(heldStart)
    }

    private func slot(of t: Double, from origin: Double? = nil) -> Int? {
        guard let origin = origin ?? self.origin else { return nil }
        return Int(exactly: ((t - origin) / interval + 1e-6).rounded(.down))
    }

    private mutating func halve() {
        var kept = 0
        for i in stride(from: 0, to: times.count, by: 2) {
            times[kept] = times[i]
            readings[kept] = readings[i]
            kept += 1
        }
        times.removeLast(times.count - kept)
        readings.removeLast(readings.count - kept)
        interval *= 2
        lastTime = times.last
        lastSlot = lastTime.flatMap { slot(of: $0) }
    }
}

// MARK: Saved state

extension SampledSeries {
    /// Saves where the series is — grid, positions, last time — and, given `write`, the held samples with it.
    /// Without them (what a live session's saved state carries, its store holding the samples) a restored series
    /// holds none and records the next ones where this one would have.
    func save(to writer: inout EngineStateWriter, samples write: ((Reading, inout EngineStateWriter) -> Void)?) {
        writer.write(interval)
        writer.write(count)
        writer.write(origin)
        writer.write(lastTime)
        guard let write else { return }
        writer.write(times.count)
        for index in times.indices {
            writer.write(times[index])
            write(readings[index], &writer)
        }
    }

    /// Restores what ``save(to:samples:)`` saved; `read` reads a sample's reading when the samples were saved.
    init(
        restoringFrom reader: inout EngineStateReader, capacity: Int,
        samples read: ((inout EngineStateReader) throws(EngineStateError) -> Reading)?
    ) throws(EngineStateError) {
        let interval = try reader.readDouble()
        guard interval > 0, interval.isFinite else { throw .corrupt("a series interval that is not positive") }
        self.init(interval: interval, capacity: capacity)
        let count = try reader.readCount()
        origin = try reader.readOptionalDouble()
        lastTime = try reader.readOptionalDouble()
        switch (origin, lastTime) {
        case (nil, nil):
            guard count == 0 else { throw .corrupt("a series position without times") }
        case (let origin?, let lastTime?):
            guard count > 0, origin.isFinite, lastTime.isFinite, lastTime >= origin,
                let slot = slot(of: lastTime, from: origin)
            else { throw .corrupt("a series position out of order") }
            lastSlot = slot
        default:
            throw .corrupt("a series position with one time of two")
        }
        heldStart = count
        guard let read else { return }
        let held = try reader.readCount(atMost: min(count, self.capacity))
        heldStart = count - held
        for _ in 0..<held {
            let t = try reader.readDouble()
            guard t.isFinite, t >= (times.last ?? origin ?? t), t <= (lastTime ?? t) else {
                throw .corrupt("series times out of order")
            }
            times.append(t)
            readings.append(try read(&reader))
        }
        guard held == 0 || times.last == lastTime else { throw .corrupt("a series' last time that is not its last") }
    }
}
