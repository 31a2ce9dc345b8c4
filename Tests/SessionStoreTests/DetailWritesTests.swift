import MotionCore
import Testing

@testable import SessionStore

/// What a write of a session's reps and series does given what is written already: the one decision both stores
/// turn into their statements.
@Suite struct DetailWritesTests {
    /// A summary with `reps` reps and a value series of `samples` samples at 10 Hz (capacity 8).
    private static func summary(reps: Int, samples: Int) -> SessionSummary {
        var summary = SessionSummary(exercise: "elbowFlexion")
        summary.reps = (0..<reps).map {
            Rep(index: $0 + 1, peak: 120, trough: 20, start: Double($0), end: Double($0) + 1)
        }
        summary.series = ValueSeries(interval: 0.1, capacity: 8)
        for step in 0..<samples { summary.series.record(Double(step), at: Double(step) * 0.1) }
        return summary
    }

    @Test func aFirstWriteWritesEverythingAndSkipsAnEmptyMotionSeries() throws {
        let writes = DetailWrites(Self.summary(reps: 3, samples: 5), after: nil)
        #expect(writes.replacesReps && writes.newReps == 0..<3)
        let series = try #require(writes.series)
        #expect(series.deletesFrom == 0 && series.writesShape && series.firstSample == 0 && series.appends)
        #expect(writes.motion == nil, "an empty motion series is not stored")
        let empty = try #require(DetailWrites(Self.summary(reps: 0, samples: 0), after: nil).series)
        #expect(empty.writesShape && !empty.appends, "an empty value series is stored: its shape, no chunk")
    }

    @Test func aNewSessionWritesEverythingAndDeletesNothing() throws {
        let writes = DetailWrites(new: Self.summary(reps: 3, samples: 5))
        #expect(!writes.replacesReps && writes.newReps == 0..<3)
        let series = try #require(writes.series)
        #expect(series.deletesFrom == nil && series.writesShape && series.firstSample == 0 && series.appends)
        #expect(writes.motion == nil, "an empty motion series is not stored")
        let empty = try #require(DetailWrites(new: Self.summary(reps: 0, samples: 0)).series)
        #expect(empty.deletesFrom == nil && empty.writesShape && !empty.appends, "its shape, no chunk")
        // What the new session's write leaves is what a checkpoint continues.
        let next = DetailWrites(
            Self.summary(reps: 4, samples: 6), after: WrittenDetails(Self.summary(reps: 3, samples: 5)))
        #expect(!next.replacesReps && next.newReps == 3..<4 && next.series?.firstSample == 5)
    }

    @Test func aCheckpointThatContinuesAppendsOnlyWhatIsNew() throws {
        let first = Self.summary(reps: 2, samples: 4)
        let writes = DetailWrites(Self.summary(reps: 3, samples: 6), after: WrittenDetails(first))
        #expect(!writes.replacesReps && writes.newReps == 2..<3)
        let series = try #require(writes.series)
        #expect(series.deletesFrom == nil && !series.writesShape && series.firstSample == 4 && series.appends)
        let unchanged = DetailWrites(first, after: WrittenDetails(first))
        #expect(unchanged.newReps.isEmpty && unchanged.series?.appends == false && unchanged.series?.firstSample == 4)
        #expect(
            unchanged.series != nil && unchanged.series?.deletesFrom == nil && unchanged.series?.writesShape == false)
    }

    @Test func repsThatDoNotContinueTheWrittenOnesAreRewritten() {
        let written = WrittenDetails(Self.summary(reps: 3, samples: 4))
        #expect(DetailWrites(Self.summary(reps: 1, samples: 4), after: written).replacesReps, "after a reset")
        var changed = Self.summary(reps: 3, samples: 4)
        changed.reps[2].peak = 121
        let writes = DetailWrites(changed, after: written)
        #expect(writes.replacesReps && writes.newReps == 0..<3, "the last written rep differs")
    }

    @Test func aSeriesThatHalvedIsRewrittenWhole() throws {
        let written = WrittenDetails(Self.summary(reps: 0, samples: 8))
        let halved = Self.summary(reps: 0, samples: 9)
        #expect(halved.series.interval == 0.2, "nine samples at capacity 8 halve the series")
        let series = try #require(DetailWrites(halved, after: written).series)
        #expect(series.deletesFrom == 0 && series.writesShape && series.firstSample == 0 && series.appends)
    }

    @Test func aMotionSeriesIsWrittenOnceItHasSamples() throws {
        var summary = Self.summary(reps: 0, samples: 0)
        let before = WrittenDetails(summary)
        summary.motion.record(MotionSample(t: 0, acceleration: MotionVector(x: 0, y: 0, z: 9.8)))
        let motion = try #require(DetailWrites(summary, after: before).motion)
        #expect(
            motion.writesShape && motion.firstSample == 0 && motion.appends, "its first samples write its shape")
        summary.motion.record(MotionSample(t: 1, acceleration: MotionVector(x: 0, y: 0, z: 9.8)))
        let next = try #require(DetailWrites(summary, after: WrittenDetails(summary)).motion)
        #expect(next.deletesFrom == nil && !next.writesShape && !next.appends)
    }
}
