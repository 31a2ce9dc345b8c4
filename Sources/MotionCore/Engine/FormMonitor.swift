/// Watches an exercise's form rules during a rep and reports each broken rule once per rep,
/// after it has stayed broken for `delay` seconds.
///
/// A rep is judged from its start, and a movement starts before its measured value moves: a sit-to-stand leans the
/// trunk forward while still seated (docs/clinical.md, "Sit-to-stand"). So between reps the absolute rules are
/// watched too, and one broken for `delay` in the last `approach` seconds before a rep starts counts against that
/// rep. Rules relative to the start position are not: their reference is taken there.
struct FormMonitor: Sendable {
    struct Rule: Sendable {
        let fault: FormFeedback
        var measurement: ResolvedMeasurement
        let limit: Double
        let relativeToStart: Bool
        /// The value at the start position, for relative rules.
        var reference: Double?
        var brokenSince: Double?
        /// The last time, between reps, the rule had been broken for `delay` (absolute rules only).
        var brokenBeforeRep: Double?
    }

    private(set) var rules: [Rule]
    let delay: Double
    /// How long before a rep starts a rule broken between reps still counts against it, seconds.
    let approach: Double
    /// Faults reported during the current rep.
    private(set) var reported: FormFeedbackSet = []

    init(rules: [FormRule], side: BodySide, delay: Double, approach: Double) {
        self.rules = rules.map {
            Rule(
                fault: $0.fault, measurement: $0.measurement.resolve(side: side), limit: $0.limit,
                relativeToStart: $0.relativeToStart)
        }
        self.delay = delay
        self.approach = approach
    }

    /// Forgets the previous rep's faults as a rep starts at `t`.
    /// - Parameter fromApproach: Whether faults of the approach count against this rep (a rep; not a hold, which
    ///   starts once its position is reached).
    /// - Returns: The faults of the approach that count against it: reported now.
    mutating func beginRep(at t: Double, fromApproach: Bool) -> FormFeedbackSet {
        reported = []
        for i in rules.indices {
            if fromApproach, let seen = rules[i].brokenBeforeRep, t - seen <= approach {
                reported.insert(rules[i].fault)
            }
            rules[i].brokenBeforeRep = nil
            // An absolute rule broken as the rep starts stays broken since then; a relative one starts over.
            if rules[i].relativeToStart || !fromApproach { rules[i].brokenSince = nil }
        }
        return reported
    }

    /// Forgets everything, references included.
    mutating func reset() {
        _ = beginRep(at: 0, fromApproach: false)
        for i in rules.indices {
            rules[i].reference = nil
            rules[i].brokenSince = nil
            rules[i].measurement.reset()
        }
    }

    /// Measures every rule in `pose`: at the start position's low point (`atLow`) relative rules take their
    /// reference; between reps (`approaching`) absolute rules are watched for the next rep; during a rep
    /// (`inAttempt`) it returns the faults that became due with this pose. A rule whose joints are unseen is not
    /// broken.
    /// - Complexity: O(rules), no allocation.
    mutating func update(_ pose: Pose, inAttempt: Bool, approaching: Bool, atLow: Bool) -> FormFeedbackSet {
        var due: FormFeedbackSet = []
        let t = pose.timestamp
        for i in rules.indices {
            let watched = inAttempt || (approaching && !rules[i].relativeToStart)
            // Otherwise only a reference to take, or a floor to follow, needs the rule measured.
            guard watched || (atLow && rules[i].relativeToStart) || rules[i].measurement.followsFloor else {
                continue
            }
            let value = rules[i].measurement.measure(pose)
            if atLow, rules[i].relativeToStart, let value { rules[i].reference = value }
            guard watched else { continue }
            guard let value, isBroken(rules[i], value) else {
                rules[i].brokenSince = nil
                continue
            }
            let since = rules[i].brokenSince ?? t
            rules[i].brokenSince = since
            guard t - since >= delay else { continue }
            guard inAttempt else {
                rules[i].brokenBeforeRep = t
                continue
            }
            let fault = rules[i].fault
            if !reported.contains(fault) {
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

    /// Saves when each rule was last broken in the approach to a rep (format version 4, after the rest).
    func saveApproach(to writer: inout EngineStateWriter) {
        for rule in rules { writer.write(rule.brokenBeforeRep) }
    }

    mutating func restoreApproach(from reader: inout EngineStateReader) throws(EngineStateError) {
        for i in rules.indices { rules[i].brokenBeforeRep = try reader.readOptionalDouble() }
    }
}
