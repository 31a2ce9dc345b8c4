import MotionCore
import Testing

@testable import SessionStore

/// A live session lets go of each stretch of its series once a checkpoint stored it (`ValueSeries.release(before:)`),
/// so its memory stays bounded however long it runs; the store still holds, and reads back, the whole series.
@Suite struct ReleasedSeriesTests {
    /// A series as a live session keeps it (released after each stored checkpoint) beside its twin that releases
    /// nothing, recorded together.
    struct Twins {
        var live = ValueSeries(interval: 0.1, capacity: 100)
        var whole = ValueSeries(interval: 0.1, capacity: 100)
        var liveMotion = MotionSeries(interval: 0.05, capacity: 100)
        var wholeMotion = MotionSeries(interval: 0.05, capacity: 100)
        /// Every recorded sample, for the expectations that the twin cannot give.
        var recorded: [(t: Double, value: Double?)] = []
        var t = 3.0

        mutating func record(_ count: Int) {
            for _ in 0..<count {
                let value: Double? = recorded.count % 7 == 3 ? nil : t.rounded()
                live.record(value, at: t)
                whole.record(value, at: t)
                let sample = MotionSample(t: t, acceleration: MotionVector(x: t, y: -9.81, z: 0.5))
                liveMotion.record(sample)
                wholeMotion.record(sample)
                recorded.append((t, value))
                t += 0.1
            }
        }

        var summary: SessionSummary { .make(reps: 0, series: live, motion: liveMotion) }

        mutating func release(upTo summary: SessionSummary) {
            live.release(before: summary.series.count)
            liveMotion.release(before: summary.motion.count)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aReleasedSeriesIsStoredWhole(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, database in
            let raw = try database.raw()
            defer { raw.close() }
            func chunks(_ table: String = "series_chunks") throws -> String {
                try raw.strings("SELECT first FROM \(table) ORDER BY first").joined(separator: ",")
            }
            var twins = Twins()
            let session = StoredSession.make(summary: twins.summary)
            try await store.create(session)
            func checkpoint(into store: any TestedStore) async throws {
                let summary = twins.summary
                let refused = try await store.checkpoint([
                    SessionCheckpoint(id: session.id, tenant: session.tenant, summary: summary)
                ])
                #expect(refused.isEmpty)
                twins.release(upTo: summary)
            }
            func expectStoredWhole(in store: any TestedStore, _ comment: Comment) async throws {
                let read = try #require(try await store.session(id: session.id, tenant: session.tenant)).summary
                #expect(read.series == twins.whole, comment)
                #expect(read.motion == twins.wholeMotion, comment)
                #expect(try await store.series(id: session.id, tenant: session.tenant) == twins.whole, comment)
            }

            twins.record(30)
            try await checkpoint(into: store)
            #expect(twins.live.heldStart == 30 && twins.live.times.isEmpty && twins.live.count == 30)
            twins.record(25)
            try await checkpoint(into: store)
            #expect(try chunks() == "0,30" && chunks("motion_chunks") == "0,30", "each stretch appended once")
            try await expectStoredWhole(in: store, "after two checkpoints")

            // Another store on the database does not know how far the series is written (a resume on another
            // node): it writes again from the first sample held.
            let other = try await database.open()
            twins.record(20)
            try await checkpoint(into: other)
            #expect(try chunks() == "0,30,55")
            try await expectStoredWhole(in: other, "after a store that had not written it")

            // Past the capacity the twin halves its resolution; the store holds every sample and thins them as it
            // reads them, to the same series.
            twins.record(40)
            #expect(twins.whole.interval == 0.2 && twins.live.interval == 0.1)
            try await checkpoint(into: other)
            try await expectStoredWhole(in: other, "past the capacity")

            // The final write keeps the stored chunks and writes the held samples after them.
            twins.record(3)
            try await other.finish(
                id: session.id, tenant: session.tenant, summary: twins.summary, status: .finished, endedAt: 9)
            #expect(try chunks() == "0,30,55,75,115")
            try await expectStoredWhole(in: other, "finished")
            await other.close()
        }
    }

    /// A series whose checkpoints are not stored for as long as its capacity takes to fill lets go of its oldest
    /// held half unstored: the store keeps a gap there and reads the samples around it.
    @Test(arguments: StoreKind.allCases)
    func samplesLetGoUnstoredLeaveAGap(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, database in
            var twins = Twins()
            let session = StoredSession.make(summary: twins.summary)
            try await store.create(session)
            twins.record(30)
            let summary = twins.summary
            try await store.checkpoint(id: session.id, tenant: session.tenant, summary: summary)
            twins.release(upTo: summary)
            twins.record(130)  // 100 held at position 130: the oldest 50 (30..<80) go unstored
            #expect(twins.live.heldStart == 80 && twins.live.count == 160)
            try await store.checkpoint(id: session.id, tenant: session.tenant, summary: twins.summary)
            let raw = try database.raw()
            defer { raw.close() }
            #expect(try raw.strings("SELECT first FROM series_chunks ORDER BY first") == ["0", "80"])
            let kept = twins.recorded[0..<30] + twins.recorded[80..<160]
            let expected = ValueSeries(
                times: kept.map(\.t), values: kept.map(\.value), interval: 0.1, capacity: 100)
            #expect(expected.count == 55 && expected.interval == 0.2, "110 samples thinned to the capacity")
            #expect(try await store.series(id: session.id, tenant: session.tenant) == expected)
        }
    }
}
