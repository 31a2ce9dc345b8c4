/// Watches an exercise's form rules during a rep and reports each broken rule once per rep,
/// after it has stayed broken for `delay` seconds.
struct FormMonitor: Sendable {
    struct Rule: Sendable {
        let fault: FormFeedback
        var measurement: ResolvedMeasurement
        let limit: Double
        let relativeToStart: Bool
        /// The value at the start position, for relative rules.
        var reference: Double?
        var brokenSince: Double?
    }

    private(set) var rules: [Rule]
    let delay: Double
    /// Faults reported during the current rep.
    private(set) var reported: FormFeedbackSet = []

    init(rules: [FormRule], side: BodySide, delay: Double) {
        self.rules = rules.map {
            Rule(
                fault: $0.fault, measurement: $0.measurement.resolve(side: side), limit: $0.limit,
                relativeToStart: $0.relativeToStart)
        }
        self.delay = delay
    }

    /// Forgets the previous rep's faults.
    mutating func beginRep() {
        reported = []
        for i in rules.indices { rules[i].brokenSince = nil }
    }

    /// Forgets everything, references included.
    mutating func reset() {
        beginRep()
        for i in rules.indices {
            rules[i].reference = nil
            rules[i].measurement.reset()
        }
    }

    /// Measures every rule in `pose`: at the start position's low point (`atLow`) relative rules take their
    /// reference; during a rep (`inAttempt`) it returns the faults that became due with this pose. A rule whose
    /// joints are unseen is not broken.
    /// - Complexity: O(rules), no allocation.
    mutating func update(_ pose: Pose, inAttempt: Bool, atLow: Bool) -> FormFeedbackSet {
        var due: FormFeedbackSet = []
        let t = pose.timestamp
        for i in rules.indices {
            // At rest only a reference to take, or a floor to follow, needs the rule measured.
            guard inAttempt || (atLow && rules[i].relativeToStart) || rules[i].measurement.followsFloor else {
                continue
            }
            let value = rules[i].measurement.measure(pose)
            if atLow, rules[i].relativeToStart, let value { rules[i].reference = value }
            guard inAttempt else { continue }
            guard let value, isBroken(rules[i], value) else {
                rules[i].brokenSince = nil
                continue
            }
            let since = rules[i].brokenSince ?? t
            rules[i].brokenSince = since
            let fault = rules[i].fault
            if t - since >= delay, !reported.contains(fault) {
                reported.insert(fault)
                due.insert(fault)
            }
        }
        return due
    }

    private func isBroken(_ rule: Rule, _ value: Double) -> Bool {
        guard rule.relativeToStart else { return value > rule.limit }
        guard let reference = rule.reference else { return false }
        return abs(value - reference) > rule.limit
    }
}

extension FormMonitor {
    func save(to writer: inout EngineStateWriter) {
        writer.write(UInt64(reported.rawValue))
        for rule in rules {
            rule.measurement.save(to: &writer)
            writer.write(rule.reference)
            writer.write(rule.brokenSince)
        }
    }

    mutating func restore(from reader: inout EngineStateReader) throws(EngineStateError) {
        reported = FormFeedbackSet(
            rawValue: try reader.readBits(within: FormFeedbackSet(FormFeedback.allCases).rawValue))
        for i in rules.indices {
            try rules[i].measurement.restore(from: &reader)
            rules[i].reference = try reader.readOptionalDouble()
            rules[i].brokenSince = try reader.readOptionalDouble()
        }
    }
}
