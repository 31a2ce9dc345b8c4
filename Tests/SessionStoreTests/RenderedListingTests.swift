import MotionCore
import Testing

@testable import SessionStore

/// Listings of a store that keeps ended sessions' summaries rendered (``SummaryRendering``): which sessions come
/// rendered, which whole, and that both kinds page together as one listing.
@Suite struct RenderedListingTests {
    private static let base: Int64 = 1_764_424_800_000

    /// A rendering the test can recompute from a summary, whatever order its fault counts come in.
    private static func rendering(version: Int) -> SummaryRendering {
        SummaryRendering(version: version) { summary in
            let faults = summary.faultCounts.map { "\($0.key)=\($0.value)" }.sorted().joined(separator: ",")
            return Array("\(summary.exercise) \(summary.repCount) \(summary.reps) \(faults)".utf8)
        }
    }

    private static func withoutSeries(_ summary: SessionSummary) -> SessionSummary {
        var summary = summary
        summary.series = ValueSeries()
        summary.motion = MotionSeries()
        return summary
    }

    /// What a listing reads whole for `session`: it without series.
    private static func read(_ session: StoredSession) -> ListedSession {
        .read(
            StoredSession(
                id: session.id, tenant: session.tenant, subject: session.subject, status: session.status,
                startedAt: session.startedAt, endedAt: session.endedAt, summary: withoutSeries(session.summary)))
    }

    /// What a listing renders for an ended `session` at `version`.
    private static func rendered(_ session: StoredSession, version: Int = 3) -> ListedSession {
        .rendered(
            RenderedSession(
                id: session.id, tenant: session.tenant, subject: session.subject, status: session.status,
                startedAt: session.startedAt, endedAt: session.endedAt, exercise: session.exercise, side: session.side,
                summary: rendering(version: version).render(session.summary)))
    }

    @Test(arguments: StoreKind.allCases)
    func listsEndedSessionsRenderedAndTheOthersWhole(_ kind: StoreKind) async throws {
        try await withStore(kind) { _, database in
            let store = try await database.open(rendering: Self.rendering(version: 3))
            func session(_ i: Int, status: SessionStatus = .live, reps: Int = 2) -> StoredSession {
                StoredSession.make(
                    startedAt: Self.base + Int64(i) * 60_000, random: UInt128(i + 1), subject: "s-\(i % 2)",
                    status: status, endedAt: status == .live ? nil : Self.base + Int64(i) * 60_000 + 500,
                    summary: .make(side: i % 2 == 0 ? .left : nil, reps: reps))
            }
            // Left by a node that died: abandoned by the sweep, which keeps its last checkpoint's summary.
            var swept = session(5)
            try await store.create(swept)
            let sweptWritten = database.clock.now
            database.clock.advance(by: 60_000)
            let live = session(0)
            let recorded = session(1, status: .finished)
            var finished = session(2)
            var ended = session(3)
            var dropped = session(4)
            let alsoLive = session(6)
            for created in [live, recorded, finished, ended, dropped, alsoLive] { try await store.create(created) }
            // Ended by their final write, with more reps than their first summary.
            for index in [2, 3] {
                var final = index == 2 ? finished : ended
                final.summary = .make(reps: 5)
                final.status = index == 2 ? .finished : .abandoned
                final.endedAt = final.startedAt + 90_000
                try await store.finish(
                    id: final.id, tenant: final.tenant, summary: final.summary, status: final.status,
                    endedAt: final.endedAt ?? 0)
                if index == 2 { finished = final } else { ended = final }
            }
            // Abandoned without a final summary, one by id and one by the sweep: rendered from the last checkpoint.
            #expect(try await store.abandon(id: dropped.id, tenant: dropped.tenant))
            #expect(try await store.abandonLiveSessions(updatedBefore: sweptWritten + 1, except: []) == 1)
            dropped = try #require(try await store.session(id: dropped.id, tenant: dropped.tenant))
            swept = try #require(try await store.session(id: swept.id, tenant: swept.tenant))
            #expect([dropped.status, swept.status] == [.abandoned, .abandoned])

            let expected = [
                Self.read(alsoLive), Self.rendered(swept), Self.rendered(dropped), Self.rendered(ended),
                Self.rendered(finished), Self.rendered(recorded), Self.read(live),
            ]
            let page = try await store.list(SessionQuery(tenant: "clinic-1"))
            #expect(page.entries == expected)
            #expect(page.next == nil)
            #expect(page.sessions.map(\.id) == [alsoLive.id, live.id], "`sessions` holds those read whole")

            // Pages of two mix both kinds and continue one another.
            var paged: [ListedSession] = []
            var cursor: String?
            repeat {
                let page = try await store.list(SessionQuery(tenant: "clinic-1", limit: 2, cursor: cursor))
                paged += page.entries
                cursor = page.next
            } while cursor != nil
            #expect(paged == expected)
            // Filters apply to both.
            #expect(
                try await store.list(SessionQuery(tenant: "clinic-1", subject: "s-0")).entries
                    == [Self.read(alsoLive), Self.rendered(dropped), Self.rendered(finished), Self.read(live)])
            #expect(
                try await store.list(SessionQuery(tenant: "clinic-1", status: .abandoned)).entries
                    == [Self.rendered(swept), Self.rendered(dropped), Self.rendered(ended)])
            #expect(try await store.list(SessionQuery(tenant: "clinic-2")).entries.isEmpty)
            await store.close()
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aQueryThatReadsWholeGetsEverySessionWhole(_ kind: StoreKind) async throws {
        try await withStore(kind) { _, database in
            let store = try await database.open(rendering: Self.rendering(version: 3))
            func session(_ i: Int) -> StoredSession {
                let startedAt = Self.base + Int64(i) * 60_000
                let live = i == 4
                return StoredSession.make(
                    startedAt: startedAt, random: UInt128(i + 1), subject: "whole", status: live ? .live : .finished,
                    endedAt: live ? nil : startedAt + 500, summary: .make(reps: i + 1))
            }
            let sessions = (0..<5).map(session)
            for session in sessions { try await store.create(session) }
            let newestFirst = sessions.reversed().map(Self.read)
            #expect(
                try await store.list(SessionQuery(tenant: "clinic-1")).entries.filter { $0.isRendered }.count == 4,
                "the ended sessions are kept rendered")
            var query = SessionQuery(tenant: "clinic-1", subject: "whole")
            query.readsWhole = true
            #expect(try await store.list(query).entries == newestFirst, "each with its reps")
            // Paged, with the listing's cursor.
            var paged: [ListedSession] = []
            query.limit = 2
            repeat {
                let page = try await store.list(query)
                paged += page.entries
                query.cursor = page.next
            } while query.cursor != nil
            #expect(paged == newestFirst)
            await store.close()
        }
    }

    @Test(arguments: StoreKind.allCases)
    func aRenderingIsUsedOnlyAtItsVersion(_ kind: StoreKind) async throws {
        try await withStore(kind) { plain, database in
            let three = try await database.open(rendering: Self.rendering(version: 3))
            let kept = StoredSession.make(startedAt: Self.base, random: 1, status: .finished, endedAt: Self.base + 1)
            try await three.create(kept)
            await three.close()
            let unkept = StoredSession.make(
                startedAt: Self.base + 1, random: 2, status: .finished, endedAt: Self.base + 2)
            try await plain.create(unkept)
            let query = SessionQuery(tenant: "clinic-1")
            #expect(try await plain.list(query).entries == [Self.read(unkept), Self.read(kept)])
            let four = try await database.open(rendering: Self.rendering(version: 4))
            #expect(try await four.list(query).entries == [Self.read(unkept), Self.read(kept)])
            await four.close()
            let again = try await database.open(rendering: Self.rendering(version: 3))
            #expect(try await again.list(query).entries == [Self.read(unkept), Self.rendered(kept)])
            await again.close()
        }
    }

    @Test(arguments: StoreKind.allCases)
    func rendersTheSummariesOfSessionsStoredWithoutOne(_ kind: StoreKind) async throws {
        try await withStore(kind) { plain, database in
            var ended: [StoredSession] = []
            for i in 0..<5 {
                let session = StoredSession.make(
                    startedAt: Self.base + Int64(i), random: UInt128(i + 1), status: i == 4 ? .abandoned : .finished,
                    endedAt: Self.base + Int64(i) + 1, summary: .make(reps: i))
                try await plain.create(session)
                ended.append(session)
            }
            let live = StoredSession.make(startedAt: Self.base + 10, random: 10)
            try await plain.create(live)
            let swept = StoredSession.make(startedAt: Self.base + 11, random: 11)
            try await plain.create(swept)
            #expect(try await plain.abandon(id: swept.id, tenant: swept.tenant))
            ended.append(try #require(try await plain.session(id: swept.id, tenant: swept.tenant)))
            #expect(try await plain.renderSummaries(after: nil, limit: 10) == (0, nil), "no rendering, none rendered")

            func pass(_ store: any SessionStore, limit: Int) async throws -> [Int] {
                var counts: [Int] = []
                var after: SessionID?
                repeat {
                    let batch = try await store.renderSummaries(after: after, limit: limit)
                    counts.append(batch.rendered)
                    after = batch.next
                } while after != nil
                return counts
            }
            let three = try await database.open(rendering: Self.rendering(version: 3))
            #expect(try await pass(three, limit: 2) == [2, 2, 2, 0], "six ended sessions, two at a time")
            let newestFirst = ([live] + ended).sorted { ($0.startedAt, $0.id) > ($1.startedAt, $1.id) }
            let query = SessionQuery(tenant: "clinic-1")
            #expect(
                try await three.list(query).entries
                    == newestFirst.map { $0.status == .live ? Self.read($0) : Self.rendered($0) })
            #expect(try await pass(three, limit: 100) == [0], "a second pass finds none left")
            await three.close()
            // Another version renders them all again.
            let four = try await database.open(rendering: Self.rendering(version: 4))
            #expect(try await pass(four, limit: 100) == [6])
            #expect(
                try await four.list(query).entries
                    == newestFirst.map { $0.status == .live ? Self.read($0) : Self.rendered($0, version: 4) })
            await four.close()
        }
    }
}

extension ListedSession {
    fileprivate var isRendered: Bool {
        guard case .rendered = self else { return false }
        return true
    }
}
