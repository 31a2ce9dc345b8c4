import MotionCore
import Testing

@testable import SessionStore

@Suite("A live session's engine state in its checkpoints")
struct EngineStateStoreTests {
    @Test(arguments: StoreKind.allCases)
    func aCheckpointKeepsTheStateUntilTheSessionEnds(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, database in
            let session = StoredSession.make()
            try await store.create(session)
            #expect(try await store.engineState(id: session.id, tenant: session.tenant) == nil, "none before")
            let state: [UInt8] = [0x4D, 0x53, 0x45, 1, 0, 255, 7]
            var summary = session.summary
            _ = try await store.checkpoint([
                SessionCheckpoint(id: session.id, tenant: session.tenant, summary: summary, engineState: state)
            ])
            let kept = try #require(try await store.engineState(id: session.id, tenant: session.tenant))
            #expect(kept.state == state)
            #expect(kept.t == summary.lastTimestamp)
            #expect(try await store.engineState(id: session.id, tenant: "other") == nil, "another tenant's")

            // A checkpoint without state keeps the last one; a newer one replaces it.
            summary.frames += 30
            summary.lastTimestamp = 95.9
            _ = try await store.checkpoint([SessionCheckpoint(id: session.id, tenant: session.tenant, summary: summary)]
            )
            #expect(try await store.engineState(id: session.id, tenant: session.tenant)?.state == state)
            _ = try await store.checkpoint([
                SessionCheckpoint(id: session.id, tenant: session.tenant, summary: summary, engineState: [9, 9])
            ])
            let newer = try #require(try await store.engineState(id: session.id, tenant: session.tenant))
            #expect(newer.state == [9, 9])
            #expect(newer.t == 95.9)

            // Reopened: still there. Ended: gone.
            await store.close()
            let reopened = try await database.open()
            #expect(try await reopened.engineState(id: session.id, tenant: session.tenant)?.state == [9, 9])
            try await reopened.finish(
                id: session.id, tenant: session.tenant, summary: summary, status: .abandoned,
                endedAt: session.startedAt + 1)
            #expect(try await reopened.engineState(id: session.id, tenant: session.tenant) == nil)
            let raw = try database.raw()
            #expect(try raw.integer("SELECT count(*) FROM sessions WHERE engine_state IS NOT NULL") == 0)
            await reopened.close()
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aRefusedCheckpointStoresNoState(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let session = StoredSession.make(status: .finished, endedAt: 1_764_424_900_000)
            try await store.create(session)
            let refused = try await store.checkpoint([
                SessionCheckpoint(id: session.id, tenant: session.tenant, summary: session.summary, engineState: [1])
            ])
            #expect(refused[session.id] == .notLive(.finished))
            #expect(try await store.engineState(id: session.id, tenant: session.tenant) == nil)
        }
    }
}
