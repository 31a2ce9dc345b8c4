/// An in-place radix-2 fast Fourier transform (Cooley–Tukey, decimation in time) over caller-owned buffers, so the
/// motion analysis transforms without allocating.
///
/// The forward transform of `x[0..<n]` is `X[k] = Σ x[j]·e^(−2πi·jk/n)`, unnormalised, the convention of
/// numpy's `fft.fft`.
enum FourierTransform {
    /// The smallest power of two at least `count` (1 for `count` ≤ 1).
    static func powerOfTwo(atLeast count: Int) -> Int {
        var n = 1
        while n < count { n <<= 1 }
        return n
    }

    /// The twiddle factors e^(−2πi·k/n), k < n/2, of an `n`-point transform, computed once: a transform of any
    /// power of two up to `n` reads them at a stride. Each comes straight from cos/sin (no recurrence), and the
    /// angle of a shorter transform's factor is the same number as if computed for that length (the lengths differ
    /// by a power of two, which scales exactly), so the results do not depend on which table is used.
    struct Twiddles: Sendable {
        /// The longest transform served, a power of two.
        let count: Int
        private let cosines: [Double]
        private let sines: [Double]

        /// - Parameter count: A power of two.
        init(count: Int) {
            precondition(count > 0 && count & (count - 1) == 0, "the transform length must be a power of two")
            self.count = count
            let step = -2 * Double.pi / Double(count)
            cosines = (0..<max(1, count / 2)).map { cosine(step * Double($0)) }
            sines = (0..<max(1, count / 2)).map { sine(step * Double($0)) }
        }

        /// Runs `body` with the cosines and sines.
        func withTables<R>(_ body: (UnsafeBufferPointer<Double>, UnsafeBufferPointer<Double>) -> R) -> R {
            cosines.withUnsafeBufferPointer { c in sines.withUnsafeBufferPointer { s in body(c, s) } }
        }
    }

    /// Transforms the first `count` elements of `real` and `imaginary` in place, computing its twiddle factors
    /// (pass ``Twiddles`` to the other overload to reuse them).
    /// - Parameters:
    ///   - real: Real parts; at least `count` elements.
    ///   - imaginary: Imaginary parts; at least `count` elements.
    ///   - count: A power of two.
    /// - Complexity: O(*n* log *n*) for *n* = `count`.
    static func forward(real: inout [Double], imaginary: inout [Double], count: Int) {
        forward(real: &real, imaginary: &imaginary, count: count, twiddles: Twiddles(count: count))
    }

    /// Transforms the first `count` elements of `real` and `imaginary` in place.
    /// - Parameters:
    ///   - real: Real parts; at least `count` elements.
    ///   - imaginary: Imaginary parts; at least `count` elements.
    ///   - count: A power of two, at most `twiddles.count`.
    ///   - twiddles: The factors of a transform at least `count` long.
    /// - Complexity: O(*n* log *n*) for *n* = `count`; no allocation.
    static func forward(real: inout [Double], imaginary: inout [Double], count: Int, twiddles: Twiddles) {
        precondition(count > 0 && count & (count - 1) == 0, "the transform length must be a power of two")
        precondition(count <= twiddles.count, "the twiddles are for a shorter transform")
        precondition(real.count >= count && imaginary.count >= count)
        real.withUnsafeMutableBufferPointer { re in
            imaginary.withUnsafeMutableBufferPointer { im in
                twiddles.withTables { cosines, sines in
                    transform(re, im, count, cosines: cosines, sines: sines, tableLength: twiddles.count)
                }
            }
        }
    }

    private static func transform(
        _ re: UnsafeMutableBufferPointer<Double>, _ im: UnsafeMutableBufferPointer<Double>, _ n: Int,
        cosines: UnsafeBufferPointer<Double>, sines: UnsafeBufferPointer<Double>, tableLength: Int
    ) {
        var j = 0
        for i in 1..<max(n, 1) {
            var bit = n >> 1
            while j & bit != 0 {
                j ^= bit
                bit >>= 1
            }
            j |= bit
            if i < j {
                re.swapAt(i, j)
                im.swapAt(i, j)
            }
        }
        var length = 2
        while length <= n {
            let half = length / 2
            // Factor k of a `length`-point transform is factor k·stride of the table's.
            let stride = tableLength / length
            for k in 0..<half {
                let wr = cosines[k * stride]
                let wi = sines[k * stride]
                var start = k
                while start < n {
                    let other = start + half
                    let tr = wr * re[other] - wi * im[other]
                    let ti = wr * im[other] + wi * re[other]
                    re[other] = re[start] - tr
                    im[other] = im[start] - ti
                    re[start] += tr
                    im[start] += ti
                    start += length
                }
            }
            length <<= 1
        }
    }
}
