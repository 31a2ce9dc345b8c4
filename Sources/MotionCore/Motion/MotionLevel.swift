/// How much the phone moves now: `snapshot.motion` of docs/protocol.md §3.3, over the last seconds
/// (``MotionAnalysisConfiguration/recentSeconds``).
public struct MotionLevel: Sendable, Hashable {
    /// Root mean square of the gravity-free acceleration's magnitude, m/s² (a sine of amplitude A on one axis
    /// gives A/√2).
    public var rms: Double
    /// Share of the gravity-free acceleration's power in the tremor band (4–12 Hz by default), 0…1; 0 when the phone
    /// is still (RMS below 10⁻⁹ m/s²).
    public var tremor: Double

    /// Creates a level.
    /// - Parameters:
    ///   - rms: m/s².
    ///   - tremor: 0…1.
    public init(rms: Double, tremor: Double) {
        self.rms = rms
        self.tremor = tremor
    }
}
