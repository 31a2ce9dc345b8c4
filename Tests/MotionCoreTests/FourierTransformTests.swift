import Foundation
import MotionSimulation
import Testing

@testable import MotionCore

@Suite struct FourierTransformTests {
    /// The transform by its definition, O(n²).
    private static func naive(_ re: [Double], _ im: [Double]) -> (re: [Double], im: [Double]) {
        let n = re.count
        var outRe = [Double](repeating: 0, count: n)
        var outIm = outRe
        for k in 0..<n {
            for j in 0..<n {
                let angle = -2 * Double.pi * Double(j * k % n) / Double(n)
                outRe[k] += re[j] * cos(angle) - im[j] * sin(angle)
                outIm[k] += re[j] * sin(angle) + im[j] * cos(angle)
            }
        }
        return (outRe, outIm)
    }

    @Test(arguments: [1, 2, 4, 8, 64, 256])
    func matchesTheDefinitionOnRandomInput(count: Int) {
        var random = SeededRandom(seed: UInt64(count))
        var re = (0..<count).map { _ in Double.random(in: -1...1, using: &random) }
        var im = (0..<count).map { _ in Double.random(in: -1...1, using: &random) }
        let expected = Self.naive(re, im)
        FourierTransform.forward(real: &re, imaginary: &im, count: count)
        for k in 0..<count {
            #expect(abs(re[k] - expected.re[k]) < 1e-9)
            #expect(abs(im[k] - expected.im[k]) < 1e-9)
        }
    }

    @Test func cosineLandsInItsTwoBinsWithHalfTheLength() {
        let n = 32
        var re = (0..<n).map { cos(2 * Double.pi * 3 * Double($0) / Double(n)) }
        var im = [Double](repeating: 0, count: n)
        FourierTransform.forward(real: &re, imaginary: &im, count: n)
        for k in 0..<n {
            let magnitude = (re[k] * re[k] + im[k] * im[k]).squareRoot()
            #expect(abs(magnitude - (k == 3 || k == n - 3 ? 16 : 0)) < 1e-9, "bin \(k)")
        }
    }

    @Test func transformsOnlyThePrefixOfLongerBuffers() {
        var re: [Double] = [1, 0, 0, 0, 7, 7]
        var im: [Double] = [0, 0, 0, 0, 7, 7]
        FourierTransform.forward(real: &re, imaginary: &im, count: 4)
        #expect(re == [1, 1, 1, 1, 7, 7])
        #expect(im == [0, 0, 0, 0, 7, 7])
    }

    /// A transform reading a longer transform's twiddle table at a stride computes the very same numbers as one
    /// with its own table: the analysis shares one table per spectrum across window lengths.
    @Test(arguments: [2, 8, 64, 256])
    func aLongerTwiddleTableGivesBitIdenticalResults(count: Int) {
        var random = SeededRandom(seed: UInt64(count) + 7)
        let re = (0..<count).map { _ in Double.random(in: -1...1, using: &random) }
        let im = (0..<count).map { _ in Double.random(in: -1...1, using: &random) }
        var ownRe = re
        var ownIm = im
        FourierTransform.forward(real: &ownRe, imaginary: &ownIm, count: count)
        var sharedRe = re
        var sharedIm = im
        let shared = FourierTransform.Twiddles(count: 4096)
        FourierTransform.forward(real: &sharedRe, imaginary: &sharedIm, count: count, twiddles: shared)
        #expect(sharedRe == ownRe)
        #expect(sharedIm == ownIm)
    }

    /// Two signals measured in one transform add the same power, in the band and in all, as each alone.
    @Test(arguments: [3, 37, 200, 256])
    func aPairInOneTransformAddsThePowerOfEachAlone(count: Int) {
        var random = SeededRandom(seed: UInt64(count) + 11)
        let x = (0..<count).map { i in sin(Double(i) * 0.9) + Double.random(in: -0.3...0.3, using: &random) }
        let y = (0..<count).map { i in 2 * cos(Double(i) * 0.2) + Double.random(in: -0.3...0.3, using: &random) }
        var spectrum = MotionSpectrum(capacity: 256, rate: 100, maxCutoff: 10, paddingLevel: 4)
        var band = 0.0
        var total = 0.0
        for (i, value) in x.enumerated() { spectrum.signal[i] = value }
        spectrum.addPower(count: count, rate: 100, in: 4...12, band: &band, total: &total)
        for (i, value) in y.enumerated() { spectrum.signal[i] = value }
        spectrum.addPower(count: count, rate: 100, in: 4...12, band: &band, total: &total)
        var pairedBand = 0.0
        var pairedTotal = 0.0
        for i in 0..<count {
            spectrum.signal[i] = x[i]
            spectrum.pairedSignal[i] = y[i]
        }
        spectrum.addPower(count: count, rate: 100, in: 4...12, band: &pairedBand, total: &pairedTotal, paired: true)
        #expect(total > 0)
        #expect(abs(pairedTotal - total) <= total * 1e-12, "\(pairedTotal) vs \(total)")
        #expect(abs(pairedBand - band) <= total * 1e-12, "\(pairedBand) vs \(band)")
    }

    @Test func powerOfTwoRoundsUp() {
        #expect(FourierTransform.powerOfTwo(atLeast: 0) == 1)
        #expect(FourierTransform.powerOfTwo(atLeast: 1) == 1)
        #expect(FourierTransform.powerOfTwo(atLeast: 200) == 256)
        #expect(FourierTransform.powerOfTwo(atLeast: 256) == 256)
    }

    /// SPARC by its definition: the full zero-padded transform computed directly, not by residues.
    private static func naiveSPARC(
        _ speed: [Double], rate: Double, padding: Int, cutoff: Double, threshold: Double
    )
        -> Double
    {
        let n = FourierTransform.powerOfTwo(atLeast: speed.count) << padding
        var magnitudes: [Double] = []
        for k in 0..<n {
            var re = 0.0
            var im = 0.0
            for (j, value) in speed.enumerated() {
                let angle = -2 * Double.pi * Double(j * k % n) / Double(n)
                re += value * cos(angle)
                im += value * sin(angle)
            }
            magnitudes.append((re * re + im * im).squareRoot())
        }
        let maximum = magnitudes.max() ?? 1
        let kept = magnitudes.enumerated().filter { Double($0.offset) * rate / Double(n) <= cutoff }.map {
            $0.element / maximum
        }
        let first = kept.firstIndex { $0 >= threshold } ?? 0
        let last = kept.lastIndex { $0 >= threshold } ?? 0
        var arc = 0.0
        for k in first..<last {
            let rise = kept[k + 1] - kept[k]
            arc += (1 / Double((last - first) * (last - first)) + rise * rise).squareRoot()
        }
        return -arc
    }

    @Test(arguments: [(24, 4), (31, 2), (16, 0)])
    func spectralArcLengthByResiduesMatchesTheFullPaddedTransform(count: Int, padding: Int) throws {
        var spectrum = MotionSpectrum(capacity: 32, rate: 20, maxCutoff: 5, paddingLevel: padding)
        var speed: [Double] = []
        for j in 0..<count {
            let s = sin(Double.pi * Double(j) / Double(count - 1))
            speed.append(s * s + 0.1 * sin(Double(j)))
        }
        for (j, value) in speed.enumerated() { spectrum.signal[j] = value }
        let measuredResult = spectrum.spectralArcLength(count: count, rate: 20, threshold: 0.05, maxCutoff: 5)
        let measured = try #require(measuredResult)
        let expected = Self.naiveSPARC(speed, rate: 20, padding: padding, cutoff: 5, threshold: 0.05)
        #expect(abs(measured - expected) < 1e-9, "\(measured) vs \(expected)")
        #expect(measured < -1)
    }
}
