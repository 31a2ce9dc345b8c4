import LoadKit
import Testing

@Suite struct HistogramTests {
    /// A histogram holding `values`.
    static func histogram(_ values: some Sequence<UInt64>) -> Histogram {
        var histogram = Histogram()
        for value in values { histogram.record(value) }
        return histogram
    }

    /// Whether `reported` is `exact` or above it by at most 1/128 of it (the histogram's promise).
    static func isWithinPrecision(_ reported: UInt64, of exact: UInt64) -> Bool {
        reported >= exact && (reported - exact) * 128 <= exact
    }

    @Test func keepsSmallValuesExactlyAndLargeOnesWithinAPercent() {
        var histogram = Histogram()
        for value in 1...100 { histogram.record(UInt64(value)) }
        #expect(histogram.percentile(50) == 50)
        #expect(histogram.percentile(99) == 99)
        #expect(histogram.percentile(100) == 100)
        var large = Histogram()
        large.record(20_000_000)
        let reported = large.percentile(50)
        #expect(reported >= 20_000_000 && Double(reported) <= 20_000_000 * 1.008)
    }

    /// Below 256 every value has its own bucket, so percentiles of 1…200 are the exact order statistics: the
    /// value of rank ⌈p·n/100⌉ (at least rank 1).
    @Test func percentilesOfSmallValuesAreExactOrderStatistics() {
        let histogram = Self.histogram(1...200)
        #expect(histogram.total == 200)
        #expect(histogram.percentile(0) == 1)
        #expect(histogram.percentile(0.1) == 1)
        #expect(histogram.percentile(25) == 50)
        #expect(histogram.percentile(50) == 100)
        #expect(histogram.percentile(75) == 150)
        #expect(histogram.percentile(99.5) == 199)
        #expect(histogram.percentile(100) == 200)
    }

    /// A uniform spread over 1…100 000: each percentile is the exact order statistic or at most 1/128 above it,
    /// and never above the maximum.
    @Test func percentilesOfAUniformDistributionAreWithinPrecision() {
        let histogram = Self.histogram(1...100_000)
        for p in [1.0, 10, 25, 50, 75, 90, 99, 99.9, 99.99] {
            let exact = UInt64((p / 100 * 100_000).rounded(.up))
            let reported = histogram.percentile(p)
            #expect(Self.isWithinPrecision(reported, of: exact), "p\(p): \(reported) for \(exact)")
            #expect(reported <= histogram.maximum)
        }
        #expect(histogram.percentile(100) == 100_000)
    }

    /// A skewed distribution: 990 fast values and 10 slow ones. The median and p98.5 sit among the fast ones,
    /// p99.1 and above among the slow ones.
    @Test func percentilesOfABimodalDistributionSeparateTheModes() {
        var histogram = Histogram()
        for _ in 0..<990 { histogram.record(1_000_000) }
        for _ in 0..<10 { histogram.record(250_000_000) }
        #expect(Self.isWithinPrecision(histogram.percentile(50), of: 1_000_000))
        #expect(Self.isWithinPrecision(histogram.percentile(98.5), of: 1_000_000))
        #expect(histogram.percentile(99.1) == 250_000_000)
        #expect(histogram.percentile(100) == 250_000_000)
    }

    /// For values from 1 ns to 10¹² ns (every power of ten with several mantissas, and both sides of every power
    /// of two), the reported value is the value or at most 1/128 above it. A much larger second value keeps
    /// ``Histogram/maximum`` from capping the answer.
    @Test func relativeErrorIsAtMostOneOver128AcrossMagnitudes() {
        var values: [UInt64] = []
        var power: UInt64 = 1
        for _ in 0...12 {
            for mantissa: UInt64 in [1, 2, 3, 5, 7, 9] { values.append(power * mantissa) }
            values.append(power * 10 - 1)
            power *= 10
        }
        for exponent in 1...40 {
            let two = UInt64(1) << UInt64(exponent)
            values += [two - 1, two, two + 1, two + two / 3]
        }
        values.append(1_000_000_000_000)
        for value in values where value >= 1 && value <= 1_000_000_000_000 {
            let histogram = Self.histogram([value, 1 << 50])
            let reported = histogram.percentile(50)
            #expect(Self.isWithinPrecision(reported, of: value), "\(value) reported as \(reported)")
            if value < 256 { #expect(reported == value) }
        }
    }

    /// Two values in the same bucket report as that bucket's highest value; distinct buckets stay distinct.
    @Test func valuesSharingABucketReportTheSameValue() {
        let histogram = Self.histogram([1_000_000, 1_000_100, 2_000_000])
        #expect(histogram.percentile(33) == histogram.percentile(66))
        #expect(histogram.percentile(66) < histogram.percentile(100))
    }

    @Test func emptyHistogramReportsZero() {
        let histogram = Histogram()
        #expect(histogram.total == 0)
        #expect(histogram.maximum == 0)
        #expect(histogram.mean == 0)
        for p in [0.0, 50, 99.9, 100] { #expect(histogram.percentile(p) == 0) }
    }

    @Test func meanAndMaximumAreExact() {
        let small = Self.histogram([1, 2, 3, 4])
        #expect(small.mean == 2.5)
        #expect(small.maximum == 4)
        let large = Self.histogram([1_000_000_000, 3_000_000_000, 123_456_789_012])
        #expect(large.mean == (1_000_000_000 + 3_000_000_000 + 123_456_789_012) / 3.0)
        #expect(large.maximum == 123_456_789_012)
        // The maximum caps the top percentile even though its bucket reaches higher.
        #expect(large.percentile(100) == 123_456_789_012)
        let zeros = Self.histogram([0, 0])
        #expect(zeros.total == 2)
        #expect(zeros.mean == 0)
        #expect(zeros.percentile(100) == 0)
    }

    /// Merging two histograms gives the same total, maximum, mean and percentiles as recording every value of both
    /// into one.
    @Test func mergeEqualsRecordingBoth() {
        let first: [UInt64] = (1...3_000).map { UInt64($0) * 997 }
        let second: [UInt64] = (1...500).map { UInt64($0) * UInt64($0) * 31_337 } + [7, 0, 255, 256]
        var merged = Self.histogram(first)
        merged.merge(Self.histogram(second))
        let combined = Self.histogram(first + second)
        #expect(merged.total == combined.total)
        #expect(merged.total == UInt64(first.count + second.count))
        #expect(merged.maximum == combined.maximum)
        #expect(merged.mean == combined.mean)
        for p in [0.0, 1, 5, 10, 25, 50, 75, 90, 95, 99, 99.9, 100] {
            #expect(merged.percentile(p) == combined.percentile(p), "p\(p)")
        }
    }

    @Test func mergingWithEmptyHistogramsChangesNothing() {
        let values: [UInt64] = [5, 500, 50_000, 5_000_000]
        var histogram = Self.histogram(values)
        histogram.merge(Histogram())
        var fromEmpty = Histogram()
        fromEmpty.merge(Self.histogram(values))
        let reference = Self.histogram(values)
        for merged in [histogram, fromEmpty] {
            #expect(merged.total == 4)
            #expect(merged.maximum == 5_000_000)
            #expect(merged.mean == reference.mean)
            for p in [0.0, 25, 50, 75, 100] { #expect(merged.percentile(p) == reference.percentile(p)) }
        }
    }

    /// After a reset the histogram is empty again, and new values are counted as in a fresh one.
    @Test func resetForgetsEverything() {
        var histogram = Self.histogram([10, 20_000, 3_000_000_000])
        histogram.reset()
        #expect(histogram.total == 0)
        #expect(histogram.maximum == 0)
        #expect(histogram.mean == 0)
        #expect(histogram.percentile(50) == 0)
        #expect(histogram.percentile(100) == 0)
        histogram.record(42)
        #expect(histogram.total == 1)
        #expect(histogram.maximum == 42)
        #expect(histogram.mean == 42)
        #expect(histogram.percentile(0) == 42)
        #expect(histogram.percentile(100) == 42)
        var empty = Histogram()
        empty.reset()
        #expect(empty.total == 0)
    }
}

@Suite struct HistogramLimitTests {
    @Test func reportsTheLargestValuesWithoutOverflow() {
        var histogram = Histogram()
        histogram.record(.max)
        histogram.record(255 << 56)
        #expect(histogram.percentile(50) >= 255 << 56)
        #expect(histogram.percentile(100) == .max)
    }
}
