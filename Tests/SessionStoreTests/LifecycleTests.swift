import MotionCore
import Testing

@testable import SessionStore

@Suite struct LifecycleTests {
    @Test(arguments: StoreKind.allCases)
    func checkpointsThenFinishes(_ kind: StoreKind) async throws {
        let clock = ManualClock()
        try await withStore(kind, clock: clock) { store, _ in
            var session = StoredSession.make(summary: SessionSummary(exercise: "elbowFlexion", side: .right))
            try await store.create(session)
            for step in 1...3 {
                clock.advance(by: 5_000)
                session.summary = .make(frames: 150 * step, reps: step)
                try await store.checkpoint(id: session.id, tenant: session.tenant, summary: session.summary)
                #expect(try await store.session(id: session.id, tenant: session.tenant) == session)
            }
            // Fewer reps than before (the client reset): the stored reps shrink too.
            session.summary = .make(frames: 600, reps: 1)
            try await store.checkpoint(id: session.id, tenant: session.tenant, summary: session.summary)
            #expect(try await store.session(id: session.id, tenant: session.tenant) == session)

            let final = SessionSummary.make(frames: 700, reps: 4, baseline: nil)
            try await store.finish(
                id: session.id, tenant: session.tenant, summary: final, status: .finished, endedAt: 1_764_424_893_400)
            session.summary = final
            session.status = .finished
            session.endedAt = 1_764_424_893_400
            #expect(try await store.session(id: session.id, tenant: session.tenant) == session)
        }
    }

    /// A live session's checkpoints append the reps and samples that came since the last one; a summary that no
    /// longer begins with what was written (reset, a series that halved) is rewritten; the final write is whole.
    @Test(arguments: StoreKind.allCases)
    func checkpointsAppendWhatIsNewAndRewriteWhatChanged(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, database in
            let raw = try database.raw()
            defer { raw.close() }
            func chunks() throws -> String {
                try raw.strings("SELECT first FROM series_chunks ORDER BY first").joined(separator: ",")
            }
            let repPositions = "SELECT count(*) FROM reps"
            var series = ValueSeries(interval: 0.1, capacity: 100)
            var summary = SessionSummary.make(reps: 0, series: series)
            let session = StoredSession.make(summary: summary)
            try await store.create(session)
            var t = 3.0
            func record(_ count: Int) {
                for _ in 0..<count {
                    series.record(t, at: t)
                    t += series.interval
                }
            }
            func checkpoint(reps: Int) async throws {
                summary = .make(frames: series.count, reps: reps, series: series)
                try await store.checkpoint(id: session.id, tenant: session.tenant, summary: summary)
                let read = try #require(try await store.session(id: session.id, tenant: session.tenant))
                #expect(read.summary == summary)
            }
            record(30)
            try await checkpoint(reps: 2)
            record(25)
            try await checkpoint(reps: 3)
            try await checkpoint(reps: 3)  // nothing new: nothing written
            record(5)
            try await checkpoint(reps: 5)
            #expect(try chunks() == "0,30,55", "each checkpoint appended one chunk of its new samples")
            #expect(try raw.integer(repPositions) == 5)

            // Reset: fewer reps than written, and the same count again with other reps, are rewritten.
            try await checkpoint(reps: 1)
            #expect(try raw.integer(repPositions) == 1)
            summary.reps = [Rep(index: 1, peak: 99, trough: 1, start: 50, end: 51)]
            try await store.checkpoint(id: session.id, tenant: session.tenant, summary: summary)
            #expect(try await store.session(id: session.id, tenant: session.tenant)?.summary.reps == summary.reps)

            // The series fills up and halves its resolution: rewritten as one chunk.
            record(50)
            #expect(series.interval == 0.2)
            try await checkpoint(reps: 1)
            #expect(try chunks() == "0")
            record(3)
            try await checkpoint(reps: 1)
            #expect(try chunks().hasPrefix("0,"))

            // The same session twice in one batch: the second checkpoint follows the first.
            record(4)
            let first = SessionSummary.make(frames: 1, reps: 2, series: series)
            record(4)
            summary = .make(frames: 2, reps: 3, series: series)
            let refused = try await store.checkpoint([
                SessionCheckpoint(id: session.id, tenant: session.tenant, summary: first),
                SessionCheckpoint(id: session.id, tenant: session.tenant, summary: summary),
            ])
            #expect(refused.isEmpty)
            #expect(try await store.session(id: session.id, tenant: session.tenant)?.summary == summary)

            // The final write is whole: one chunk, exactly the final summary.
            record(2)
            summary = .make(frames: 3, reps: 4, series: series)
            try await store.finish(
                id: session.id, tenant: session.tenant, summary: summary, status: .finished, endedAt: 9)
            #expect(try chunks() == "0")
            #expect(try await store.session(id: session.id, tenant: session.tenant)?.summary == summary)
            #expect(await store.written.isEmpty, "an ended session's writes are forgotten")

            // Abandoning live sessions forgets what was written of them too.
            let other = StoredSession.make(random: 2, summary: summary)
            try await store.create(other)
            #expect(await store.written[other.id] == WrittenDetails(summary))
            #expect(try await store.abandonLiveSessions() == 1)
            #expect(await store.written.isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func checkpointsABatchAndReportsWhatItRefused(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let live = (1...3).map { StoredSession.make(random: UInt128($0)) }
            for session in live { try await store.create(session) }
            let ended = StoredSession.make(random: 4)
            try await store.create(ended)
            try await store.finish(
                id: ended.id, tenant: ended.tenant, summary: .make(frames: 9), status: .finished, endedAt: 5)
            let unknown = StoredSession.make(random: 5)
            let otherTenant = SessionCheckpoint(id: live[0].id, tenant: "someone-else", summary: .make(frames: 77))

            #expect(try await store.checkpoint([]).isEmpty)
            var batch = live.enumerated().map {
                SessionCheckpoint(id: $1.id, tenant: $1.tenant, summary: .make(frames: 100 + $0, reps: $0))
            }
            batch += [
                SessionCheckpoint(id: ended.id, tenant: ended.tenant, summary: .make(frames: 1)),
                SessionCheckpoint(id: unknown.id, tenant: unknown.tenant, summary: .make(frames: 1)), otherTenant,
            ]
            let refused = try await store.checkpoint(batch)
            #expect(refused[ended.id] == .notLive(.finished))
            #expect(refused[unknown.id] == .notFound)
            #expect(refused[live[0].id] == .notFound, "another tenant's session is unknown to it")
            #expect(refused.count == 3)
            for (index, session) in live.enumerated() {
                let read = try #require(try await store.session(id: session.id, tenant: session.tenant))
                #expect(read.summary == .make(frames: 100 + index, reps: index))
                #expect(read.status == .live)
            }
            #expect(try await store.session(id: ended.id, tenant: ended.tenant)?.summary == .make(frames: 9))
            #expect(try await store.session(id: unknown.id, tenant: unknown.tenant) == nil)
        }
    }

    /// A batch may hold a session twice (two checkpoints gathered before a write): the later one wins, and the next
    /// checkpoint appends to what both wrote.
    @Test(arguments: StoreKind.allCases)
    func aBatchWithOneSessionTwiceKeepsItsLaterCheckpoint(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let session = StoredSession.make(random: 9)
            try await store.create(session)
            let first = SessionSummary.make(frames: 100, reps: 2, series: .make(count: 50), motion: .make(count: 20))
            let second = SessionSummary.make(frames: 130, reps: 3, series: .make(count: 60), motion: .make(count: 30))
            let refused = try await store.checkpoint([
                SessionCheckpoint(id: session.id, tenant: session.tenant, summary: first, engineState: [1, 2]),
                SessionCheckpoint(id: session.id, tenant: session.tenant, summary: second, engineState: [3, 4]),
            ])
            #expect(refused.isEmpty)
            #expect(try await store.session(id: session.id, tenant: session.tenant)?.summary == second)
            #expect(try await store.engineState(id: session.id, tenant: session.tenant)?.state == [3, 4])
            let third = SessionSummary.make(frames: 160, reps: 4, series: .make(count: 70), motion: .make(count: 40))
            _ = try await store.checkpoint([SessionCheckpoint(id: session.id, tenant: session.tenant, summary: third)])
            #expect(try await store.session(id: session.id, tenant: session.tenant)?.summary == third)
            #expect(
                try await store.engineState(id: session.id, tenant: session.tenant)?.state == [3, 4],
                "a checkpoint without engine state keeps the last one")
        }
    }

    /// A batch of new sessions (a burst of starts) stores each one as creating it alone would: row, reps, series,
    /// motion series, resumption, holder; and each one's next checkpoint appends to what the batch wrote.
    @Test(arguments: StoreKind.allCases)
    func createsABatchAsOneByOne(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            #expect(try await store.create([StoredSession]()).isEmpty)
            var resumable = StoredSession.make(random: 1)
            resumable.resumption = ResumePointTests.resumption
            let bare = StoredSession.make(
                random: 2, tenant: "clinic-2", subject: nil,
                summary: .make(reps: 0, baseline: nil, series: .make(count: 0), motion: MotionSeries()))
            let alternating = StoredSession.make(
                random: 3, summary: .make(reps: 6, alternating: true, series: .make(count: 700)))
            let finished = StoredSession.make(random: 4, status: .finished, endedAt: 1_764_424_900_000)
            let batch = [resumable, bare, alternating, finished]
            #expect(try await store.create(batch).isEmpty)
            for session in batch {
                var stored = session
                stored.resumption = nil
                #expect(try await store.session(id: session.id, tenant: session.tenant) == stored)
            }
            #expect(
                try await store.resumePoint(id: resumable.id, tenant: resumable.tenant)?.resumption
                    == ResumePointTests.resumption)
            #expect(try await store.resumePoint(id: alternating.id, tenant: alternating.tenant)?.resumption == nil)
            let live = try await store.liveSessions()
            #expect(Set(live.map(\.id)) == [resumable.id, bare.id, alternating.id])
            #expect(live.allSatisfy { $0.holder == "test-node" })
            #expect(live.first { $0.id == resumable.id }?.tokenDigest == ResumePointTests.resumption.tokenDigest)
            #expect(
                try await store.connected(batch.map(\.id), tenant: "clinic-1")
                    == [resumable.id: true, alternating.id: true])

            var later = alternating.summary
            for step in 700..<760 { later.series.record(Double(step % 90), at: Double(step) * 0.1) }
            later.reps.append(Rep(index: 7, peak: 140, trough: 10, start: 80, end: 82, side: .left))
            let refused = try await store.checkpoint([
                SessionCheckpoint(id: alternating.id, tenant: alternating.tenant, summary: later)
            ])
            #expect(refused.isEmpty)
            #expect(try await store.session(id: alternating.id, tenant: alternating.tenant)?.summary == later)
        }
    }

    /// A taken id refuses that session of a batch alone, whether a stored session or an earlier one of the batch has
    /// it: the others are stored, and the session that had the id is left as it was.
    @Test(arguments: StoreKind.allCases)
    func aBatchOfNewSessionsRefusesOnlyTakenIDs(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, database in
            let stored = StoredSession.make(random: 1)
            try await store.create(stored)
            let impostor = StoredSession.make(random: 1, tenant: "clinic-2", summary: .make(frames: 5, reps: 7))
            let first = StoredSession.make(random: 2, summary: .make(reps: 2))
            var twin = first
            twin.summary = .make(frames: 6, reps: 4)
            let last = StoredSession.make(random: 3, summary: .make(reps: 5))
            let refused = try await store.create([first, impostor, twin, last])
            #expect(refused == [stored.id: .alreadyExists, first.id: .alreadyExists])
            for session in [stored, first, last] {
                #expect(try await store.session(id: session.id, tenant: session.tenant) == session)
            }
            #expect(try await store.session(id: impostor.id, tenant: impostor.tenant) == nil)
            let raw = try database.raw()
            #expect(try raw.integer("SELECT count(*) FROM sessions") == 3)
            #expect(try raw.integer("SELECT count(*) FROM reps") == 3 + 2 + 5)

            var more = first.summary
            more.reps = SessionSummary.make(reps: 3).reps
            more.frames += 90
            #expect(
                try await store.checkpoint([SessionCheckpoint(id: first.id, tenant: first.tenant, summary: more)])
                    .isEmpty)
            #expect(try await store.session(id: first.id, tenant: first.tenant)?.summary == more)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func neverOverwritesAnEndedSession(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let session = StoredSession.make()
            try await store.create(session)
            let final = SessionSummary.make(frames: 9)
            try await store.finish(
                id: session.id, tenant: session.tenant, summary: final, status: .finished, endedAt: 5)
            await #expect(throws: SessionStoreError.notLive(.finished)) {
                try await store.checkpoint(id: session.id, tenant: session.tenant, summary: .make(frames: 1))
            }
            await #expect(throws: SessionStoreError.notLive(.finished)) {
                try await store.finish(
                    id: session.id, tenant: session.tenant, summary: .make(frames: 1), status: .abandoned, endedAt: 6)
            }
            let read = try #require(try await store.session(id: session.id, tenant: session.tenant))
            #expect(read.summary == final)
            #expect(read.endedAt == 5)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func refusesToFinishAsLive(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let session = StoredSession.make()
            try await store.create(session)
            await #expect(throws: SessionStoreError.invalidEndStatus(.live)) {
                try await store.finish(
                    id: session.id, tenant: session.tenant, summary: .make(), status: .live, endedAt: 1)
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func refusesADuplicateID(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, database in
            let session = StoredSession.make()
            try await store.create(session)
            await #expect(throws: SessionStoreError.alreadyExists) { try await store.create(session) }
            var other = session
            other.tenant = "clinic-2"
            await #expect(throws: SessionStoreError.alreadyExists) { try await store.create(other) }
            // The failed transactions left nothing behind.
            let raw = try database.raw()
            #expect(try raw.integer("SELECT count(*) FROM sessions") == 1)
            #expect(try raw.integer("SELECT count(*) FROM reps") == session.summary.reps.count)
            #expect(try await store.session(id: session.id, tenant: session.tenant) == session)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func treatsAnotherTenantsSessionAsUnknown(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let session = StoredSession.make(tenant: "clinic-1")
            try await store.create(session)
            let unknown = SessionID(time: 1, random: 1)
            for (id, tenant) in [(session.id, "clinic-2"), (unknown, "clinic-1")] {
                #expect(try await store.session(id: id, tenant: tenant) == nil)
                #expect(try await store.series(id: id, tenant: tenant) == nil)
                await #expect(throws: SessionStoreError.notFound) {
                    try await store.checkpoint(id: id, tenant: tenant, summary: .make())
                }
                await #expect(throws: SessionStoreError.notFound) {
                    try await store.finish(id: id, tenant: tenant, summary: .make(), status: .finished, endedAt: 1)
                }
                #expect(try await store.delete(id: id, tenant: tenant) == false)
            }
            #expect(try await store.session(id: session.id, tenant: "clinic-1") == session)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func deleteRemovesEverything(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, database in
            let doomed = StoredSession.make(random: 1)
            let kept = StoredSession.make(random: 2)
            try await store.create(doomed)
            try await store.create(kept)
            let raw = try database.raw()
            let reps = "SELECT count(*) FROM reps WHERE session_id = ?1"
            let series = "SELECT count(*) FROM series WHERE session_id = ?1"
            #expect(try raw.integer(reps, doomed.id.description) == 3)
            #expect(try raw.integer(series, doomed.id.description) == 1)

            // Live, it is refused, whichever node runs it; ended, it goes.
            await #expect(throws: SessionStoreError.stillLive) {
                try await store.delete(id: doomed.id, tenant: doomed.tenant)
            }
            #expect(try raw.integer("SELECT count(*) FROM sessions WHERE id = ?1", doomed.id.description) == 1)
            try await store.finish(
                id: doomed.id, tenant: doomed.tenant, summary: doomed.summary, status: .abandoned, endedAt: 2)
            #expect(try await store.delete(id: doomed.id, tenant: doomed.tenant))
            #expect(try raw.integer("SELECT count(*) FROM sessions WHERE id = ?1", doomed.id.description) == 0)
            #expect(try raw.integer(reps, doomed.id.description) == 0)
            #expect(try raw.integer(series, doomed.id.description) == 0)
            #expect(try await store.session(id: doomed.id, tenant: doomed.tenant) == nil)
            #expect(try await store.series(id: doomed.id, tenant: doomed.tenant) == nil)
            #expect(try await store.delete(id: doomed.id, tenant: doomed.tenant) == false)

            #expect(try raw.integer(reps, kept.id.description) == 3)
            #expect(try raw.integer(series, kept.id.description) == 1)
            #expect(try await store.session(id: kept.id, tenant: kept.tenant) == kept)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func abandonsOnlyLiveSessions(_ kind: StoreKind) async throws {
        let clock = ManualClock(10_000)
        try await withStore(kind, clock: clock) { store, _ in
            let live = StoredSession.make(random: 1, status: .live)
            let finished = StoredSession.make(random: 2, status: .finished, endedAt: 7)
            let abandoned = StoredSession.make(random: 3, status: .abandoned, endedAt: 8)
            for session in [live, finished, abandoned] { try await store.create(session) }
            clock.advance(by: 5_000)
            try await store.checkpoint(id: live.id, tenant: live.tenant, summary: .make(frames: 42))
            clock.advance(by: 60_000)

            #expect(try await store.abandonLiveSessions() == 1)
            let read = try #require(try await store.session(id: live.id, tenant: live.tenant))
            #expect(read.status == .abandoned)
            #expect(read.endedAt == 15_000)  // its last checkpoint
            #expect(read.summary == .make(frames: 42))
            #expect(try await store.session(id: finished.id, tenant: finished.tenant) == finished)
            #expect(try await store.session(id: abandoned.id, tenant: abandoned.tenant) == abandoned)
            #expect(try await store.abandonLiveSessions() == 0)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func abandonsOnlySessionsSilentSinceTheCutoff(_ kind: StoreKind) async throws {
        let clock = ManualClock(10_000)
        try await withStore(kind, clock: clock) { store, _ in
            let stale = StoredSession.make(random: 1, tenant: "a")
            let fresh = StoredSession.make(random: 2, tenant: "b")
            try await store.create(stale)
            clock.advance(by: 20_000)
            try await store.create(fresh)
            #expect(try await store.abandonLiveSessions(updatedBefore: 20_000) == 1)
            #expect(try await store.session(id: stale.id, tenant: "a")?.status == .abandoned)
            #expect(try await store.session(id: fresh.id, tenant: "b")?.status == .live)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func servesManyConcurrentWriters(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            try await withThrowingTaskGroup(of: Void.self) { group in
                for task in 0..<100 {
                    group.addTask {
                        let session = StoredSession.make(
                            startedAt: 1_764_424_800_000 + Int64(task), random: UInt128(task), subject: "s\(task % 10)",
                            summary: SessionSummary(exercise: "squat"))
                        try await store.create(session)
                        for write in 1..<10 {
                            try await store.checkpoint(
                                id: session.id, tenant: session.tenant,
                                summary: .make(exercise: "squat", frames: write, reps: write % 4))
                        }
                    }
                }
                try await group.waitForAll()
            }
            let page = try await store.list(SessionQuery(tenant: "clinic-1", limit: 500))
            #expect(page.sessions.count == 100)
            #expect(page.sessions.allSatisfy { $0.summary.frames == 9 && $0.summary.reps.count == 1 })
        }
    }

    @Test(arguments: StoreKind.allCases)
    func runsEveryCallOnItsOwnThread(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            #expect(await store.openedOnStoreThread)
            #expect(await store.isolatedCallRunsOnStoreThread())
            #expect(!store.isOnStoreThread())
        }
    }

    @Test(arguments: StoreKind.allCases)
    func failsEveryCallAfterClose(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let session = StoredSession.make()
            try await store.create(session)
            await store.close()
            await store.close()
            await #expect(throws: SessionStoreError.closed) { try await store.create(.make(random: 9)) }
            await #expect(throws: SessionStoreError.closed) {
                try await store.session(id: session.id, tenant: session.tenant)
            }
            await #expect(throws: SessionStoreError.closed) { try await store.list(SessionQuery(tenant: "clinic-1")) }
            await #expect(throws: SessionStoreError.closed) { try await store.abandonLiveSessions() }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func worksThroughTheProtocol(_ kind: StoreKind) async throws {
        try await withStore(kind) { concrete, _ in
            let store: any SessionStore = concrete
            let session = StoredSession.make()
            try await store.create(session)
            #expect(try await store.list(SessionQuery(tenant: session.tenant)).sessions.map(\.id) == [session.id])
            #expect(try await store.abandonLiveSessions() == 1)
        }
    }
}
