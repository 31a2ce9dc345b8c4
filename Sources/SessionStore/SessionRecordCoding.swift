import MotionCore

/// The compact text and binary forms the SQL stores use for a summary's non-scalar parts.
///
/// Vocabulary values are stored by raw value (stable wire names, docs/protocol.md §1), never by bit index, which is only
/// stable within a build. Unknown names (a fault removed from the vocabulary since) are skipped on reading.
enum SessionRecordCoding {
    /// Faults as their raw values joined by commas, in vocabulary order: `keepUpperArmStill,keepHipsLevel`.
    static func encode(_ faults: FormFeedbackSet) -> String {
        faults.map(\.rawValue).joined(separator: ",")
    }

    /// Parses ``encode(_:)-(FormFeedbackSet)``'s output.
    static func decodeFaults(_ text: String) -> FormFeedbackSet {
        FormFeedbackSet(text.split(separator: ",").compactMap { FormFeedback(rawValue: String($0)) })
    }

    /// Fault counts as `name=count` joined by commas, in vocabulary order: `keepUpperArmStill=2,keepHipsLevel=1`.
    static func encode(_ counts: [FormFeedback: Int]) -> String {
        FormFeedback.allCases.compactMap { fault in counts[fault].map { "\(fault.rawValue)=\($0)" } }
            .joined(separator: ",")
    }

    /// Parses ``encode(_:)-([FormFeedback: Int])``'s output.
    /// - Returns: The counts, or nil if the text is malformed.
    static func decodeFaultCounts(_ text: String) -> [FormFeedback: Int]? {
        var counts: [FormFeedback: Int] = [:]
        for entry in text.split(separator: ",") {
            let parts = entry.split(separator: "=", omittingEmptySubsequences: false)
            guard parts.count == 2, let count = Int(parts[1]) else { return nil }
            if let fault = FormFeedback(rawValue: String(parts[0])) { counts[fault] = count }
        }
        return counts
    }

    /// Per-side tallies as `side=repCount:rejectedCount:best` joined by commas, left first, `best` empty when
    /// there is none: `left=3:1:55.5,right=2:0:`. Numbers are Swift's shortest round-trip text.
    static func encode(_ tallies: [BodySide: SideTally]) -> String {
        [BodySide.left, .right].compactMap { side in
            tallies[side].map { "\(side.rawValue)=\($0.repCount):\($0.rejectedCount):\($0.best.map { "\($0)" } ?? "")" }
        }
        .joined(separator: ",")
    }

    /// Parses ``encode(_:)-([BodySide: SideTally])``'s output.
    /// - Returns: The tallies, or nil if the text is malformed (an unknown side included).
    static func decodeTallies(_ text: String) -> [BodySide: SideTally]? {
        var tallies: [BodySide: SideTally] = [:]
        for entry in text.split(separator: ",") {
            let parts = entry.split(separator: "=", omittingEmptySubsequences: false)
            guard parts.count == 2, let side = BodySide(rawValue: String(parts[0])), tallies[side] == nil else {
                return nil
            }
            let fields = parts[1].split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count == 3, let reps = Int(fields[0]), let rejected = Int(fields[1]) else { return nil }
            var best: Double?
            if !fields[2].isEmpty {
                guard let value = Double(fields[2]) else { return nil }
                best = value
            }
            tallies[side] = SideTally(repCount: reps, rejectedCount: rejected, best: best)
        }
        return tallies
    }

    /// Hold attempts (docs/protocol.md §5.4) as `start:held:completed` joined by commas, in order, `completed` `1` or
    /// `0`: `2.5:14.75:1,20.0:0.5:0`. Numbers are Swift's shortest round-trip text.
    static func encode(_ holds: [Hold]) -> String {
        holds.map { "\($0.start):\($0.held):\($0.completed ? 1 : 0)" }.joined(separator: ",")
    }

    /// Parses ``encode(_:)-([Hold])``'s output.
    /// - Returns: The holds, or nil if the text is malformed (a time that is not finite, a negative time held).
    static func decodeHolds(_ text: String) -> [Hold]? {
        var holds: [Hold] = []
        for entry in text.split(separator: ",") {
            let fields = entry.split(separator: ":", omittingEmptySubsequences: false)
            guard fields.count == 3, let start = Double(fields[0]), let held = Double(fields[1]), start.isFinite,
                held.isFinite, held >= 0, fields[2] == "1" || fields[2] == "0"
            else { return nil }
            holds.append(Hold(start: start, held: held, completed: fields[2] == "1"))
        }
        return holds
    }

    /// The mean peak of the clean reps, nil without any (the `mean_peak` column that progress reads).
    static func meanCleanPeak(_ reps: [Rep]) -> Double? {
        var sum = 0.0
        var count = 0
        for rep in reps where rep.isClean {
            sum += rep.peak
            count += 1
        }
        return count == 0 ? nil : sum / Double(count)
    }

    /// A series' samples as little-endian IEEE 754 binary64 pairs, NaN standing for nil:
    ///
    ///     +---------+---------+---------+---------+----
    ///     | t0 (8B) | v0 (8B) | t1 (8B) | v1 (8B) | …
    ///     +---------+---------+---------+---------+----
    ///
    /// Blobs of many samples rather than a row per sample: a checkpoint appends the samples recorded since the last
    /// one as one chunk, and the chunks of a series, in order, concatenate to its whole encoding. (A measured NaN,
    /// which the engine never produces, reads back as nil.)
    /// - Parameters:
    ///   - series: The series.
    ///   - first: The position of the first sample to encode (default: the first held).
    static func encodeSamples(_ series: ValueSeries, from first: Int = 0) -> [UInt8] {
        var bytes: [UInt8] = []
        let first = max(first, series.heldStart)
        guard first < series.count else { return bytes }
        bytes.reserveCapacity((series.count - first) * 16)
        for index in first..<series.count {
            let (t, value) = series[index]
            append(t, to: &bytes)
            append(value ?? .nan, to: &bytes)
        }
        return bytes
    }

    /// Rebuilds a series from ``encodeSamples(_:)``'s bytes. A live session's series is stored whole however long it
    /// ran (its samples are released from memory once stored, never thinned): more than `capacity` samples are
    /// thinned here, as ``ValueSeries/init(times:values:interval:capacity:)`` says.
    /// - Returns: The series, or nil if the bytes are not whole pairs with finite, ascending times, or the
    ///   interval or capacity is impossible.
    static func decodeSeries(_ bytes: [UInt8], interval: Double, capacity: Int) -> ValueSeries? {
        guard bytes.count % 16 == 0, interval > 0, interval.isFinite, capacity >= 2 else { return nil }
        let count = bytes.count / 16
        var times: [Double] = []
        var values: [Double?] = []
        times.reserveCapacity(count)
        values.reserveCapacity(count)
        for i in 0..<count {
            let t = double(bytes, at: i * 16)
            guard t.isFinite, t >= (times.last ?? -.infinity) else { return nil }
            times.append(t)
            let value = double(bytes, at: i * 16 + 8)
            values.append(value.isNaN ? nil : value)
        }
        return ValueSeries(times: times, values: values, interval: interval, capacity: capacity)
    }

    /// A motion series' samples as little-endian IEEE 754 binary64 quadruples, time then acceleration x, y, z:
    ///
    ///     +---------+---------+---------+---------+---------+----
    ///     | t0 (8B) | x0 (8B) | y0 (8B) | z0 (8B) | t1 (8B) | …
    ///     +---------+---------+---------+---------+---------+----
    ///
    /// Chunks concatenate to the whole encoding, as ``encodeSamples(_:from:)``'s do.
    /// - Parameters:
    ///   - series: The series.
    ///   - first: The position of the first sample to encode (default: the first held).
    static func encodeMotion(_ series: MotionSeries, from first: Int = 0) -> [UInt8] {
        var bytes: [UInt8] = []
        let first = max(first, series.heldStart)
        guard first < series.count else { return bytes }
        bytes.reserveCapacity((series.count - first) * 32)
        for index in first..<series.count {
            let (t, acceleration) = series[index]
            for value in [t, acceleration.x, acceleration.y, acceleration.z] { append(value, to: &bytes) }
        }
        return bytes
    }

    /// Rebuilds a motion series from ``encodeMotion(_:from:)``'s bytes, thinned to `capacity` as
    /// ``decodeSeries(_:interval:capacity:)``'s.
    /// - Returns: The series, or nil if the bytes are not whole quadruples of finite numbers with ascending times, or
    ///   the interval or capacity is impossible.
    static func decodeMotion(_ bytes: [UInt8], interval: Double, capacity: Int) -> MotionSeries? {
        guard bytes.count % 32 == 0, interval > 0, interval.isFinite, capacity >= 2 else { return nil }
        let count = bytes.count / 32
        var times: [Double] = []
        var accelerations: [MotionVector] = []
        times.reserveCapacity(count)
        accelerations.reserveCapacity(count)
        for i in 0..<count {
            let t = double(bytes, at: i * 32)
            guard t.isFinite, t > (times.last ?? -.infinity) else { return nil }
            let vector = MotionVector(
                x: double(bytes, at: i * 32 + 8), y: double(bytes, at: i * 32 + 16), z: double(bytes, at: i * 32 + 24))
            guard vector.isFinite else { return nil }
            times.append(t)
            accelerations.append(vector)
        }
        return MotionSeries(times: times, accelerations: accelerations, interval: interval, capacity: capacity)
    }

    private static func append(_ value: Double, to bytes: inout [UInt8]) {
        let bits = value.bitPattern
        for shift in stride(from: 0, to: 64, by: 8) { bytes.append(UInt8(truncatingIfNeeded: bits >> shift)) }
    }

    private static func double(_ bytes: [UInt8], at offset: Int) -> Double {
        var bits: UInt64 = 0
        for i in (0..<8).reversed() { bits = bits << 8 | UInt64(bytes[offset + i]) }
        return Double(bitPattern: bits)
    }
}
