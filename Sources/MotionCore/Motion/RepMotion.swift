/// How a rep moved, judged from the phone's accelerometer between the rep's start and end.
public struct RepMotion: Sendable, Hashable {
    /// SPARC of the speed profile (Balasubramanian et al. 2015), ≤ 0: closer to 0 is smoother. Nil when the
    /// phone was still (RMS below 10⁻⁹ m/s²): a zero speed profile has no spectrum to measure.
    public var smoothness: Double?
    /// Share of the gravity-free acceleration's power in the tremor band, 0…1.
    public var tremor: Double
    /// Root mean square of the gravity-free acceleration's magnitude, m/s².
    public var rms: Double
    /// Seconds of the rep the analysis covered: less than the rep when samples were missing or the rep began
    /// before the kept history.
    public var covered: Double

    /// Creates a rep's motion values.
    /// - Parameters:
    ///   - smoothness: SPARC, ≤ 0, or nil.
    ///   - tremor: 0…1.
    ///   - rms: m/s².
    ///   - covered: Seconds analysed.
    public init(smoothness: Double?, tremor: Double, rms: Double, covered: Double) {
        self.smoothness = smoothness
        self.tremor = tremor
        self.rms = rms
        self.covered = covered
    }
}
