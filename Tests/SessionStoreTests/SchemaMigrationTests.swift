import Foundation
import MotionCore
import Testing

@testable import SessionStore

@Suite struct SchemaMigrationTests {
    @Test func migratesAnEmptyFileToTheNewestVersion() async throws {
        try await withSQLiteStore { store, path in
            let raw = try RawDatabase(path: path)
            #expect(try raw.integer("PRAGMA user_version") == SQLiteSchema.newestVersion)
            #expect(SQLiteSchema.newestVersion == 15)
            #expect(try raw.strings("PRAGMA journal_mode") == ["wal"])
            let tables = try raw.strings("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
            #expect(
                tables == [
                    "access_codes", "exercises", "motion_chunks", "motion_series", "programmes", "reps", "series",
                    "series_chunks", "sessions", "store_probe",
                ])
            let indexes = try raw.strings(
                "SELECT name FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name")
            #expect(
                indexes == [
                    "access_codes_by_subject", "programmes_by_subject", "sessions_by_exercise", "sessions_by_start",
                    "sessions_by_status", "sessions_by_subject",
                    "sessions_by_subject_exercise", "sessions_live",
                ])
        }
    }

    /// The readiness probe writes: the node's row, with its padding, rewritten at each probe; and it fails where a
    /// write fails, here a database another connection holds the write lock of.
    @Test func theProbeWritesTheNodesRow() async throws {
        try await withTemporaryDirectory { directory in
            let file = directory.appendingPathComponent("store.sqlite")
            var configuration = SQLiteSessionStore.Configuration()
            configuration.node = "node-a"
            configuration.clock = { 1_700_000_000_000 }
            configuration.busyTimeoutMilliseconds = 50
            let store = try await SQLiteSessionStore(path: file.path, configuration: configuration)
            try await store.probe()
            try await store.probe()
            let raw = try RawDatabase(path: file)
            #expect(
                try raw.strings("SELECT node || ' ' || written_at || ' ' || length(padding) FROM store_probe")
                    == ["node-a 1700000000000 4096"])
            try raw.execute("BEGIN IMMEDIATE")
            await #expect(throws: SessionStoreError.self) { try await store.probe() }
            try raw.execute("ROLLBACK")
            try await store.probe()
            await store.close()
        }
    }

    @Test func createsParentDirectories() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("a/b/c/motion.sqlite")
            let store = try await SQLiteSessionStore(path: path.path)
            try await store.create(.make())
            await store.close()
            #expect(FileManager.default.fileExists(atPath: path.path))
        }
    }

    @Test func reopeningKeepsDataAndVersion() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("store.sqlite")
            let session = StoredSession.make()
            let first = try await SQLiteSessionStore(path: path.path)
            try await first.create(session)
            await first.close()
            let second = try await SQLiteSessionStore(path: path.path)
            #expect(try await second.session(id: session.id, tenant: session.tenant) == session)
            await second.close()
            #expect(try RawDatabase(path: path).integer("PRAGMA user_version") == SQLiteSchema.newestVersion)
        }
    }

    @Test func migratesAVersionOneDatabaseKeepingItsData() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("v1.sqlite")
            let finished = SessionID(time: 1_764_424_800_000, random: 1)
            let live = SessionID(time: 1_764_424_900_000, random: 2)
            do {
                // A database as the version-1 code left it.
                let raw = try RawDatabase(path: path)
                try SQLiteSchema.migrate(raw.sqlite, upTo: 1)
                #expect(try raw.integer("PRAGMA user_version") == 1)
                #expect(try raw.integer("SELECT count(*) FROM sqlite_master WHERE name = 'series'") == 0)
                try raw.execute(
                    """
                    INSERT INTO sessions (id, tenant, subject, exercise, side, status, started_at, ended_at, first_t,
                        last_t, frames, visible_frames, rep_count, rejected_count, best, baseline, fault_counts)
                    VALUES ('\(finished)', 'clinic-1', 'patient-17', 'elbowFlexion', 'right', 'finished',
                        1764424800000, 1764424893400, 1.5, 94.9, 2802, 2718, 1, 1, 142.5, 128.0,
                        'keepUpperArmStill=2'),
                        ('\(live)', 'clinic-1', 'patient-18', 'squat', NULL, 'live', 1764424900000, NULL, NULL, NULL,
                        0, 0, 0, 0, NULL, NULL, '');
                    INSERT INTO reps (session_id, position, number, peak, trough, start_t, end_t, faults)
                    VALUES ('\(finished)', 0, 1, 130.2, 12.5, 3.1, 5.0, ''),
                        ('\(finished)', 1, 2, 131.0, 12.0, 6.0, 8.5, 'keepUpperArmStill');
                    """)
                raw.sqlite.close()
            }

            let clock = ManualClock(1_764_425_000_000)
            let store = try await SQLiteSessionStore(path: path.path, configuration: .init(clock: clock.read))
            #expect(try RawDatabase(path: path).integer("PRAGMA user_version") == SQLiteSchema.newestVersion)

            let old = try #require(try await store.session(id: finished, tenant: "clinic-1"))
            #expect(old.subject == "patient-17")
            #expect(old.status == .finished)
            #expect(old.endedAt == 1_764_424_893_400)
            #expect(old.summary.side == .right)
            #expect(old.summary.faultCounts == [.keepUpperArmStill: 2])
            #expect(
                old.summary.reps == [
                    Rep(index: 1, peak: 130.2, trough: 12.5, start: 3.1, end: 5.0),
                    Rep(index: 2, peak: 131.0, trough: 12.0, start: 6.0, end: 8.5, faults: [.keepUpperArmStill]),
                ])
            #expect(old.summary.series == ValueSeries())  // none stored before v2
            #expect(try await store.series(id: finished, tenant: "clinic-1") == ValueSeries())

            // Version-2 features on migrated rows: series, filter indexes, abandoning by last write.
            let summary = SessionSummary.make(exercise: "squat", side: nil)
            // Live before holders existed: nobody holds it, and a node claims it before writing.
            await #expect(throws: SessionStoreError.heldElsewhere) {
                try await store.checkpoint(id: live, tenant: "clinic-1", summary: summary)
            }
            #expect(try await store.claim(id: live, tenant: "clinic-1", from: nil))
            try await store.checkpoint(id: live, tenant: "clinic-1", summary: summary)
            #expect(try await store.series(id: live, tenant: "clinic-1") == summary.series)
            let page = try await store.list(SessionQuery(tenant: "clinic-1", subject: "patient-18"))
            #expect(page.sessions.map(\.id) == [live])
            #expect(try await store.abandonLiveSessions(updatedBefore: 1_764_424_999_999) == 0)
            #expect(try await store.abandonLiveSessions() == 1)
            let abandoned = try #require(try await store.session(id: live, tenant: "clinic-1"))
            #expect(abandoned.status == .abandoned)
            #expect(abandoned.endedAt == 1_764_425_000_000)
            #expect(abandoned.summary == summary)
            await store.close()
        }
    }

    @Test func migratesAVersionTwoSeriesIntoChunks() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("v2.sqlite")
            let stored = SessionID(time: 1_764_424_800_000, random: 1)
            let empty = SessionID(time: 1_764_424_900_000, random: 2)
            let series = ValueSeries.make(count: 40)
            do {
                // A database as the version-2 code left it: one blob per series (here one of 40 samples, one empty).
                let raw = try RawDatabase(path: path)
                try SQLiteSchema.migrate(raw.sqlite, upTo: 2)
                let blob = SessionRecordCoding.encodeSamples(series).map { String(format: "%02x", $0) }.joined()
                try raw.execute(
                    """
                    INSERT INTO sessions (id, tenant, exercise, status, started_at, ended_at, frames, visible_frames,
                        rep_count, rejected_count)
                    VALUES ('\(stored)', 't', 'squat', 'finished', 1, 2, 120, 120, 0, 0),
                        ('\(empty)', 't', 'squat', 'live', 1, NULL, 0, 0, 0, 0);
                    INSERT INTO series (session_id, interval, capacity, samples)
                    VALUES ('\(stored)', 0.1, 36000, x'\(blob)'), ('\(empty)', 0.1, 36000, x'');
                    """)
                raw.sqlite.close()
            }
            let store = try await SQLiteSessionStore(path: path.path)
            #expect(try await store.series(id: stored, tenant: "t") == series)
            #expect(try await store.series(id: empty, tenant: "t") == ValueSeries())
            await store.close()
            let raw = try RawDatabase(path: path)
            #expect(try raw.integer("SELECT count(*) FROM series_chunks") == 1)
            #expect(
                try raw.strings("SELECT name FROM pragma_table_info('series') ORDER BY cid") == [
                    "session_id", "interval", "capacity",
                ])
            raw.sqlite.close()
        }
    }

    @Test func migratesAVersionThreeDatabaseWithDefaultsForTheNewFields() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("v3.sqlite")
            let finished = SessionID(time: 1_764_424_800_000, random: 1)
            let rejectedOnly = SessionID(time: 1_764_424_850_000, random: 3)
            let live = SessionID(time: 1_764_424_900_000, random: 2)
            do {
                // A database as the version-3 code left it, written by its own migrations.
                let raw = try RawDatabase(path: path)
                try SQLiteSchema.migrate(raw.sqlite, upTo: 3)
                #expect(try raw.integer("PRAGMA user_version") == 3)
                try raw.execute(
                    """
                    INSERT INTO sessions (id, tenant, subject, exercise, side, status, started_at, ended_at, updated_at,
                        first_t, last_t, frames, visible_frames, rep_count, rejected_count, best, baseline, fault_counts)
                    VALUES ('\(finished)', 'clinic-1', 'patient-17', 'elbowFlexion', 'right', 'finished',
                        1764424800000, 1764424893400, 1764424893400, 1.5, 94.9, 2802, 2718, 2, 1, 142.5, 128.0,
                        'keepUpperArmStill=2'),
                        ('\(rejectedOnly)', 'clinic-1', 'patient-17', 'elbowFlexion', 'right', 'finished',
                        1764424850000, 1764424860000, 1764424860000, 1.0, 9.0, 240, 240, 0, 1, 90.0, NULL,
                        'keepUpperArmStill=1'),
                        ('\(live)', 'clinic-1', 'patient-17', 'squat', NULL, 'live', 1764424900000, NULL, 1764424900000,
                        NULL, NULL, 0, 0, 0, 0, NULL, NULL, '');
                    INSERT INTO reps (session_id, position, number, peak, trough, start_t, end_t, faults)
                    VALUES ('\(finished)', 0, 1, 130.0, 12.5, 3.1, 5.0, ''),
                        ('\(finished)', 1, 2, 150.0, 12.0, 6.0, 8.5, 'keepUpperArmStill'),
                        ('\(finished)', 2, 3, 135.0, 12.0, 9.0, 11.5, ''),
                        ('\(rejectedOnly)', 0, 1, 90.0, 10.0, 2.0, 4.0, 'keepUpperArmStill');
                    """)
                raw.sqlite.close()
            }

            let store = try await SQLiteSessionStore(path: path.path)
            #expect(try RawDatabase(path: path).integer("PRAGMA user_version") == SQLiteSchema.newestVersion)
            let old = try #require(try await store.session(id: finished, tenant: "clinic-1"))
            #expect(old.summary.exerciseVersion == 1)
            #expect(old.summary.prescription == Prescription())
            #expect(old.summary.perSide == [:])
            #expect(old.summary.reps.allSatisfy { $0.timeToPeak == nil && $0.side == nil && $0.motion == nil })
            #expect(old.summary.reps.map(\.peak) == [130, 150, 135])
            #expect(old.summary.repCount == 2)
            #expect(old.summary.faultCounts == [.keepUpperArmStill: 2])

            // The clean reps' mean peak was computed for the old rows: 132.5 from reps 1 and 3, none without one.
            let progress = try await store.progress(ProgressQuery(tenant: "clinic-1", subject: "patient-17"))
            #expect(progress.entries.map(\.id) == [finished, rejectedOnly, live].map(\.description))
            #expect(progress.entries.map(\.meanPeak) == [132.5, nil, nil])

            // The old live session goes on with the new fields, through a checkpoint and its final write.
            var summary = SessionSummary.make(exercise: "squat", side: nil, reps: 3, alternating: true)
            #expect(try await store.claim(id: live, tenant: "clinic-1", from: nil))
            try await store.checkpoint(id: live, tenant: "clinic-1", summary: summary)
            #expect(try await store.session(id: live, tenant: "clinic-1")?.summary == summary)
            summary = .make(exercise: "squat", side: nil, reps: 4, alternating: true)
            try await store.finish(
                id: live, tenant: "clinic-1", summary: summary, status: .finished, endedAt: 1_764_425_000_000)
            #expect(try await store.session(id: live, tenant: "clinic-1")?.summary == summary)
            await store.close()
        }
    }

    @Test func setsLastWriteOfMigratedRowsToTheirLastKnownTime() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("v1.sqlite")
            let raw = try RawDatabase(path: path)
            try SQLiteSchema.migrate(raw.sqlite, upTo: 1)
            try raw.execute(
                """
                INSERT INTO sessions (id, tenant, exercise, status, started_at, frames, visible_frames, rep_count,
                    rejected_count)
                VALUES ('\(SessionID(time: 1, random: 1))', 't', 'squat', 'live', 1000, 0, 0, 0, 0);
                """)
            try SQLiteSchema.migrate(raw.sqlite)
            #expect(try raw.integer("SELECT updated_at FROM sessions") == 1000)
            raw.sqlite.close()
        }
    }

    @Test func refusesADatabaseFromNewerCode() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("future.sqlite")
            let raw = try RawDatabase(path: path)
            try raw.execute("PRAGMA user_version = 99")
            raw.sqlite.close()
            await #expect(
                throws: SessionStoreError.unsupportedSchemaVersion(found: 99, newestKnown: SQLiteSchema.newestVersion)
            ) {
                _ = try await SQLiteSessionStore(path: path.path)
            }
        }
    }

    @Test func refusesAFileThatIsNotADatabase() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("text.sqlite")
            try Data(repeating: 0x41, count: 4_096).write(to: path)
            await #expect {
                _ = try await SQLiteSessionStore(path: path.path)
            } throws: { error in
                guard case .database(let code, _) = error as? SessionStoreError else { return false }
                return code == 26  // SQLITE_NOTADB
            }
        }
    }

    @Test(arguments: [
        SessionQuery(tenant: "t"), SessionQuery(tenant: "t", subject: "s"), SessionQuery(tenant: "t", exercise: "e"),
        SessionQuery(tenant: "t", status: .live), SessionQuery(tenant: "t", from: 1, to: 2),
        SessionQuery(tenant: "t", subject: "s", exercise: "e", status: .finished, from: 1, to: 9, cursor: "c"),
    ])
    func listsThroughAnIndexWithoutSorting(_ query: SessionQuery) async throws {
        try await withSQLiteStore { _, path in
            let plan = try RawDatabase(path: path).strings(
                "EXPLAIN QUERY PLAN " + SQLiteSessionStore.listSQL(for: query), column: 3
            ).joined(separator: "\n")
            #expect(plan.contains("USING INDEX sessions_by_") || plan.contains("USING COVERING INDEX"), "\(plan)")
            #expect(!plan.contains("TEMP B-TREE"), "\(plan)")
            #expect(!plan.contains("SCAN sessions\n") && !plan.hasSuffix("SCAN sessions"), "\(plan)")
        }
    }
}
