import MotionCore
import PostgresTestSupport
import Testing

@testable import SessionStore

/// Which node holds a live session (docs/protocol.md §8): set by its creation, moved only by a claim that saw the current
/// holder, and guarding the session's writes, on both stores.
@Suite("Session holders")
struct HolderStoreTests {
    @Test(arguments: StoreKind.allCases)
    func theCreatorHoldsTheSessionAndOnlyItsWritesAreTaken(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, database in
            let other = try await database.open(as: "node-b")
            let session = StoredSession.make()
            try await store.create(session)
            let point = try #require(try await other.resumePoint(id: session.id, tenant: session.tenant))
            #expect(point.holder == "test-node")
            #expect(try await other.liveSessions().map(\.holder) == ["test-node"])

            var summary = session.summary
            summary.frames += 10
            await #expect(throws: SessionStoreError.heldElsewhere) {
                try await other.checkpoint(id: session.id, tenant: session.tenant, summary: summary)
            }
            let refused = try await other.checkpoint([
                SessionCheckpoint(id: session.id, tenant: session.tenant, summary: summary, engineState: [1])
            ])
            #expect(refused == [session.id: .heldElsewhere])
            await #expect(throws: SessionStoreError.heldElsewhere) {
                try await other.finish(
                    id: session.id, tenant: session.tenant, summary: summary, status: .finished, endedAt: 1)
            }
            #expect(try await store.session(id: session.id, tenant: session.tenant)?.summary == session.summary)
            #expect(try await store.engineState(id: session.id, tenant: session.tenant) == nil)
            try await store.checkpoint(id: session.id, tenant: session.tenant, summary: summary)
            #expect(try await other.session(id: session.id, tenant: session.tenant)?.summary == summary)
            await other.close()
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aClaimTakesTheSessionOnlyFromTheHolderItSaw(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, database in
            let other = try await database.open(as: "node-b")
            let session = StoredSession.make()
            try await store.create(session)
            let (id, tenant) = (session.id, session.tenant)

            #expect(try await other.claim(id: id, tenant: tenant, from: nil) == false, "it has a holder")
            #expect(try await other.claim(id: id, tenant: tenant, from: "node-c") == false, "not that one")
            #expect(try await other.claim(id: id, tenant: "clinic-2", from: "test-node") == false, "another tenant's")
            #expect(try await other.claim(id: id, tenant: tenant, from: "test-node"))
            #expect(try await other.claim(id: id, tenant: tenant, from: "test-node") == false, "already moved")
            #expect(try await store.resumePoint(id: id, tenant: tenant)?.holder == "node-b")

            // The old holder is fenced off; the new one writes.
            let summary = SessionSummary.make(reps: 3)
            await #expect(throws: SessionStoreError.heldElsewhere) {
                try await store.checkpoint(id: id, tenant: tenant, summary: summary)
            }
            try await other.checkpoint(id: id, tenant: tenant, summary: summary)

            // Released, nobody holds it, and a claim from nobody takes it.
            #expect(try await store.release(id: id, tenant: tenant) == false, "not its to release")
            #expect(try await other.release(id: id, tenant: tenant))
            #expect(try await store.resumePoint(id: id, tenant: tenant)?.holder == nil)
            await #expect(throws: SessionStoreError.heldElsewhere) {
                try await other.checkpoint(id: id, tenant: tenant, summary: summary)
            }
            #expect(try await store.claim(id: id, tenant: tenant, from: nil))
            try await store.finish(id: id, tenant: tenant, summary: summary, status: .finished, endedAt: 2)

            // An ended session is nobody's to claim.
            #expect(try await other.claim(id: id, tenant: tenant, from: "test-node") == false)
            #expect(try await other.claim(id: id, tenant: tenant, from: nil) == false)
            await other.close()
        }
    }

    @Test(arguments: StoreKind.allCases)
    func abandoningSparesTheSessionsOfLiveNodes(_ kind: StoreKind) async throws {
        try await withStore(kind, clock: ManualClock(1_000_000)) { store, database in
            let other = try await database.open(as: "node-b")
            let mine = StoredSession.make(random: 1)
            let theirs = StoredSession.make(random: 2)
            let nobodys = StoredSession.make(random: 3)
            try await store.create(mine)
            try await other.create(theirs)
            try await store.create(nobodys)
            #expect(try await store.release(id: nobodys.id, tenant: nobodys.tenant))
            database.clock.advance(by: 10_000)

            #expect(
                try await store.abandonLiveSessions(updatedBefore: 1_000_001, except: ["test-node", "node-b"]) == 1)
            #expect(try await store.session(id: nobodys.id, tenant: nobodys.tenant)?.status == .abandoned)
            #expect(try await store.abandonLiveSessions(updatedBefore: 1_000_001, except: ["test-node"]) == 1)
            #expect(try await store.session(id: theirs.id, tenant: theirs.tenant)?.status == .abandoned)
            #expect(try await store.session(id: mine.id, tenant: mine.tenant)?.status == .live)
            #expect(try await store.abandonLiveSessions(updatedBefore: 1_000_000, except: []) == 0, "written since")
            #expect(try await store.abandonLiveSessions(updatedBefore: 1_000_001, except: []) == 1)
            await other.close()
        }
    }

    @Test(arguments: StoreKind.allCases)
    func theHolderWritesWhetherAClientIsAttached(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, database in
            let other = try await database.open(as: "node-b")
            let live = StoredSession.make(random: 1)
            let ended = StoredSession.make(random: 2, status: .finished, endedAt: 1_764_424_900_000)
            try await store.create(live)
            try await store.create(ended)
            let ids = [live.id, ended.id, SessionID(time: 1, random: 3)]
            #expect(try await other.connected(ids, tenant: "clinic-1") == [live.id: true], "created attached")
            #expect(try await other.connected(ids, tenant: "clinic-2") == [:], "another tenant's")
            #expect(try await other.connected([], tenant: "clinic-1") == [:])
            try await store.setConnected(false, id: live.id, tenant: "clinic-1")
            #expect(try await other.connected(ids, tenant: "clinic-1") == [live.id: false])
            try await other.setConnected(true, id: live.id, tenant: "clinic-1")
            #expect(try await store.connected(ids, tenant: "clinic-1") == [live.id: false], "only its holder writes it")
            try await store.finish(
                id: live.id, tenant: "clinic-1", summary: live.summary, status: .finished, endedAt: 1_764_424_900_000)
            #expect(try await other.connected(ids, tenant: "clinic-1") == [:], "ended: none")
            await other.close()
        }
    }

    @Test func anEmbeddedStoreKnowsOnlyItsOwnProcess() async throws {
        try await withStore(.sqlite) { store, _ in
            let nodes = try await store.liveNodes(heartbeatSince: .min)
            #expect(nodes == ["test-node"])
        }
        var first = SQLiteSessionStore.Configuration()
        var second = SQLiteSessionStore.Configuration()
        (first.node, second.node) = (StoreNode.generateID(), StoreNode.generateID())
        #expect(first.node != second.node, "each process run is a new node")
        #expect(first.node.utf8.count == 16 && first.node.allSatisfy(\.isHexDigit))
    }
}
