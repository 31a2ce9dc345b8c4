#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

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

    /// Transforms the first `count` elements of `real` and `imaginary` in place.
    /// - Parameters:
    ///   - real: Real parts; at least `count` elements.
    ///   - imaginary: Imaginary parts; at least `count` elements.
    ///   - count: A power of two.
    /// - Complexity: O(*n* log *n*) for *n* = `count`; no allocation.
    static func forward(real: inout [Double], imaginary: inout [Double], count: Int) {
        precondition(count > 0 && count & (count - 1) == 0, "the transform length must be a power of two")
        precondition(real.count >= count && imaginary.count >= count)
        real.withUnsafeMutableBufferPointer { re in
            imaginary.withUnsafeMutableBufferPointer { im in
                transform(re, im, count)
            }
        }
    }

    private static func transform(
        _ re: UnsafeMutableBufferPointer<Double>, _ im: UnsafeMutableBufferPointer<Double>,
        _ n: Int
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
            let step = -2 * Double.pi / Double(length)
            for k in 0..<half {
                // Twiddles straight from cos/sin rather than a recurrence: no error grows along a long transform.
                let angle = step * Double(k)
                let wr = cos(angle)
                let wi = sin(angle)
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
