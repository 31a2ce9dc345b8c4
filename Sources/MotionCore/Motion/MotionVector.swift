/// Three components on the phone's axes (x to the right of the screen, y up it, z out of it, as the browser's
/// `DeviceMotionEvent` and Core Motion give them).
public struct MotionVector: Sendable, Hashable {
    /// Component along the device's x axis.
    public var x: Double
    /// Component along the device's y axis.
    public var y: Double
    /// Component along the device's z axis.
    public var z: Double

    /// Creates a vector.
    /// - Parameters:
    ///   - x: Along x.
    ///   - y: Along y.
    ///   - z: Along z.
    public init(x: Double, y: Double, z: Double) {
        self.x = x
        self.y = y
        self.z = z
    }

    /// The Euclidean length.
    public var magnitude: Double { (x * x + y * y + z * z).squareRoot() }

    /// Whether every component is finite.
    public var isFinite: Bool { x.isFinite && y.isFinite && z.isFinite }
}
