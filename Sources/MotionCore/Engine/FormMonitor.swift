/// Watches an exercise's form rules during a rep and reports each broken rule once per rep,
/// after it has stayed broken for `delay` seconds.
struct FormMonitor: Sendable {
    struct Rule: Sendable {
        let fault: FormFeedback
        let measurement: ResolvedMeasurement
        let limit: Double
        let relativeToStart: Bool
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

    /// Records the start-position values that relative rules compare against.
    mutating func captureReferences(in pose: Pose) {
        for i in rules.indices where rules[i].relativeToStart {
            if let value = rules[i].measurement.value(in: pose) { rules[i].reference = value }
        }
    }

    /// Forgets the previous rep's faults.
    mutating func beginRep() {
        reported = []
        for i in rules.indices { rules[i].brokenSince = nil }
    }

    /// Forgets everything, references included.
    mutating func reset() {
        beginRep()
        for i in rules.indices { rules[i].reference = nil }
    }

    /// The faults that became due with this pose. A rule whose joints are unseen is not broken.
    mutating func check(_ pose: Pose) -> FormFeedbackSet {
        var due: FormFeedbackSet = []
        let t = pose.timestamp
        for i in rules.indices {
            guard isBroken(rules[i], in: pose) else {
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

    private func isBroken(_ rule: Rule, in pose: Pose) -> Bool {
        guard let value = rule.measurement.value(in: pose) else { return false }
        guard rule.relativeToStart else { return value > rule.limit }
        guard let reference = rule.reference else { return false }
        return abs(value - reference) > rule.limit
    }
}
