/// The baseline measurement: the mean peak of the first clean reps (or the first completed hold).
struct Baseline: Sendable, Equatable {
    private(set) var needed: Int
    private(set) var collected = 0
    private var sum = 0.0
    private(set) var value: Double?

    init(needed: Int) { self.needed = needed }

    var status: BaselineStatus {
        BaselineStatus(progress: value == nil ? Double(collected) / Double(needed) : 1, value: value)
    }

    /// Counts a clean rep; returns the baseline when this rep completes it.
    mutating func record(peak: Double) -> Double? {
        guard value == nil else { return nil }
        collected += 1
        sum += peak
        guard collected >= needed else { return nil }
        value = sum / Double(collected)
        return value
    }
}

extension Baseline {
    func save(to writer: inout EngineStateWriter) {
        writer.write(needed)
        writer.write(collected)
        writer.write(sum)
        writer.write(value)
    }

    static func restore(from reader: inout EngineStateReader) throws(EngineStateError) -> Baseline {
        var baseline = Baseline(needed: try reader.readCount(atMost: 1000))
        guard baseline.needed >= 1 else { throw .corrupt("a baseline of no reps") }
        baseline.collected = try reader.readCount(atMost: baseline.needed)
        baseline.sum = try reader.readDouble()
        baseline.value = try reader.readOptionalDouble()
        return baseline
    }
}
