/// A second-order Butterworth low-pass filter on the three axes of a uniformly sampled acceleration: its output is
/// the estimate of gravity on the device's axes, which ``MotionAnalyzer`` subtracts from the raw vector.
///
/// Coefficients come from the bilinear transform with the cut-off prewarped (`K = tan(π·fc/fs)`), the design
/// `scipy.signal.butter(2, fc, fs=fs)` gives; the filter runs in transposed direct form II. It starts in the
/// steady state of its first input, so a phone lying still reads zero movement from the first sample instead of a
/// 9.8 m/s² step that takes seconds to die away.
struct GravityFilter: Sendable {
    private let b0: Double
    private let b1: Double
    private let b2: Double
    private let a1: Double
    private let a2: Double
    private var state: (x: (Double, Double), y: (Double, Double), z: (Double, Double))?

    /// - Parameters:
    ///   - cutoff: The −3 dB frequency, Hz; below half of `rate`.
    ///   - rate: The sampling rate, Hz.
    init(cutoff: Double, rate: Double) {
        let k = tangent(Double.pi * cutoff / rate)
        let norm = 1 / (1 + 2.0.squareRoot() * k + k * k)
        b0 = k * k * norm
        b1 = 2 * b0
        b2 = b0
        a1 = 2 * (k * k - 1) * norm
        a2 = (1 - 2.0.squareRoot() * k + k * k) * norm
    }

    mutating func reset() { state = nil }

    /// Gravity after one more input sample.
    mutating func filter(_ x: Double, _ y: Double, _ z: Double) -> (x: Double, y: Double, z: Double) {
        var current = state ?? (steadyState(x), steadyState(y), steadyState(z))
        let gx = step(x, &current.x)
        let gy = step(y, &current.y)
        let gz = step(z, &current.z)
        state = current
        return (gx, gy, gz)
    }

    private func steadyState(_ input: Double) -> (Double, Double) {
        let second = (b2 - a2) * input
        return ((b1 - a1) * input + second, second)
    }

    private func step(_ input: Double, _ delay: inout (Double, Double)) -> Double {
        let output = b0 * input + delay.0
        delay = (b1 * input - a1 * output + delay.1, b2 * input - a2 * output)
        return output
    }
}
