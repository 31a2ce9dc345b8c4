/// The One Euro filter (Casiez, Roussel, Vogel, CHI 2012): a low-pass filter whose cut-off rises with speed,
/// so it removes jitter when still and follows fast moves closely (keeping a rep's peak).
///
/// Time comes from the samples; a gap longer than `maxGap` restarts the filter at the next sample.
struct OneEuroFilter: Sendable {
    var parameters: Smoothing
    var maxGap: Double
    private var last: (t: Double, value: Double, derivative: Double)?

    init(parameters: Smoothing, maxGap: Double) {
        self.parameters = parameters
        self.maxGap = maxGap
    }

    mutating func reset() { last = nil }

    /// The smoothed value for a sample at time `t`.
    mutating func filter(_ value: Double, at t: Double) -> Double {
        guard let previous = last, t > previous.t, t - previous.t <= maxGap else {
            last = (t, value, 0)
            return value
        }
        let dt = t - previous.t
        let rawDerivative = (value - previous.value) / dt
        let derivative = Self.blend(rawDerivative, previous.derivative, alpha(parameters.derivativeCutoff, dt))
        let cutoff = parameters.minCutoff + parameters.beta * abs(derivative)
        let smoothed = Self.blend(value, previous.value, alpha(cutoff, dt))
        last = (t, smoothed, derivative)
        return smoothed
    }

    private func alpha(_ cutoff: Double, _ dt: Double) -> Double {
        let tau = 1 / (2 * Double.pi * cutoff)
        return 1 / (1 + tau / dt)
    }

    private static func blend(_ value: Double, _ previous: Double, _ alpha: Double) -> Double {
        alpha * value + (1 - alpha) * previous
    }
}

extension OneEuroFilter {
    func save(to writer: inout EngineStateWriter) {
        writer.write(last != nil)
        guard let last else { return }
        writer.write(last.t)
        writer.write(last.value)
        writer.write(last.derivative)
    }

    mutating func restore(from reader: inout EngineStateReader) throws(EngineStateError) {
        last = try reader.readBool() ? (try reader.readDouble(), try reader.readDouble(), try reader.readDouble()) : nil
    }
}
