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

    @Test func releasedSamplesKeepTheirPositionsAndTheSeriesNoLongerHalves() {
        var series = ValueSeries(interval: 1, capacity: 4)
        for t in 0..<3 { series.record(Double(t), at: Double(t)) }
        series.release(before: 2)
        #expect(series.heldStart == 2 && series.count == 3 && series.times == [2])
        #expect(series[2].t == 2 && series[2].value == 2)
        series.release(before: 1)  // already released: nothing changes
        #expect(series.heldStart == 2 && series.times == [2])
        for t in 3..<5 { series.record(Double(t), at: Double(t)) }
        #expect(series.times == [2, 3, 4] && series.interval == 1 && series.lastTime == 4)
        // Full while nothing is released since: the oldest half goes, unstored, rather than the resolution.
        series.record(5, at: 5)
        series.record(6, at: 6)
        #expect(series.heldStart == 4 && series.times == [4, 5, 6] && series.count == 7 && series.interval == 1)
        series.release(before: 99)
        #expect(series.heldStart == 7 && series.times.isEmpty && series.lastTime == 6)
        series.record(6.5, at: 6.5)  // the same slot as the last sample, released or not
        series.record(7, at: 7)
        #expect(series.count == 8 && series[7].t == 7)
    }

    @Test func moreSamplesThanTheCapacityAreThinnedAsRecordingWould() {
        var recorded = ValueSeries(interval: 0.5, capacity: 8)
        for i in 0..<21 { recorded.record(Double(i), at: Double(i) * 0.5) }
        let times = (0..<21).map { Double($0) * 0.5 }
        let rebuilt = ValueSeries(times: times, values: times.map { $0 * 2 }, interval: 0.5, capacity: 8)
        #expect(rebuilt.interval == 2 && rebuilt.count == 6 && rebuilt.times == [0, 2, 4, 6, 8, 10])
        #expect(rebuilt == recorded)
    }
}
