import Testing

@testable import MotionCore

@Suite struct MotionSeriesTests {
    private static func sample(_ t: Double, _ x: Double = 0.5) -> MotionSample {
        MotionSample(
            t: t, acceleration: MotionVector(x: x, y: -9.81, z: 0.25), rotation: MotionVector(x: 1, y: 2, z: 3))
    }

    /// 20 samples per second of sample time whatever the phone's rate: every third sample at 60 Hz, every fifth at
    /// 100 Hz, all of them at 20 Hz, one per slot of the grid.
    @Test(arguments: [(20.0, 1), (60.0, 3), (100.0, 5)])
    func keepsTwentySamplesPerSecond(rate: Double, every: Int) {
        var series = MotionSeries()
        for i in 0..<Int(rate * 10) { series.record(Self.sample(12.3 + Double(i) / rate, Double(i))) }
        #expect(series.count == 200)
        #expect(series.interval == 0.05)
        for index in 0..<series.count {
            #expect(series[index].acceleration.x == Double(index * every))
            #expect(series[index].acceleration.y == -9.81)
        }
    }

    @Test func halvesItsResolutionAtCapacity() {
        var series = MotionSeries(interval: 0.05, capacity: 10)
        for i in 0..<10 { series.record(Self.sample(Double(i) * 0.05, Double(i))) }
        #expect(series.count == 10 && series.interval == 0.05)
        series.record(Self.sample(0.5, 10))
        #expect(series.interval == 0.1)
        #expect((0..<series.count).map { series[$0].acceleration.x } == [0, 2, 4, 6, 8, 10])
        // A sample in the slot just kept is not kept again; the next slot is.
        series.record(Self.sample(0.55, 11))
        #expect(series.count == 6)
        series.record(Self.sample(0.6, 12))
        #expect(series.count == 7)
    }

    @Test func ignoresSamplesNotInALaterSlot() {
        var series = MotionSeries()
        series.record(Self.sample(5))
        series.record(Self.sample(4))  // earlier (a resumed client resending)
        series.record(Self.sample(5.01))  // same slot
        series.record(Self.sample(1e300))  // a slot beyond any Int
        series.record(Self.sample(-.infinity))
        #expect(series.count == 1)
        series.record(Self.sample(5.05))
        #expect(series.times == [5, 5.05])
    }

    @Test func aRebuiltSeriesEqualsAndContinuesTheOriginal() {
        var series = MotionSeries(interval: 0.05, capacity: 64)
        for i in 0..<30 { series.record(Self.sample(2 + Double(i) * 0.05, Double(i))) }
        var rebuilt = MotionSeries(
            times: series.times, accelerations: (0..<series.count).map { series[$0].acceleration },
            interval: series.interval, capacity: series.capacity)
        #expect(rebuilt == series)
        for i in 30..<40 {
            series.record(Self.sample(2 + Double(i) * 0.05, Double(i)))
            rebuilt.record(Self.sample(2 + Double(i) * 0.05, Double(i)))
        }
        #expect(rebuilt == series)
        // Mismatched lengths keep the common prefix; a bad interval takes the default.
        let short = MotionSeries(
            times: [1, 2, 3], accelerations: [MotionVector(x: 0, y: 0, z: 0)], interval: 0, capacity: 1)
        #expect(short.count == 1 && short.interval == MotionSeries.defaultInterval && short.capacity == 2)
    }

    @Test func theEngineKeepsRecordedMotionInItsSummaryAndRestore() throws {
        var engine = try MotionEngine(configuration: SessionConfiguration(exercise: .elbowFlexion, side: .right))
        for i in 0..<20 { engine.recordMotion(Self.sample(Double(i) * 0.05, Double(i))) }
        #expect(engine.summary.motion.count == 20)
        let restored = try MotionEngine(
            configuration: engine.configuration, restoring: engine.savedState(), motion: engine.summary.motion)
        #expect(restored.summary == engine.summary)
    }
}
