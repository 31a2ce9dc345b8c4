/// One reading of the phone's motion sensors (docs/protocol.md §3.3): acceleration including gravity on the device's
/// axes, and optionally the rotation rate, at a time on the same clock as the poses.
public struct MotionSample: Sendable, Hashable {
    /// Seconds, on the poses' clock.
    public var t: Double
    /// Acceleration including gravity, m/s², device axes.
    public var acceleration: MotionVector
    /// Rotation rate, °/s, device axes; nil when the phone sent none.
    public var rotation: MotionVector?

    /// Creates a sample. Values are checked when the sample is given to ``MotionAnalyzer/append(_:)``.
    /// - Parameters:
    ///   - t: Seconds, on the poses' clock.
    ///   - acceleration: m/s² including gravity.
    ///   - rotation: °/s, or nil.
    public init(t: Double, acceleration: MotionVector, rotation: MotionVector? = nil) {
        self.t = t
        self.acceleration = acceleration
        self.rotation = rotation
    }

    /// Creates a sample from its wire form `[t, ax, ay, az]` or `[t, ax, ay, az, rx, ry, rz]`.
    /// - Parameter values: 4 or 7 numbers.
    /// - Throws: ``MotionSampleError/wrongCount(_:)`` for another count, ``MotionSampleError/nonFinite`` for a NaN
    ///   or infinite number.
    public init(_ values: some Collection<Double>) throws(MotionSampleError) {
        guard values.count == 4 || values.count == 7 else { throw .wrongCount(values.count) }
        var numbers = (0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0)
        for (index, value) in values.enumerated() {
            guard value.isFinite else { throw .nonFinite }
            switch index {
            case 0: numbers.0 = value
            case 1: numbers.1 = value
            case 2: numbers.2 = value
            case 3: numbers.3 = value
            case 4: numbers.4 = value
            case 5: numbers.5 = value
            default: numbers.6 = value
            }
        }
        self.init(
            t: numbers.0, acceleration: MotionVector(x: numbers.1, y: numbers.2, z: numbers.3),
            rotation: values.count == 7 ? MotionVector(x: numbers.4, y: numbers.5, z: numbers.6) : nil)
    }

    /// Whether every number is finite.
    var isFinite: Bool {
        t.isFinite && acceleration.isFinite && (rotation?.isFinite ?? true)
    }
}
