import Synchronization

/// The spectral measures of the motion analysis — the share of power in a band, and the spectral arc length
/// (SPARC) — over buffers allocated once for the longest window, so judging a rep allocates nothing.
///
/// A spectrum is scratch: nothing in it outlives a measure but what depends only on its ``Shape`` (the transform's
/// twiddle factors, the last Hann window), so analyzers of one shape share spectra through ``MotionSpectrumPool``.
struct MotionSpectrum: Sendable {
    /// What a spectrum's buffers are sized for.
    struct Shape: Hashable, Sendable {
        /// The most samples a window holds.
        var capacity: Int
        /// The sampling rate, Hz.
        var rate: Double
        /// SPARC's highest frequency, Hz.
        var maxCutoff: Double
        /// SPARC's zero-padding level.
        var paddingLevel: Int
    }

    let shape: Shape
    /// The signal to measure: callers fill the first `count` elements before calling a measure.
    var signal: [Double]
    /// A second signal measured with ``signal`` in one transform (``addPower(count:rate:in:band:total:paired:)``).
    var pairedSignal: [Double]
    private var real: [Double]
    private var imaginary: [Double]
    private var magnitudes: [Double]
    private let paddingFactor: Int
    private let twiddles: FourierTransform.Twiddles
    /// The Hann window of the last ``addPower(count:rate:in:band:total:)``, for `windowCount` samples (0: none):
    /// the live level asks for the same length ten times a second.
    private var window: [Double]
    private var windowCount = 0

    init(_ shape: Shape) {
        self.shape = shape
        let capacity = max(1, shape.capacity)
        let length = FourierTransform.powerOfTwo(atLeast: capacity)
        paddingFactor = 1 << shape.paddingLevel
        signal = Array(repeating: 0, count: capacity)
        window = signal
        pairedSignal = signal
        real = Array(repeating: 0, count: length)
        imaginary = real
        magnitudes = Array(
            repeating: 0, count: Self.lastBin(shape.maxCutoff, shape.rate, length * paddingFactor) + 1)
        twiddles = FourierTransform.Twiddles(count: length)
    }

    /// - Parameters:
    ///   - capacity: The most samples a window holds.
    ///   - rate: The sampling rate, Hz.
    ///   - maxCutoff: SPARC's highest frequency, Hz.
    ///   - paddingLevel: SPARC's zero-padding level.
    init(capacity: Int, rate: Double, maxCutoff: Double, paddingLevel: Int) {
        self.init(Shape(capacity: capacity, rate: rate, maxCutoff: maxCutoff, paddingLevel: paddingLevel))
    }

    /// The highest bin of an `n`-point transform at `rate` whose frequency is at most `cutoff`.
    private static func lastBin(_ cutoff: Double, _ rate: Double, _ n: Int) -> Int {
        let spacing = rate / Double(n)
        var k = Int((cutoff / spacing).rounded(.down))
        while k > 0 && Double(k) * spacing > cutoff { k -= 1 }
        while k + 1 < n && Double(k + 1) * spacing <= cutoff { k += 1 }
        return min(k, n - 1)
    }

    /// Adds the one-sided power spectrum of `signal[0..<count]` — its mean removed, a Hann window applied, zero
    /// padded to the next power of two — to `band` (bins whose frequency lies in `range`) and `total` (every bin
    /// but 0); `paired`, that of `pairedSignal[0..<count]` too, in the same transform.
    ///
    /// Two real signals share one complex transform: with `z = x + i·y`, `|X[k]|² + |Y[k]|²` is
    /// `(|Z[k]|² + |Z[n−k]|²) / 2`, so the pair's summed power needs no separation of the two spectra.
    /// - Complexity: O(*n* log *n*); no allocation.
    mutating func addPower(
        count: Int, rate: Double, in range: ClosedRange<Double>, band: inout Double, total: inout Double,
        paired: Bool = false
    ) {
        guard count >= 2 else { return }
        let length = FourierTransform.powerOfTwo(atLeast: count)
        var mean = 0.0
        var pairedMean = 0.0
        for i in 0..<count { mean += signal[i] }
        mean /= Double(count)
        if paired {
            for i in 0..<count { pairedMean += pairedSignal[i] }
            pairedMean /= Double(count)
        }
        if windowCount != count {
            let step = 2 * Double.pi / Double(count - 1)
            for i in 0..<count { window[i] = 0.5 - 0.5 * cosine(step * Double(i)) }
            windowCount = count
        }
        for i in 0..<length {
            real[i] = i < count ? (signal[i] - mean) * window[i] : 0
            imaginary[i] = paired && i < count ? (pairedSignal[i] - pairedMean) * window[i] : 0
        }
        FourierTransform.forward(real: &real, imaginary: &imaginary, count: length, twiddles: twiddles)
        let spacing = rate / Double(length)
        for k in 1...(length / 2) {
            var power = real[k] * real[k] + imaginary[k] * imaginary[k]
            if paired {
                let mirror = length - k
                power = (power + real[mirror] * real[mirror] + imaginary[mirror] * imaginary[mirror]) / 2
            }
            power *= k == length / 2 ? 1 : 2
            total += power
            if range.contains(Double(k) * spacing) { band += power }
        }
    }

    /// The spectral arc length (SPARC, Balasubramanian et al. 2015) of the speed profile `signal[0..<count]`:
    /// the length of the curve of its normalised Fourier magnitude between the first and last frequency, up to
    /// `maxCutoff`, where it reaches `threshold`, frequency normalised to that span. Closer to 0 is smoother.
    ///
    /// The transform has `2^paddingLevel · nextPowerOfTwo(count)` points, as the paper's reference code. It is
    /// computed as `2^paddingLevel` transforms of the unpadded length, one per residue `r` of the bin index
    /// (`X[q·P + r]` is the `q`-th bin of the transform of `x[j]·e^(−2πi·jr/N)`), so the scratch is the unpadded
    /// length, not sixteen times it.
    /// - Returns: The SPARC value (≤ 0), or nil when the profile is shorter than 2 samples, all zero, or has no
    ///   bin up to `maxCutoff` reaching `threshold`.
    /// - Complexity: O(*P* · *n* log *n*) for *P* = 2^`paddingLevel`; no allocation.
    mutating func spectralArcLength(count: Int, rate: Double, threshold: Double, maxCutoff: Double) -> Double? {
        guard count >= 2 else { return nil }
        let length = FourierTransform.powerOfTwo(atLeast: count)
        let n = length * paddingFactor
        let last = min(Self.lastBin(maxCutoff, rate, n), magnitudes.count - 1)
        var maximum = 0.0
        for residue in 0..<paddingFactor {
            let step = -2 * Double.pi * Double(residue) / Double(n)
            for j in 0..<length {
                if j < count {
                    let angle = step * Double(j)
                    real[j] = signal[j] * cosine(angle)
                    imaginary[j] = signal[j] * sine(angle)
                } else {
                    real[j] = 0
                    imaginary[j] = 0
                }
            }
            FourierTransform.forward(real: &real, imaginary: &imaginary, count: length, twiddles: twiddles)
            for q in 0..<length {
                let magnitude = (real[q] * real[q] + imaginary[q] * imaginary[q]).squareRoot()
                maximum = max(maximum, magnitude)
                let bin = q * paddingFactor + residue
                if bin <= last { magnitudes[bin] = magnitude }
            }
        }
        guard maximum > 0, maximum.isFinite else { return nil }
        var first: Int?
        var final = 0
        for k in 0...last {
            magnitudes[k] /= maximum
            if magnitudes[k] >= threshold {
                if first == nil { first = k }
                final = k
            }
        }
        // Nothing at or above the threshold below the cut-off: the profile's power lies past it, no arc to measure.
        guard let first else { return nil }
        guard first < final else { return 0 }
        let frequencyStep = 1 / Double(final - first)
        var arc = 0.0
        for k in first..<final {
            let rise = magnitudes[k + 1] - magnitudes[k]
            arc += (frequencyStep * frequencyStep + rise * rise).squareRoot()
        }
        return -arc
    }
}

/// The spectra of every analyzer, lent for one measure at a time: a session holds none between measures (at the
/// defaults a spectrum is about 200 KB, the history it measures 72 KB), and as many exist as measures ever ran at
/// once, which is at most the threads that measure. Results do not depend on which spectrum a measure gets.
enum MotionSpectrumPool {
    /// Spectra kept for reuse at most; more are let go when returned.
    static let limit = 64

    private static let free = Mutex<[MotionSpectrum]>([])

    /// Runs `body` with a spectrum of `shape`, borrowed from the pool (or made) and returned after.
    static func withSpectrum<R>(_ shape: MotionSpectrum.Shape, _ body: (inout MotionSpectrum) -> R) -> R {
        var spectrum =
            free.withLock { free -> MotionSpectrum? in
                guard let index = free.lastIndex(where: { $0.shape == shape }) else { return nil }
                return free.remove(at: index)
            } ?? MotionSpectrum(shape)
        let result = body(&spectrum)
        free.withLock { free in
            if free.count < limit { free.append(spectrum) }
        }
        return result
    }

    /// Spectra waiting in the pool.
    static var count: Int { free.withLock { $0.count } }
}
