/// The settings of ``MotionAnalyzer``; every field has a documented default, and out-of-range values are clamped
/// to the range given beside each.
public struct MotionAnalysisConfiguration: Sendable, Hashable {
    /// The uniform grid the samples are resampled onto, Hz (default 100, the fastest a phone sends; 20…400).
    /// Resampling first makes every result independent of the phone's own rate and jitter.
    public var rate: Double = 100
    /// The gravity filter's cut-off, Hz (default 0.3; 0.05…2). Gravity on the device's axes changes only as fast
    /// as the phone turns; 0.3 Hz is the split of body and gravity acceleration of the UCI human-activity data set
    /// (Anguita et al., ESANN 2013), low enough to leave a tremor (≥ 4 Hz) untouched and most of a rep's movement.
    public var gravityCutoff: Double = 0.3
    /// A pause between samples longer than this, seconds, restarts the analysis at the next sample: history,
    /// gravity estimate and grid (default 0.5; 0.05…10). Interpolating across a long silence would invent movement.
    public var maxGap: Double = 0.5
    /// Seconds of resampled history kept for rep analysis (default 30; 2…120). A rep that began earlier is judged
    /// on its last `historySeconds`. Memory is fixed at setup: 24 bytes per grid sample, 72 KB at the defaults; the
    /// transforms' scratch (about 200 KB at the defaults) is shared by the analyzers of one configuration.
    public var historySeconds: Double = 30
    /// The window of ``MotionAnalyzer/recentLevel()``, seconds (default 2; 0.5…`historySeconds`).
    public var recentSeconds: Double = 2
    /// The shortest window judged, seconds (default 0.5; at least 4 grid samples): below it a spectrum says
    /// nothing about 4 Hz.
    public var minimumSeconds: Double = 0.5
    /// The tremor band, Hz (default 4…12: physiological and pathological tremor, docs/clinical.md, "Tremor").
    public var tremorBand: ClosedRange<Double> = 4...12
    /// SPARC's amplitude threshold on the normalised spectrum (Balasubramanian et al. 2015: 0.05).
    public var sparcAmplitudeThreshold: Double = 0.05
    /// SPARC's highest frequency considered, Hz (Balasubramanian et al. 2015: 10; at most half of `rate`).
    public var sparcMaxCutoff: Double = 10
    /// SPARC's zero padding: the transform is 2^`sparcPaddingLevel` times the next power of two of the samples
    /// (Balasubramanian et al. 2015: 4; 0…6).
    public var sparcPaddingLevel: Int = 4

    /// Creates a configuration with the defaults.
    public init() {}

    /// The configuration with every field clamped into its range.
    var clamped: MotionAnalysisConfiguration {
        var c = self
        c.rate = Self.clamp(rate, 20, 400, 100)
        c.gravityCutoff = Self.clamp(gravityCutoff, 0.05, 2, 0.3)
        c.maxGap = Self.clamp(maxGap, 0.05, 10, 0.5)
        c.historySeconds = Self.clamp(historySeconds, 2, 120, 30)
        c.recentSeconds = Self.clamp(recentSeconds, 0.5, c.historySeconds, 2)
        c.minimumSeconds = Self.clamp(minimumSeconds, 4 / c.rate, c.historySeconds, 0.5)
        let nyquist = c.rate / 2
        let low = Self.clamp(tremorBand.lowerBound, 0, nyquist, 4)
        c.tremorBand = low...Self.clamp(tremorBand.upperBound, low, nyquist, max(low, 12))
        c.sparcAmplitudeThreshold = Self.clamp(sparcAmplitudeThreshold, 0.001, 0.5, 0.05)
        c.sparcMaxCutoff = Self.clamp(sparcMaxCutoff, 1, nyquist, 10)
        c.sparcPaddingLevel = min(max(sparcPaddingLevel, 0), 6)
        return c
    }

    private static func clamp(_ value: Double, _ low: Double, _ high: Double, _ fallback: Double) -> Double {
        value.isFinite ? min(max(value, low), high) : min(max(fallback, low), high)
    }
}
