/// Reports a value only once it has held steady for `delay` seconds of pose time.
struct Debouncer<Value: Equatable & Sendable>: Sendable {
    let delay: Double
    private(set) var reported: Value
    private var candidate: (value: Value, since: Double)?

    init(initial: Value, delay: Double) {
        reported = initial
        self.delay = delay
    }

    /// Feeds the value seen at `t`; returns the new reported value when it changes.
    mutating func update(_ value: Value, at t: Double) -> Value? {
        guard value != reported else {
            candidate = nil
            return nil
        }
        guard let current = candidate, current.value == value else {
            candidate = (value, t)
            return delay <= 0 ? commit(value) : nil
        }
        return t - current.since >= delay ? commit(value) : nil
    }

    /// Sets the reported value at once, without an event.
    mutating func force(_ value: Value) {
        reported = value
        candidate = nil
    }

    private mutating func commit(_ value: Value) -> Value {
        reported = value
        candidate = nil
        return value
    }
}

/// A debounced value that engine state can carry: a set stored as its bits.
protocol StateBits: Equatable, Sendable {
    /// The bits a value may have.
    static var validBits: UInt32 { get }
    var stateBits: UInt32 { get }
    init(stateBits: UInt32)
}

extension Visibility: StateBits {
    static var validBits: UInt32 { JointSet(Joint.allCases).rawValue }
    var stateBits: UInt32 { missingJoints.rawValue }
    init(stateBits: UInt32) { self.init(missingJoints: JointSet(rawValue: stateBits)) }
}

extension SetupIssueSet: StateBits {
    static var validBits: UInt32 { SetupIssueSet(SetupIssue.allCases).rawValue }
    var stateBits: UInt32 { rawValue }
    init(stateBits: UInt32) { self.init(rawValue: stateBits) }
}

extension Debouncer where Value: StateBits {
    func save(to writer: inout EngineStateWriter) {
        writer.write(UInt64(reported.stateBits))
        writer.write(candidate != nil)
        guard let candidate else { return }
        writer.write(UInt64(candidate.value.stateBits))
        writer.write(candidate.since)
    }

    mutating func restore(from reader: inout EngineStateReader) throws(EngineStateError) {
        reported = Value(stateBits: try reader.readBits(within: Value.validBits))
        candidate =
            try reader.readBool()
            ? (Value(stateBits: try reader.readBits(within: Value.validBits)), try reader.readDouble()) : nil
    }
}

extension EngineStateReader {
    /// A set's bits, none outside `valid`.
    mutating func readBits(within valid: UInt32) throws(EngineStateError) -> UInt32 {
        let value = try readUInt64()
        guard let bits = UInt32(exactly: value), bits & ~valid == 0 else {
            throw .corrupt("a set with unknown members")
        }
        return bits
    }
}
