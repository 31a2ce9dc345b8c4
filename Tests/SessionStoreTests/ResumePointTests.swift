import MotionCore
import Testing

@testable import SessionStore

@Suite("What resuming a session reads and writes")
struct ResumePointTests {
    static let resumption = SessionResumption(
        tokenDigest: Array(repeating: 0xAB, count: 32), start: #"{"type":"start","exercise":"elbowFlexion"}"#)

    @Test(arguments: StoreKind.allCases)
    func aResumePointHasTheSessionItsResumptionAndItsLastCheckpoint(_ kind: StoreKind) async throws {
        let clock = ManualClock()
        try await withStore(kind, clock: clock) { store, _ in
            var session = StoredSession.make()
            session.resumption = Self.resumption
            try await store.create(session)
            let fresh = try #require(try await store.resumePoint(id: session.id, tenant: session.tenant))
            #expect(fresh.resumption == Self.resumption)
            #expect(fresh.engineState == nil, "no checkpoint yet")
            #expect(fresh.updatedAt == clock.now)
            #expect(fresh.session.status == .live)
            #expect(fresh.session.summary == session.summary, "reps and series read back")
            #expect(fresh.session.resumption == nil, "the session itself never carries it out")
            #expect(try await store.session(id: session.id, tenant: session.tenant)?.resumption == nil)
            #expect(try await store.resumePoint(id: session.id, tenant: "other") == nil, "another tenant's")

            clock.advance(by: 5_000)
            var summary = session.summary
            summary.frames += 150
            summary.lastTimestamp = 99.5
            _ = try await store.checkpoint([
                SessionCheckpoint(id: session.id, tenant: session.tenant, summary: summary, engineState: [1, 2, 3])
            ])
            let later = try #require(try await store.resumePoint(id: session.id, tenant: session.tenant))
            #expect(later.engineState?.state == [1, 2, 3])
            #expect(later.engineState?.t == 99.5)
            #expect(later.updatedAt == clock.now)
            #expect(later.session.summary.frames == summary.frames)
            #expect(later.resumption == Self.resumption, "kept across checkpoints")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aSessionWithoutResumptionHasNone(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let session = StoredSession.make()
            try await store.create(session)
            let point = try #require(try await store.resumePoint(id: session.id, tenant: session.tenant))
            #expect(point.resumption == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func liveSessionsListsOnlyLiveOnesOldestWriteFirstWithTheirDigest(_ kind: StoreKind) async throws {
        let clock = ManualClock()
        try await withStore(kind, clock: clock) { store, _ in
            var resumable = StoredSession.make(random: 1)
            resumable.resumption = Self.resumption
            try await store.create(resumable)
            clock.advance(by: 1_000)
            let plain = StoredSession.make(random: 2, tenant: "clinic-2")
            try await store.create(plain)
            let ended = StoredSession.make(random: 3, status: .finished, endedAt: clock.now)
            try await store.create(ended)
            let live = try await store.liveSessions()
            #expect(live.map(\.id) == [resumable.id, plain.id])
            #expect(live.map(\.tenant) == ["clinic-1", "clinic-2"])
            #expect(live.first?.tokenDigest == Self.resumption.tokenDigest)
            #expect(live.last?.tokenDigest == nil)
            #expect(live.first?.updatedAt == clock.now - 1_000)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func abandoningOneSessionKeepsItsCheckpointAndEndsItAtItsLastWrite(_ kind: StoreKind) async throws {
        let clock = ManualClock()
        try await withStore(kind, clock: clock) { store, database in
            let session = StoredSession.make()
            try await store.create(session)
            clock.advance(by: 5_000)
            let lastWrite = clock.now
            _ = try await store.checkpoint([
                SessionCheckpoint(id: session.id, tenant: session.tenant, summary: session.summary, engineState: [7])
            ])
            clock.advance(by: 120_000)
            #expect(try await store.abandon(id: session.id, tenant: "other") == false, "another tenant's")
            #expect(try await store.abandon(id: session.id, tenant: session.tenant))
            let stored = try #require(try await store.session(id: session.id, tenant: session.tenant))
            #expect(stored.status == .abandoned)
            #expect(stored.endedAt == lastWrite)
            #expect(stored.summary == session.summary)
            #expect(try await store.engineState(id: session.id, tenant: session.tenant) == nil)
            let raw = try database.raw()
            #expect(try raw.integer("SELECT count(*) FROM sessions WHERE engine_state IS NOT NULL") == 0)
            #expect(try await store.abandon(id: session.id, tenant: session.tenant) == false, "once only")
            #expect(try await store.liveSessions().isEmpty)
        }
    }
}
