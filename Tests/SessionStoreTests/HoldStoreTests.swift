import Foundation
import MotionCore
import PostgresTestSupport
import Testing

@testable import SessionStore

/// A hold exercise's attempts with the time each was held (docs/protocol.md §5.4) are stored with the session's row,
/// by both stores, and databases of the schema before them are migrated with none.
@Suite struct HoldStoreTests {
    static let plank = [
        Hold(start: 2.5, held: 14.75, completed: true), Hold(start: 20, held: 0.03333333333333333, completed: false),
        Hold(start: -0.0, held: 0, completed: false), Hold(start: 1e9 + 0.1, held: 7200.5, completed: true),
    ]

    @Test(arguments: StoreKind.allCases)
    func storesTheHoldsOfEveryWriteAndReadsThemBack(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let session = StoredSession.make(summary: .make(exercise: "plankHold", holds: []))
            try await store.create(session)
            #expect(try await store.session(id: session.id, tenant: session.tenant)?.summary.holds == [])
            for count in 1...Self.plank.count {
                let summary = SessionSummary.make(exercise: "plankHold", holds: Array(Self.plank.prefix(count)))
                try await store.checkpoint(id: session.id, tenant: session.tenant, summary: summary)
                let read = try #require(try await store.session(id: session.id, tenant: session.tenant))
                #expect(read.summary == summary)
                #expect(read.summary.holds.map(\.start.sign) == summary.holds.map(\.start.sign), "-0.0 stays")
            }
            // A reset clears them; the final write is whole.
            let final = SessionSummary.make(exercise: "plankHold", holds: [Self.plank[1]])
            try await store.finish(
                id: session.id, tenant: session.tenant, summary: final, status: .finished, endedAt: 1_764_424_900_000)
            let read = try #require(try await store.session(id: session.id, tenant: session.tenant))
            #expect(read.summary.holds == [Self.plank[1]])
            #expect(read.summary.bestHold == Self.plank[1].held)
            let listed = try await store.list(SessionQuery(tenant: session.tenant)).sessions
            #expect(listed.map(\.summary.holds) == [[Self.plank[1]]])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func storesAFinishedSessionCreatedWithItsHolds(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let session = StoredSession.make(
                status: .finished, endedAt: 1_764_424_900_000, summary: .make(exercise: "plankHold", holds: Self.plank))
            let other = StoredSession.make(random: 2, summary: .make(holds: []))
            let refused = try await store.create([session, other])
            #expect(refused.isEmpty)
            #expect(try await store.session(id: session.id, tenant: session.tenant) == session)
            #expect(try await store.session(id: other.id, tenant: other.tenant)?.summary.holds == [])
        }
    }

    @Test(
        arguments: StoreKind.allCases,
        [
            "1:2", "1:2:1:0", "1:2:yes", "1:2:", ":2:1", "x:2:1", "1:-2:1", "1:-0.5:0", "1:nan:1", "1:inf:0",
            "inf:2:1", "1:2:1,3:4", "1:2:1;3:4:0",
        ])
    func reportsDamagedHolds(_ kind: StoreKind, damage: String) async throws {
        try await withStore(kind) { store, database in
            let session = StoredSession.make()
            try await store.create(session)
            try database.raw().execute("UPDATE sessions SET holds = '\(damage)'")
            await #expect(throws: SessionStoreError.corruptRecord(id: session.id.description)) {
                try await store.session(id: session.id, tenant: session.tenant)
            }
            await #expect(throws: SessionStoreError.corruptRecord(id: session.id.description)) {
                try await store.list(SessionQuery(tenant: session.tenant))
            }
        }
    }

    @Test func writesHoldsAsTheirStartHeldAndCompletedJoinedByCommas() async throws {
        try await withSQLiteStore { store, path in
            try await store.create(.make(summary: .make(holds: [Self.plank[0], Self.plank[1]])))
            #expect(
                try RawDatabase(path: path).strings("SELECT holds FROM sessions")
                    == ["2.5:14.75:1,20.0:0.03333333333333333:0"])
        }
    }

    /// A database the version-12 code left, with an ended and a live session, is migrated to version 13: both read
    /// back without holds, and the live one goes on with them.
    @Test func migratesASQLiteVersion12DatabaseKeepingItsSessions() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("v12.sqlite")
            let finished = SessionID(time: 1_764_424_800_000, random: 1)
            let live = SessionID(time: 1_764_424_900_000, random: 2)
            do {
                let raw = try RawDatabase(path: path)
                try SQLiteSchema.migrate(raw.sqlite, upTo: 12)
                #expect(try raw.integer("PRAGMA user_version") == 12)
                try raw.execute(
                    """
                    INSERT INTO sessions (id, tenant, subject, exercise, status, started_at, ended_at, updated_at,
                        first_t, last_t, frames, visible_frames, rep_count, rejected_count, best,
                        prescribed_hold_seconds)
                    VALUES ('\(finished)', 'clinic-1', 'patient-17', 'plankHold', 'finished', 1764424800000,
                        1764424860000, 1764424860000, 0.0, 60.0, 1800, 1800, 1, 0, 0.31, 10.0),
                        ('\(live)', 'clinic-1', 'patient-17', 'plankHold', 'live', 1764424900000, NULL,
                        1764424900000, NULL, NULL, 0, 0, 0, 0, NULL, 10.0);
                    """)
                raw.sqlite.close()
            }
            let store = try await SQLiteSessionStore(path: path.path)
            let raw = try RawDatabase(path: path)
            #expect(try raw.integer("PRAGMA user_version") == SQLiteSchema.newestVersion)
            #expect(try raw.strings("SELECT holds FROM sessions ORDER BY id") == ["", ""])
            let old = try #require(try await store.session(id: finished, tenant: "clinic-1"))
            #expect(old.summary.holds.isEmpty)
            #expect(old.summary.bestHold == nil)
            #expect(old.programme == nil, "sessions stored before programmes have none")
            #expect(old.demo == false)
            #expect(old.summary.repCount == 1)
            #expect(try await store.claim(id: live, tenant: "clinic-1", from: nil))
            let summary = SessionSummary.make(exercise: "plankHold", side: nil, holds: Self.plank)
            try await store.finish(
                id: live, tenant: "clinic-1", summary: summary, status: .finished, endedAt: 1_764_425_000_000)
            #expect(try await store.session(id: live, tenant: "clinic-1")?.summary == summary)
            raw.sqlite.close()
            await store.close()
        }
    }

    /// The same for PostgreSQL: a database of schema version 8 is migrated to 9.
    @Test(.enabled(if: PostgresTestServer.isInstalled, "PostgreSQL server binaries missing: apt install postgresql"))
    func migratesAPostgresVersion8DatabaseKeepingItsSessions() async throws {
        let url = try await PostgresTestServer.shared.createDatabase()
        let finished = SessionID(time: 1_764_424_800_000, random: 1)
        let live = SessionID(time: 1_764_424_900_000, random: 2)
        do {
            let raw = try RawDatabase(url: url)
            defer { raw.close() }
            try PostgresSchema.migrate(raw.postgres, upTo: 8, now: 0)
            #expect(try raw.strings("SELECT max(version)::text FROM schema_migrations") == ["8"])
            try raw.execute(
                """
                INSERT INTO sessions (id, tenant, subject, exercise, status, started_at, ended_at, updated_at,
                    first_t, last_t, frames, visible_frames, rep_count, rejected_count, best, prescribed_hold_seconds)
                VALUES ('\(finished)', 'clinic-1', 'patient-17', 'plankHold', 'finished', 1764424800000,
                    1764424860000, 1764424860000, 0.0, 60.0, 1800, 1800, 1, 0, 0.31, 10.0),
                    ('\(live)', 'clinic-1', 'patient-17', 'plankHold', 'live', 1764424900000, NULL,
                    1764424900000, NULL, NULL, 0, 0, 0, 0, NULL, 10.0);
                """)
        }
        let store = try await PostgresSessionStore(url: url)
        let raw = try RawDatabase(url: url)
        defer { raw.close() }
        #expect(
            try raw.strings("SELECT max(version)::text FROM schema_migrations") == ["\(PostgresSchema.newestVersion)"])
        #expect(try raw.strings("SELECT holds FROM sessions ORDER BY id") == ["", ""])
        let old = try #require(try await store.session(id: finished, tenant: "clinic-1"))
        #expect(old.summary.holds.isEmpty)
        #expect(old.summary.repCount == 1)
        #expect(old.programme == nil, "sessions stored before programmes have none")
        #expect(old.demo == false)
        #expect(try await store.claim(id: live, tenant: "clinic-1", from: nil))
        let summary = SessionSummary.make(exercise: "plankHold", side: nil, holds: Self.plank)
        try await store.finish(
            id: live, tenant: "clinic-1", summary: summary, status: .finished, endedAt: 1_764_425_000_000)
        #expect(try await store.session(id: live, tenant: "clinic-1")?.summary == summary)
        await store.close()
    }
}
