import MotionCore
import Synchronization
import Testing

@testable import SessionStore

@Suite struct ListingTests {
    private static let base: Int64 = 1_764_424_800_000

    /// 24 sessions of tenant `clinic-1`: subjects a/b/c, exercises squat/elbowFlexion, statuses in turn, a minute
    /// apart; plus one of another tenant.
    private func fill(_ store: any SessionStore) async throws -> [StoredSession] {
        var sessions: [StoredSession] = []
        for i in 0..<24 {
            let session = StoredSession.make(
                startedAt: Self.base + Int64(i) * 60_000, random: UInt128(i), subject: ["a", "b", "c"][i % 3],
                status: SessionStatus.allCases[i % 3], endedAt: i % 3 == 0 ? nil : Self.base + Int64(i) * 60_000 + 1,
                summary: .make(exercise: i % 2 == 0 ? "squat" : "elbowFlexion", reps: i % 4))
            try await store.create(session)
            sessions.append(session)
        }
        try await store.create(.make(startedAt: Self.base, random: 99, tenant: "clinic-2", subject: "a"))
        return sessions
    }

    private func expected(_ sessions: [StoredSession], where keep: (StoredSession) -> Bool) -> [SessionID] {
        sessions.filter(keep).sorted { ($0.startedAt, $0.id) > ($1.startedAt, $1.id) }.map(\.id)
    }

    @Test(arguments: StoreKind.allCases)
    func listsNewestFirstWithRepsButNoSeries(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let sessions = try await fill(store)
            let page = try await store.list(SessionQuery(tenant: "clinic-1"))
            #expect(page.sessions.map(\.id) == expected(sessions) { _ in true })
            #expect(page.next == nil)
            for listed in page.sessions {
                let original = try #require(sessions.first { $0.id == listed.id })
                var withoutSeries = original
                withoutSeries.summary.series = ValueSeries()
                withoutSeries.summary.motion = MotionSeries()
                #expect(listed == withoutSeries)
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func filtersByEachFieldAlone(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let sessions = try await fill(store)
            func ids(_ query: SessionQuery) async throws -> [SessionID] {
                try await store.list(query).sessions.map(\.id)
            }
            #expect(
                try await ids(SessionQuery(tenant: "clinic-1", subject: "b"))
                    == expected(sessions) { $0.subject == "b" })
            #expect(
                try await ids(SessionQuery(tenant: "clinic-1", exercise: "squat"))
                    == expected(sessions) { $0.exercise == "squat" })
            for status in SessionStatus.allCases {
                #expect(
                    try await ids(SessionQuery(tenant: "clinic-1", status: status))
                        == expected(sessions) { $0.status == status })
            }
            let from = Self.base + 5 * 60_000
            let to = Self.base + 11 * 60_000
            #expect(
                try await ids(SessionQuery(tenant: "clinic-1", from: from))
                    == expected(sessions) { $0.startedAt >= from })
            #expect(try await ids(SessionQuery(tenant: "clinic-1", to: to)) == expected(sessions) { $0.startedAt < to })
            #expect(try await ids(SessionQuery(tenant: "clinic-1", subject: "nobody")).isEmpty)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func filtersBySubjectPrefix(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let subjects = ["ana-1", "ana-2", "anabel", "Ana-3", "bob", "año", "an%", "an_x"]
            var sessions: [StoredSession] = []
            for (i, subject) in subjects.enumerated() {
                let session = StoredSession.make(
                    startedAt: Self.base + Int64(i) * 60_000, random: UInt128(i), subject: subject)
                try await store.create(session)
                sessions.append(session)
            }
            try await store.create(.make(startedAt: Self.base, random: 99, subject: nil))
            try await store.create(.make(startedAt: Self.base, random: 98, tenant: "clinic-2", subject: "ana-9"))
            func ids(_ prefix: String) async throws -> [SessionID] {
                try await store.list(SessionQuery(tenant: "clinic-1", subjectPrefix: prefix)).sessions.map(\.id)
            }
            for prefix in ["ana", "ana-", "an", "A", "añ", "an%", "an_", "ana-1", "nobody"] {
                #expect(
                    try await ids(prefix) == expected(sessions) { $0.subject?.hasPrefix(prefix) ?? false },
                    "prefix \(prefix)")
            }
            let both = try await store.list(SessionQuery(tenant: "clinic-1", subject: "ana-2", subjectPrefix: "ana"))
            #expect(both.sessions.map(\.subject) == ["ana-2"])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func combinesFilters(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let sessions = try await fill(store)
            let from = Self.base + 2 * 60_000
            let to = Self.base + 20 * 60_000
            let query = SessionQuery(
                tenant: "clinic-1", subject: "a", exercise: "squat", status: .live, from: from, to: to)
            let ids = try await store.list(query).sessions.map(\.id)
            let want = expected(sessions) {
                $0.subject == "a" && $0.exercise == "squat" && $0.status == .live && $0.startedAt >= from
                    && $0.startedAt < to
            }
            #expect(!want.isEmpty)
            #expect(ids == want)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func pagesThroughFiltersWithCursors(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let sessions = try await fill(store)
            var query = SessionQuery(tenant: "clinic-1", exercise: "elbowFlexion", limit: 5)
            var ids: [SessionID] = []
            var pages = 0
            repeat {
                let page = try await store.list(query)
                #expect(page.sessions.count <= 5)
                ids += page.sessions.map(\.id)
                query.cursor = page.next
                pages += 1
            } while query.cursor != nil
            #expect(ids == expected(sessions) { $0.exercise == "elbowFlexion" })
            #expect(pages == 3)  // 12 sessions: 5 + 5 + 2
        }
    }

    @Test(arguments: StoreKind.allCases)
    func endsWithoutACursorWhenThePageIsExactlyFull(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            _ = try await fill(store)
            let first = try await store.list(SessionQuery(tenant: "clinic-1", limit: 12))
            #expect(first.next != nil)
            let second = try await store.list(SessionQuery(tenant: "clinic-1", limit: 12, cursor: first.next))
            #expect(second.sessions.count == 12)
            #expect(second.next == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func pagesStayCorrectWhileSessionsArrive(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            // 50 sessions, some sharing a start time so the id breaks ties.
            var originals: [StoredSession] = []
            for i in 0..<50 {
                let session = StoredSession.make(
                    startedAt: Self.base + Int64(i / 3) * 1_000, random: UInt128(1_000 + i), subject: "s\(i % 4)",
                    summary: .make(reps: 1, series: ValueSeries()))
                originals.append(session)
            }
            for session in originals.shuffled() { try await store.create(session) }
            let want = expected(originals) { _ in true }

            let inserted = Counter()
            var query = SessionQuery(tenant: "clinic-1", limit: 7)
            var seen: [SessionID] = []
            repeat {
                let page = try await store.list(query)
                seen += page.sessions.map(\.id)
                query.cursor = page.next
                // Newer sessions arrive between page fetches, from concurrent tasks.
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<3 {
                        let n = inserted.next()
                        guard n < 20 else { break }
                        group.addTask {
                            try await store.create(
                                .make(startedAt: Self.base + 10_000_000 + Int64(n), random: UInt128(n), subject: "new"))
                        }
                    }
                    try await group.waitForAll()
                }
            } while query.cursor != nil
            #expect(inserted.value >= 20)
            #expect(seen == want)  // each original exactly once, in order, none of the newer ones
            #expect(
                try await store.list(SessionQuery(tenant: "clinic-1", subject: "new", limit: 500)).sessions.count == 20)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func pagesStayCorrectWithConcurrentOlderAndNewerInserts(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            var originals: [StoredSession] = []
            for i in 0..<50 {
                let session = StoredSession.make(
                    startedAt: Self.base + Int64(i) * 1_000, random: UInt128(i), summary: .make(reps: 0))
                originals.append(session)
                try await store.create(session)
            }
            let want = expected(originals) { _ in true }
            async let writer: Void = {
                // Backdated (recorded) sessions land anywhere in the order; newer ones before the first page.
                for n in 0..<20 {
                    let startedAt = n % 2 == 0 ? Self.base + 5_000_000 + Int64(n) : Self.base + Int64(n) * 2_500 + 1
                    try await store.create(.make(startedAt: startedAt, random: UInt128(500 + n), subject: "new"))
                    await Task.yield()
                }
            }()
            var query = SessionQuery(tenant: "clinic-1", limit: 7)
            var seen: [SessionID] = []
            repeat {
                let page = try await store.list(query)
                seen += page.sessions.map(\.id)
                query.cursor = page.next
                await Task.yield()
            } while query.cursor != nil
            try await writer
            #expect(Set(seen).count == seen.count)  // nothing twice
            let originalIDs = Set(want)
            #expect(seen.filter { originalIDs.contains($0) } == want)  // every original once, in order
        }
    }

    @Test(
        arguments: StoreKind.allCases,
        [(0, 1), (-5, 1), (1, 1), (50, 50), (499, 499), (500, 500), (501, 500), (10_000, 500)])
    func clampsTheLimit(_ kind: StoreKind, limit: (requested: Int, served: Int)) async throws {
        let (requested, served) = limit
        try await withStore(kind) { store, _ in
            for i in 0..<501 {
                try await store.create(
                    .make(
                        startedAt: Self.base + Int64(i), random: UInt128(i),
                        summary: .make(reps: 0, series: ValueSeries())))
            }
            let page = try await store.list(SessionQuery(tenant: "clinic-1", limit: requested))
            #expect(page.sessions.count == served)
            #expect(page.next != nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func usesFiftyByDefault(_ kind: StoreKind) async throws {
        #expect(SessionQuery(tenant: "t").limit == 50)
        #expect(SessionQuery(tenant: "t").effectiveLimit == 50)
        try await withStore(kind) { store, _ in
            _ = try await fill(store)
            for i in 24..<60 {
                try await store.create(.make(startedAt: Self.base + Int64(i) * 60_000, random: UInt128(i)))
            }
            #expect(try await store.list(SessionQuery(tenant: "clinic-1")).sessions.count == 50)
        }
    }

    @Test(arguments: StoreKind.allCases, ["garbage", "", "AAAA", "'; DROP TABLE sessions; --"])
    func refusesInvalidCursors(_ kind: StoreKind, _ cursor: String) async throws {
        try await withStore(kind) { store, database in
            _ = try await fill(store)
            await #expect(throws: SessionStoreError.invalidCursor) {
                try await store.list(SessionQuery(tenant: "clinic-1", cursor: cursor))
            }
            #expect(try database.raw().integer("SELECT count(*) FROM sessions") == 25)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func refusesATamperedCursor(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            _ = try await fill(store)
            let next = try #require(try await store.list(SessionQuery(tenant: "clinic-1", limit: 3)).next)
            var bytes = Array(next.utf8)
            bytes[10] = bytes[10] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
            await #expect(throws: SessionStoreError.invalidCursor) {
                try await store.list(SessionQuery(tenant: "clinic-1", cursor: String(decoding: bytes, as: UTF8.self)))
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func listsOnlyTheTenantsOwnSessions(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            _ = try await fill(store)
            let other = try await store.list(SessionQuery(tenant: "clinic-2"))
            #expect(other.sessions.count == 1)
            #expect(other.sessions.allSatisfy { $0.tenant == "clinic-2" })
            #expect(try await store.list(SessionQuery(tenant: "clinic-3")).sessions.isEmpty)
            // A cursor from one tenant's listing does not reveal another's sessions.
            let cursor = try await store.list(SessionQuery(tenant: "clinic-1", limit: 1)).next
            let crossed = try await store.list(SessionQuery(tenant: "clinic-2", cursor: cursor))
            #expect(crossed.sessions.allSatisfy { $0.tenant == "clinic-2" })
        }
    }

    @Test(arguments: StoreKind.allCases)
    func countsEveryPageOfTheFilteredSessions(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let sessions = try await fill(store)
            func count(_ query: SessionQuery, where keep: (StoredSession) -> Bool) async throws {
                #expect(try await store.count(query) == sessions.filter(keep).count, "\(query)")
            }
            let from = Self.base + 5 * 60_000
            let to = Self.base + 20 * 60_000
            try await count(SessionQuery(tenant: "clinic-1")) { _ in true }
            try await count(SessionQuery(tenant: "clinic-1", subject: "b")) { $0.subject == "b" }
            try await count(SessionQuery(tenant: "clinic-1", subjectPrefix: "c")) { $0.subject == "c" }
            try await count(SessionQuery(tenant: "clinic-1", exercise: "squat")) { $0.exercise == "squat" }
            try await count(SessionQuery(tenant: "clinic-1", status: .abandoned)) { $0.status == .abandoned }
            try await count(SessionQuery(tenant: "clinic-1", from: from, to: to)) {
                $0.startedAt >= from && $0.startedAt < to
            }
            try await count(SessionQuery(tenant: "clinic-1", subject: "a", exercise: "squat", status: .live)) {
                $0.subject == "a" && $0.exercise == "squat" && $0.status == .live
            }
            try await count(SessionQuery(tenant: "clinic-1", subject: "nobody")) { _ in false }
            #expect(try await store.count(SessionQuery(tenant: "clinic-2")) == 1)
            #expect(try await store.count(SessionQuery(tenant: "clinic-3")) == 0)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func countsTheSameWhateverThePageAndItsLimit(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            _ = try await fill(store)
            let first = try await store.list(SessionQuery(tenant: "clinic-1", exercise: "squat", limit: 5))
            let later = SessionQuery(tenant: "clinic-1", exercise: "squat", limit: 5, cursor: first.next)
            #expect(try await store.count(later) == 12)
            // A cursor is not even read: a garbled one cannot make the count fail.
            #expect(try await store.count(SessionQuery(tenant: "clinic-1", limit: 1, cursor: "garbage")) == 24)
        }
    }
}

/// A counter shared by a test's tasks.
final class Counter: Sendable {
    private let count = Mutex(0)

    /// The value before incrementing.
    func next() -> Int {
        count.withLock { value in
            defer { value += 1 }
            return value
        }
    }

    var value: Int { count.withLock { $0 } }
}
