import Foundation
import MotionCore
import Testing

@testable import SessionStore

/// Tenants' custom exercises in a real SQLite file: versions numbered by the store, every version kept, deletes
/// that leave old versions readable, tenants apart, quotas checked in the saving transaction.
@Suite struct ExerciseStoreTests {
    static let roomy = ExerciseQuota(maxExercises: 200, maxVersions: 10_000)

    /// Saves `id` with a definition naming its version: `{"id":"<id>","version":<n>,"note":"<note>"}`.
    @discardableResult
    static func save(
        _ store: any SessionStore, _ id: String, tenant: String = "clinic-1", as write: ExerciseWrite = .create,
        note: String = "", quota: ExerciseQuota = roomy
    ) async throws -> StoredExercise {
        try await store.saveExercise(id: id, tenant: tenant, as: write, quota: quota) { version in
            #"{"id":"\#(id)","version":\#(version),"note":"\#(note)"}"#
        }
    }

    @Test(arguments: StoreKind.allCases)
    func numbersVersionsAndKeepsEachDefinitionAsGiven(_ kind: StoreKind) async throws {
        let clock = ManualClock(1_764_424_800_000)
        try await withStore(kind, clock: clock) { store, _ in
            let first = try await Self.save(store, "kneeBend", note: "ángulo ✓")
            #expect(
                first
                    == StoredExercise(
                        id: "kneeBend", tenant: "clinic-1", version: 1,
                        definition: #"{"id":"kneeBend","version":1,"note":"ángulo ✓"}"#, createdAt: 1_764_424_800_000))
            clock.advance(by: 1000)
            let second = try await Self.save(store, "kneeBend", as: .update, note: "two")
            #expect(second.version == 2)
            #expect(second.definition == #"{"id":"kneeBend","version":2,"note":"two"}"#)
            #expect(second.createdAt == 1_764_424_801_000)
            #expect(try await store.exercise(id: "kneeBend", tenant: "clinic-1", version: nil) == second)
            #expect(try await store.exercise(id: "kneeBend", tenant: "clinic-1", version: 1) == first)
            #expect(try await store.exercise(id: "kneeBend", tenant: "clinic-1", version: 2) == second)
            #expect(try await store.exercise(id: "kneeBend", tenant: "clinic-1", version: 3) == nil)
            #expect(try await store.exercise(id: "kneeBend", tenant: "clinic-1", version: 0) == nil)
            #expect(try await store.exercise(id: "other", tenant: "clinic-1", version: nil) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func refusesACreateOfACurrentIDAndAnUpdateOfAMissingOne(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            try await Self.save(store, "kneeBend")
            await #expect(throws: SessionStoreError.alreadyExists) { try await Self.save(store, "kneeBend") }
            await #expect(throws: SessionStoreError.notFound) {
                try await Self.save(store, "hipHinge", as: .update)
            }
            #expect(try await store.exercise(id: "kneeBend", tenant: "clinic-1", version: 2) == nil)
            #expect(try await store.exercise(id: "hipHinge", tenant: "clinic-1", version: nil) == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func refusesACreateOfAnIDACurrentExerciseHasInAnotherCase(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            try await Self.save(store, "kneeBend")
            for spelling in ["KneeBend", "KNEEBEND", "kneebend"] {
                await #expect(throws: SessionStoreError.alreadyExistsAs(id: "kneeBend")) {
                    try await Self.save(store, spelling)
                }
            }
            #expect(try await store.currentExercises(tenant: "clinic-1").map(\.id) == ["kneeBend"])
            try await Self.save(store, "kneeBend", as: .update)
            try await Self.save(store, "KneeBend", tenant: "clinic-2")  // another tenant's ids are its own
            // A deleted exercise leaves its id, in every case, free.
            _ = try await store.deleteExercise(id: "kneeBend", tenant: "clinic-1")
            #expect(try await Self.save(store, "KneeBend").version == 1)
            await #expect(throws: SessionStoreError.alreadyExistsAs(id: "KneeBend")) {
                try await Self.save(store, "kneeBend")
            }
        }
    }

    /// Creates of one id in several cases, at once through two stores on one database (two connections: two
    /// processes or nodes): the saving transaction lets exactly one of them in.
    @Test(arguments: StoreKind.allCases)
    func concurrentCreatesOfOneIDInSeveralCasesStoreOne(_ kind: StoreKind) async throws {
        try await withStore(kind) { first, database in
            let second = try await database.open()
            let spellings = ["hipHinge", "HipHinge", "hiphinge", "HIPHINGE", "hipHINGE", "HipHINGE", "hIPhINGE"]
            let outcomes = await withTaskGroup(of: Result<StoredExercise, SessionStoreError>.self) { group in
                for (index, spelling) in spellings.enumerated() {
                    let store: any SessionStore = index.isMultiple(of: 2) ? first : second
                    group.addTask {
                        do {
                            return .success(try await Self.save(store, spelling))
                        } catch let error as SessionStoreError {
                            return .failure(error)
                        } catch {
                            return .failure(.database(code: -1, message: "\(error)"))
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            await second.close()
            let stored = outcomes.compactMap { try? $0.get() }
            let winner = try #require(stored.first?.id, "one create succeeds")
            #expect(stored.count == 1)
            for case .failure(let error) in outcomes {
                #expect(error == .alreadyExistsAs(id: winner), "refused for the id, not for a lock")
            }
            #expect(try await first.currentExercises(tenant: "clinic-1").map(\.id) == [winner])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func listsTheLatestVersionOfEachCurrentExerciseByID(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            try await Self.save(store, "zeta")
            try await Self.save(store, "alpha")
            try await Self.save(store, "alpha", as: .update)
            try await Self.save(store, "alpha", as: .update)
            try await Self.save(store, "mid")
            _ = try await store.deleteExercise(id: "mid", tenant: "clinic-1")
            let current = try await store.currentExercises(tenant: "clinic-1")
            #expect(current.map(\.id) == ["alpha", "zeta"])
            #expect(current.map(\.version) == [3, 1])
            #expect(try await store.currentExercises(tenant: "nobody") == [])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func deletingKeepsEveryVersionReadableAndARecreatedIDNumbersOn(_ kind: StoreKind) async throws {
        let clock = ManualClock(1_000)
        try await withStore(kind, clock: clock) { store, _ in
            try await Self.save(store, "kneeBend")
            try await Self.save(store, "kneeBend", as: .update)
            clock.now = 5_000
            #expect(try await store.deleteExercise(id: "kneeBend", tenant: "clinic-1") == 2)
            #expect(try await store.deleteExercise(id: "kneeBend", tenant: "clinic-1") == nil)
            #expect(try await store.exercise(id: "kneeBend", tenant: "clinic-1", version: nil) == nil)
            #expect(try await store.currentExercises(tenant: "clinic-1") == [])
            let old = try #require(try await store.exercise(id: "kneeBend", tenant: "clinic-1", version: 1))
            #expect(old.deletedAt == 5_000)
            await #expect(throws: SessionStoreError.notFound) {
                try await Self.save(store, "kneeBend", as: .update)
            }

            let again = try await Self.save(store, "kneeBend", note: "again")
            #expect(again.version == 3)
            #expect(again.deletedAt == nil)
            #expect(try await store.exercise(id: "kneeBend", tenant: "clinic-1", version: nil) == again)
            #expect(try await store.exercise(id: "kneeBend", tenant: "clinic-1", version: 2)?.deletedAt == 5_000)
            #expect(try await store.currentExercises(tenant: "clinic-1").map(\.version) == [3])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func keepsTenantsApart(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            try await Self.save(store, "kneeBend", tenant: "clinic-1", note: "one")
            try await Self.save(store, "kneeBend", tenant: "clinic-2", note: "two")
            try await Self.save(store, "kneeBend", tenant: "clinic-2", as: .update, note: "two again")
            try await Self.save(store, "hipHinge", tenant: "clinic-2")
            #expect(try await store.exercise(id: "kneeBend", tenant: "clinic-1", version: nil)?.version == 1)
            #expect(try await store.exercise(id: "kneeBend", tenant: "clinic-2", version: nil)?.version == 2)
            #expect(try await store.exercise(id: "hipHinge", tenant: "clinic-1", version: 1) == nil)
            #expect(try await store.deleteExercise(id: "hipHinge", tenant: "clinic-1") == nil)
            #expect(try await store.exercise(id: "hipHinge", tenant: "clinic-2", version: nil) != nil)
            #expect(try await store.currentExercises(tenant: "clinic-1").map(\.id) == ["kneeBend"])
            let all = try await store.currentExercises(tenant: nil)
            #expect(
                all.map { "\($0.tenant)/\($0.id)/\($0.version)" } == [
                    "clinic-1/kneeBend/1", "clinic-2/hipHinge/1", "clinic-2/kneeBend/2",
                ])
            await #expect(throws: SessionStoreError.notFound) {
                try await Self.save(store, "hipHinge", tenant: "clinic-1", as: .update)
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func checksTheQuotaInTheSavingTransaction(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let quota = ExerciseQuota(maxExercises: 2, maxVersions: 5)
            try await Self.save(store, "a", quota: quota)
            try await Self.save(store, "b", quota: quota)
            await #expect(throws: SessionStoreError.tooManyExercises(limit: 2)) {
                try await Self.save(store, "c", quota: quota)
            }
            try await Self.save(store, "b", tenant: "clinic-2", quota: quota)  // another tenant has its own
            _ = try await store.deleteExercise(id: "a", tenant: "clinic-1")
            try await Self.save(store, "c", quota: quota)  // deleted exercises do not count
            try await Self.save(store, "c", as: .update, quota: quota)
            try await Self.save(store, "c", as: .update, quota: quota)  // versions: a1 b1 c1 c2 c3
            await #expect(throws: SessionStoreError.tooManyVersions(limit: 5)) {
                try await Self.save(store, "b", as: .update, quota: quota)
            }
            #expect(try await store.exercise(id: "c", tenant: "clinic-1", version: 4) == nil)
            #expect(try await store.currentExercises(tenant: "clinic-1").map(\.id) == ["b", "c"])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func reopeningTheDatabaseKeepsEveryVersionAndTheNumbering(_ kind: StoreKind) async throws {
        try await withStore(kind) { first, database in
            try await Self.save(first, "kneeBend", tenant: "clinic-1")
            try await Self.save(first, "kneeBend", tenant: "clinic-1", as: .update)
            try await Self.save(first, "gone", tenant: "clinic-2")
            _ = try await first.deleteExercise(id: "gone", tenant: "clinic-2")
            await first.close()

            let second = try await database.open()
            #expect(try await second.currentExercises(tenant: nil).map(\.id) == ["kneeBend"])
            #expect(try await second.exercise(id: "gone", tenant: "clinic-2", version: 1)?.deletedAt != nil)
            #expect(try await Self.save(second, "kneeBend", tenant: "clinic-1", as: .update).version == 3)
            #expect(try await Self.save(second, "gone", tenant: "clinic-2").version == 2)
            await second.close()
            await #expect(throws: SessionStoreError.closed) {
                _ = try await second.currentExercises(tenant: nil)
            }
        }
    }

    /// The store at the schema before the exercises table (writing through the store needs version 4's columns, and
    /// reps version 8's, a motion series version 9's, holds version 13's: the session has none).
    @Test func aVersionFourDatabaseGainsTheExercisesTableKeepingItsSessions() async throws {
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("v4.sqlite")
            let session = StoredSession.make(summary: .make(reps: 0, motion: MotionSeries(), holds: []))
            do {
                let old = try await SQLiteSessionStore(path: path.path, configuration: Self.configuration(upTo: 4))
                try await old.create(session)
                await old.close()
            }
            #expect(try RawDatabase(path: path).integer("PRAGMA user_version") == 4)
            let store = try await SQLiteSessionStore(path: path.path)
            #expect(try RawDatabase(path: path).integer("PRAGMA user_version") == SQLiteSchema.newestVersion)
            #expect(try await store.session(id: session.id, tenant: session.tenant) == session)
            #expect(try await Self.save(store, "kneeBend").version == 1)
            await store.close()
        }
    }

    static func configuration(upTo version: Int) -> SQLiteSessionStore.Configuration {
        var configuration = SQLiteSessionStore.Configuration()
        configuration.schemaVersion = version
        return configuration
    }
}
