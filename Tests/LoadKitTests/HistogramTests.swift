import LoadKit
import Testing

@Suite struct HistogramTests {
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
}
