import MotionCore
import Testing

@testable import SessionStore

/// The motion series (docs/protocol.md §5.2) in both stores: written with the session's checkpoints and final write as
/// the value series is, read back whole and alone, refused when damaged.
@Suite struct MotionSeriesStoreTests {
    @Test(arguments: StoreKind.allCases)
    func roundTripsTheMotionSeries(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let session = StoredSession.make()
            #expect(session.summary.motion.count == 40)
            try await store.create(session)
            let read = try #require(try await store.session(id: session.id, tenant: session.tenant))
            #expect(read.summary.motion == session.summary.motion)
            #expect(try await store.motion(id: session.id, tenant: session.tenant) == session.summary.motion)
            // Unknown, or another tenant's: nil, as for the value series.
            #expect(try await store.motion(id: session.id, tenant: "clinic-2") == nil)
            #expect(try await store.motion(id: SessionID(time: 1, random: 99), tenant: session.tenant) == nil)
            // Listings carry no series of either kind.
            let listed = try await store.list(SessionQuery(tenant: session.tenant)).sessions
            #expect(listed.map(\.summary.motion) == [MotionSeries()])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aSessionWithoutMotionReadsAnEmptySeries(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let session = StoredSession.make(summary: .make(motion: MotionSeries()))
            try await store.create(session)
            #expect(try await store.motion(id: session.id, tenant: session.tenant) == MotionSeries())
            #expect(try await store.session(id: session.id, tenant: session.tenant) == session)
        }
    }

    /// Checkpoints append a chunk of the samples that came since the last write; a series that halved its
    /// resolution is rewritten as one chunk; the final write is whole.
    @Test(arguments: StoreKind.allCases)
    func checkpointsAppendMotionChunks(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, database in
            let raw = try database.raw()
            defer { raw.close() }
            func chunks() throws -> String {
                try raw.strings("SELECT first FROM motion_chunks ORDER BY first").joined(separator: ",")
            }
            var motion = MotionSeries(interval: 0.05, capacity: 64)
            var summary = SessionSummary.make(reps: 0, motion: motion)
            let session = StoredSession.make(summary: summary)
            try await store.create(session)
            var t = 2.0
            func record(_ count: Int) {
                for _ in 0..<count {
                    motion.record(MotionSample(t: t, acceleration: MotionVector(x: t, y: -9.8, z: 0.5)))
                    t += motion.interval
                }
            }
            func checkpoint() async throws {
                summary.motion = motion
                try await store.checkpoint(id: session.id, tenant: session.tenant, summary: summary)
                #expect(try await store.session(id: session.id, tenant: session.tenant)?.summary == summary)
            }
            record(20)
            try await checkpoint()
            record(10)
            try await checkpoint()
            try await checkpoint()  // nothing new: nothing written
            record(5)
            try await checkpoint()
            #expect(try chunks() == "0,20,30")
            record(40)
            #expect(motion.interval == 0.1, "the series halved at its capacity")
            try await checkpoint()
            #expect(try chunks() == "0")
            record(3)
            summary.motion = motion
            try await store.finish(
                id: session.id, tenant: session.tenant, summary: summary, status: .finished, endedAt: 9)
            #expect(try chunks() == "0")
            #expect(try await store.motion(id: session.id, tenant: session.tenant) == motion)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func deletingASessionDeletesItsMotion(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, database in
            let session = StoredSession.make()
            try await store.create(session)
            let raw = try database.raw()
            defer { raw.close() }
            #expect(try raw.integer("SELECT count(*) FROM motion_series") == 1)
            #expect(try raw.integer("SELECT count(*) FROM motion_chunks") == 1)
            try await store.finish(
                id: session.id, tenant: session.tenant, summary: session.summary, status: .finished, endedAt: 2)
            #expect(try await store.delete(id: session.id, tenant: session.tenant))
            #expect(try raw.integer("SELECT count(*) FROM motion_series") == 0)
            #expect(try raw.integer("SELECT count(*) FROM motion_chunks") == 0)
            #expect(try await store.motion(id: session.id, tenant: session.tenant) == nil)
        }
    }

    @Test(
        arguments: StoreKind.allCases,
        [
            // Truncated: not whole quadruples of 8-byte numbers.
            "UPDATE motion_chunks SET samples = x'00'", "UPDATE motion_chunks SET samples = zeroblob(31)",
            // A NaN time; a reading that is not finite (+infinity as x).
            "UPDATE motion_chunks SET samples = x'\(String(repeating: "0", count: 12))F87F\(String(repeating: "0", count: 48))'",
            "UPDATE motion_chunks SET samples = x'\(String(repeating: "0", count: 28))F07F\(String(repeating: "0", count: 32))'",
            // Two samples with the same time (times must increase).
            "UPDATE motion_chunks SET samples = zeroblob(64)",
            // Chunks that overlap; a chunk after a gap whose times go back.
            "INSERT INTO motion_chunks SELECT session_id, 39, samples FROM motion_chunks",
            "INSERT INTO motion_chunks SELECT session_id, 41, samples FROM motion_chunks",
            #"UPDATE motion_series SET "interval" = -1"#,
        ])
    func reportsADamagedMotionSeries(_ kind: StoreKind, damage: String) async throws {
        try await withStore(kind) { store, database in
            let session = StoredSession.make()
            try await store.create(session)
            try database.raw().execute(
                database.dialect(sqlite: damage, postgres: RoundTripTests.postgresBlobs(damage)))
            await #expect(throws: SessionStoreError.corruptRecord(id: session.id.description)) {
                try await store.motion(id: session.id, tenant: session.tenant)
            }
            await #expect(throws: SessionStoreError.corruptRecord(id: session.id.description)) {
                try await store.session(id: session.id, tenant: session.tenant)
            }
            #expect(try await store.series(id: session.id, tenant: session.tenant) == session.summary.series)
        }
    }

    /// A database of version 8 (no motion tables) gains them; its sessions read with an empty motion series and
    /// take one from their next write.
    @Test func aVersionEightDatabaseGainsTheMotionTables() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("v8.sqlite")
            var session = StoredSession.make(summary: .make(motion: MotionSeries(), holds: []))
            do {
                let old = try await SQLiteSessionStore(
                    path: path.path, configuration: ExerciseStoreTests.configuration(upTo: 8))
                try await old.create(session)
                await old.close()
            }
            #expect(try RawDatabase(path: path).integer("PRAGMA user_version") == 8)
            let store = try await SQLiteSessionStore(path: path.path)
            #expect(try RawDatabase(path: path).integer("PRAGMA user_version") == SQLiteSchema.newestVersion)
            #expect(try await store.session(id: session.id, tenant: session.tenant) == session)
            #expect(try await store.motion(id: session.id, tenant: session.tenant) == MotionSeries())
            // Live before holders existed: this run claims it before writing.
            #expect(try await store.claim(id: session.id, tenant: session.tenant, from: nil))
            session.summary.motion = .make()
            try await store.checkpoint(id: session.id, tenant: session.tenant, summary: session.summary)
            #expect(try await store.motion(id: session.id, tenant: session.tenant) == .make())
            await store.close()
        }
    }
}
