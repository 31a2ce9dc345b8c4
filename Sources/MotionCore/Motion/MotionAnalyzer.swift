/// Incremental analysis of a phone's accelerometer stream (docs/protocol.md §3.3): how much it moves and trembles now,
/// and how smoothly and steadily each rep moved.
///
/// Each accepted sample goes through three steps, all on time from the samples, never a clock:
/// 1. **Resampling** onto a uniform grid (``MotionAnalysisConfiguration/rate``, 100 Hz by default) by linear
///    interpolation between consecutive samples, the grid anchored at the first sample's time, so results do not
///    depend on the phone's rate or jitter.
/// 2. **Gravity removal**: a second-order Butterworth low-pass (0.3 Hz by default, ``GravityFilter``) of the grid
///    samples estimates gravity on the device's axes; it is subtracted from the raw vector.
/// 3. The gravity-free grid samples go into a fixed-capacity ring (``MotionAnalysisConfiguration/historySeconds``).
///
/// Appending allocates nothing; the history is allocated by the initialiser. Measures are computed when asked for
/// (``recentLevel()``, ``rep(from:to:)``), over scratch borrowed for the measure from a pool that every analyzer of
/// the same configuration shares, so an analyzer holds only its history between measures.
///
/// ```swift
/// var analyzer = MotionAnalyzer()
/// for values in message.samples { try analyzer.append(MotionSample(values)) }
/// let now = analyzer.recentLevel()            // snapshot.motion: rms, tremor over the last 2 s
/// let quality = analyzer.rep(from: rep.start, to: rep.end)   // smoothness (SPARC), tremor, rms
/// ```
///
/// Contract for bad input: ``append(_:)`` throws ``MotionSampleError`` for a non-finite number or a `t` not
/// greater than the last accepted one, and the refused sample changes nothing. The rotation rate is checked but
/// not analysed yet.
public struct MotionAnalyzer: Sendable {
    /// The settings in use, clamped into their ranges.
    public let configuration: MotionAnalysisConfiguration
    private var history: MotionHistory
    private var gravity: GravityFilter
    /// The shape of the spectra measures borrow (``MotionSpectrumPool``).
    private let spectrumShape: MotionSpectrum.Shape
    private var last: (t: Double, x: Double, y: Double, z: Double)?

    /// Creates an analyzer and allocates every buffer it will use.
    /// - Parameter configuration: The settings; out-of-range values are clamped.
    public init(configuration: MotionAnalysisConfiguration = MotionAnalysisConfiguration()) {
        let c = configuration.clamped
        self.configuration = c
        let capacity = Int((c.historySeconds * c.rate).rounded(.up)) + 1
        history = MotionHistory(capacity: capacity, rate: c.rate)
        gravity = GravityFilter(cutoff: c.gravityCutoff, rate: c.rate)
        spectrumShape = MotionSpectrum.Shape(
            capacity: capacity, rate: c.rate, maxCutoff: c.sparcMaxCutoff, paddingLevel: c.sparcPaddingLevel)
    }

    /// The time of the last accepted sample, if any.
    public var lastTime: Double? { last?.t }

    /// Forgets every sample (a session's `reset`); buffers are kept.
    public mutating func reset() {
        last = nil
        gravity.reset()
        history.restart(at: 0)
    }

    /// Takes the next sample.
    /// - Parameter sample: A sample whose `t` is greater than the last accepted one's.
    /// - Throws: ``MotionSampleError/nonFinite`` for a NaN or infinite number, and
    ///   ``MotionSampleError/nonIncreasingTime(previous:t:)``; either way nothing changes.
    /// - Complexity: O(grid samples the new sample spans); no allocation.
    public mutating func append(_ sample: MotionSample) throws(MotionSampleError) {
        guard sample.isFinite else { throw .nonFinite }
        let a = sample.acceleration
        guard let previous = last, sample.t - previous.t <= configuration.maxGap else {
            if let previous = last, sample.t <= previous.t {
                throw .nonIncreasingTime(previous: previous.t, t: sample.t)
            }
            restart(at: sample)
            return
        }
        guard sample.t > previous.t else { throw .nonIncreasingTime(previous: previous.t, t: sample.t) }
        let span = sample.t - previous.t
        var k = history.endIndex
        var gridTime = history.time(k)
        while gridTime <= sample.t {
            let w = (gridTime - previous.t) / span
            push(
                previous.x + (a.x - previous.x) * w, previous.y + (a.y - previous.y) * w,
                previous.z + (a.z - previous.z) * w)
            k += 1
            gridTime = history.time(k)
        }
        last = (sample.t, a.x, a.y, a.z)
    }

    private mutating func restart(at sample: MotionSample) {
        let a = sample.acceleration
        gravity.reset()
        history.restart(at: sample.t)
        last = (sample.t, a.x, a.y, a.z)
        push(a.x, a.y, a.z)
    }

    private mutating func push(_ x: Double, _ y: Double, _ z: Double) {
        let g = gravity.filter(x, y, z)
        history.append((x - g.x, y - g.y, z - g.z))
    }
}

extension MotionAnalyzer {
    /// RMS and tremor share over the last ``MotionAnalysisConfiguration/recentSeconds`` of grid samples
    /// (`snapshot.motion`).
    /// - Returns: The level, or nil while less than ``MotionAnalysisConfiguration/minimumSeconds`` is held.
    /// - Complexity: O(*n* log *n*) for the window's *n* grid samples; no allocation once the pool holds a spectrum
    ///   for each thread that measures.
    public func recentLevel() -> MotionLevel? {
        let wanted = Int((configuration.recentSeconds * configuration.rate).rounded())
        let end = history.endIndex
        let indices = max(history.startIndex, end - wanted)..<end
        let measured = MotionSpectrumPool.withSpectrum(spectrumShape) { spectrum in
            level(indices, spectrum: &spectrum)
        }
        guard let (rms, tremor) = measured else { return nil }
        return MotionLevel(rms: rms, tremor: tremor)
    }

    /// Smoothness, tremor share and RMS of the grid samples from `start` to `end` (a rep's ``Rep/start`` and
    /// ``Rep/end``).
    ///
    /// Smoothness is SPARC over the speed profile: the gravity-free acceleration is integrated to velocity
    /// (trapezoids) on each axis, and the velocity's linear drift removed so it is zero at both ends — a rep
    /// begins and ends at rest in its start position — and the speed is the velocity's magnitude.
    /// - Parameters:
    ///   - start: Seconds, on the samples' clock.
    ///   - end: Seconds, after `start`.
    /// - Returns: The rep's values over the grid samples held in `start...end`, or nil when they span less than
    ///   ``MotionAnalysisConfiguration/minimumSeconds``.
    /// - Complexity: O(*P* · *n* log *n*) for *n* grid samples and *P* = 2^``MotionAnalysisConfiguration/sparcPaddingLevel``;
    ///   no allocation once the pool holds a spectrum for each thread that measures.
    public func rep(from start: Double, to end: Double) -> RepMotion? {
        let indices = history.indices(from: start, to: end)
        return MotionSpectrumPool.withSpectrum(spectrumShape) { spectrum in rep(indices, spectrum: &spectrum) }
    }

    private func rep(_ indices: Range<Int>, spectrum: inout MotionSpectrum) -> RepMotion? {
        guard let (rms, tremor) = level(indices, spectrum: &spectrum) else { return nil }
        let count = indices.count
        let dt = 1 / configuration.rate
        for i in 0..<count { spectrum.signal[i] = 0 }
        for axis in 0..<3 {
            var v = 0.0
            var previous = history.component(axis, indices.lowerBound)
            // First pass: the end velocity, for the drift; second pass: the drift-free velocity squared.
            for k in indices.dropFirst() {
                let current = history.component(axis, k)
                v += (previous + current) / 2 * dt
                previous = current
            }
            let drift = v / Double(count - 1)
            v = 0
            previous = history.component(axis, indices.lowerBound)
            for (i, k) in indices.enumerated() {
                let current = history.component(axis, k)
                if i > 0 { v += (previous + current) / 2 * dt }
                previous = current
                let corrected = v - drift * Double(i)
                spectrum.signal[i] += corrected * corrected
            }
        }
        for i in 0..<count { spectrum.signal[i] = spectrum.signal[i].squareRoot() }
        let smoothness =
            rms < Self.stillness
            ? nil
            : spectrum.spectralArcLength(
                count: count, rate: configuration.rate, threshold: configuration.sparcAmplitudeThreshold,
                maxCutoff: configuration.sparcMaxCutoff)
        return RepMotion(
            smoothness: smoothness, tremor: tremor, rms: rms, covered: Double(count - 1) / configuration.rate)
    }

    /// The RMS, m/s², below which the phone counts as still: no tremor share, no smoothness.
    static let stillness = 1e-9

    private func level(_ indices: Range<Int>, spectrum: inout MotionSpectrum) -> (rms: Double, tremor: Double)? {
        let count = indices.count
        guard count >= 2, Double(count - 1) / configuration.rate >= configuration.minimumSeconds - 1e-9 else {
            return nil
        }
        var sum = 0.0
        for k in indices {
            let a = history[k]
            sum += a.x * a.x + a.y * a.y + a.z * a.z
        }
        var band = 0.0
        var total = 0.0
        // x and y in one transform, z in another.
        for (i, k) in indices.enumerated() {
            spectrum.signal[i] = history.component(0, k)
            spectrum.pairedSignal[i] = history.component(1, k)
        }
        spectrum.addPower(
            count: count, rate: configuration.rate, in: configuration.tremorBand, band: &band, total: &total,
            paired: true)
        for (i, k) in indices.enumerated() { spectrum.signal[i] = history.component(2, k) }
        spectrum.addPower(
            count: count, rate: configuration.rate, in: configuration.tremorBand, band: &band, total: &total)
        let rms = (sum / Double(count)).squareRoot()
        // A phone lying still leaves only rounding residue, whose spectrum means nothing.
        return (rms, rms >= Self.stillness && total > 0 ? band / total : 0)
    }
}
