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
