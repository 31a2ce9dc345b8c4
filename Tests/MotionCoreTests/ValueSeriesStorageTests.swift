import MotionCore
import Testing

@Suite struct ValueSeriesStorageTests {
    @Test func unmeasuredSamplesReadBackAsNilAndCompareEqual() {
        var series = ValueSeries(interval: 0.1, capacity: 10)
        series.record(10, at: 0)
        series.record(nil, at: 0.1)
        series.record(12, at: 0.2)
        #expect(series.values == [10, nil, 12])
        #expect(series.count == 3)
        #expect(series[1].t == 0.1 && series[1].value == nil)
        #expect(series[2].value == 12)
        let rebuilt = ValueSeries(times: series.times, values: series.values, interval: 0.1, capacity: 10)
        #expect(rebuilt == series)
        #expect(rebuilt.hashValue == series.hashValue)
        var other = rebuilt
        other.record(nil, at: 0.3)
        #expect(other != series)
    }

    @Test func halvingKeepsNilSamplesInPlace() {
        var series = ValueSeries(interval: 1, capacity: 4)
        for t in 0..<5 { series.record(t % 2 == 0 ? nil : Double(t), at: Double(t)) }
        // Four samples halve to t = 0 and 2 (both unmeasured), then t = 4 joins on the doubled grid.
        #expect(series.times == [0, 2, 4])
        #expect(series.values == [nil, nil, nil])
        #expect(series.interval == 2)
    }
}
