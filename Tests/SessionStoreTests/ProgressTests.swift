import MotionCore
import Testing

@testable import SessionStore

@Suite struct ProgressTests {
    static let hour: Int64 = 3_600_000
    static let start: Int64 = 1_764_424_800_000

    /// A finished session of `subject` started `hours` after ``start``, with clean reps of `peaks` and one rejected
    /// rep of peak 500 (which the mean leaves out).
    static func session(
        _ subject: String?, hours: Int64, exercise: String = "squat", peaks: [Double] = [90, 100],
        tenant: String = "clinic-1", random: UInt128 = 1
    ) -> StoredSession {
        var reps = peaks.enumerated().map { index, peak in
            Rep(index: index + 1, peak: peak, trough: 5, start: Double(index * 3), end: Double(index * 3 + 2))
        }
        reps.append(
            Rep(index: reps.count + 1, peak: 500, trough: 5, start: 90, end: 92, faults: [.keepTrunkUpright]))
        let summary = SessionSummary(
            exercise: exercise, repCount: peaks.count, rejectedCount: 1, best: 500, reps: reps,
            faultCounts: [.keepTrunkUpright: 1])
        return StoredSession.make(
            startedAt: start + hours * hour, random: random, tenant: tenant, subject: subject, status: .finished,
            endedAt: start + hours * hour + 60_000, summary: summary)
    }

    @Test(arguments: StoreKind.allCases)
    func answersOneSubjectsSessionsOldestFirstWithTheCleanRepsMeanPeak(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let sessions = [
                Self.session("p-17", hours: 5, peaks: [80, 90]), Self.session("p-17", hours: 1, peaks: []),
                Self.session("p-17", hours: 3, exercise: "hipAbduction", peaks: [20, 25, 33]),
                Self.session("p-18", hours: 2), Self.session(nil, hours: 4),
                Self.session("p-17", hours: 6, tenant: "clinic-2"),
            ]
            for session in sessions { try await store.create(session) }
            let page = try await store.progress(ProgressQuery(tenant: "clinic-1", subject: "p-17"))
            #expect(page.next == nil)
            #expect(page.entries.map(\.id) == [sessions[1], sessions[2], sessions[0]].map(\.id.description))
            #expect(page.entries.map(\.meanPeak) == [nil, 26, 85])
            #expect(page.entries.map(\.exercise) == ["squat", "hipAbduction", "squat"])
            #expect(
                page.entries[2]
                    == ProgressEntry(
                        id: sessions[0].id.description, startedAt: Double(sessions[0].startedAt) / 1000,
                        exercise: "squat", status: .finished,
                        best: 500, repCount: 2, rejectedCount: 1, meanPeak: 85,
                        faultCounts: [.keepTrunkUpright: 1]))
            #expect(
                try await store.progress(ProgressQuery(tenant: "clinic-1", subject: "p-17", exercise: "squat"))
                    .entries.map(\.id) == [sessions[1], sessions[0]].map(\.id.description))
            #expect(
                try await store.progress(ProgressQuery(tenant: "clinic-2", subject: "p-17")).entries.map(\.id)
                    == [sessions[5].id.description])
            #expect(try await store.progress(ProgressQuery(tenant: "clinic-1", subject: "nobody")).entries == [])
            #expect(try await store.progress(ProgressQuery(tenant: "clinic-3", subject: "p-17")).entries == [])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func boundsTheWindowHalfOpenOnTheStartTime(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let sessions = (0..<6).map { Self.session("p", hours: Int64($0), random: UInt128($0 + 1)) }
            for session in sessions { try await store.create(session) }
            let window = ProgressQuery(
                tenant: "clinic-1", subject: "p", from: Self.start + Self.hour, to: Self.start + 4 * Self.hour)
            #expect(try await store.progress(window).entries.map(\.id) == sessions[1..<4].map(\.id.description))
            let empty = ProgressQuery(tenant: "clinic-1", subject: "p", from: Self.start + Self.hour, to: Self.start)
            #expect(try await store.progress(empty).entries == [])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func pagesBackwardsFromTheLatestSessionsWithACursor(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            // 23 sessions, two of them in the same millisecond (ordered by id).
            var sessions = (0..<22).map { Self.session("p", hours: Int64($0), random: UInt128($0 + 1)) }
            sessions.append(Self.session("p", hours: 7, random: 99))
            for session in sessions { try await store.create(session) }
            let ascending = sessions.sorted { ($0.startedAt, $0.id) < ($1.startedAt, $1.id) }.map(\.id.description)
            var query = ProgressQuery(tenant: "clinic-1", subject: "p", limit: 5)
            var pages: [[String]] = []
            while true {
                let page = try await store.progress(query)
                pages.append(page.entries.map(\.id))
                #expect(page.entries.map(\.startedAt) == page.entries.map(\.startedAt).sorted())
                guard let next = page.next else { break }
                query.cursor = next
            }
            #expect(pages.map(\.count) == [5, 5, 5, 5, 3])
            #expect(pages.reversed().flatMap { $0 } == ascending)
            #expect(pages[0] == Array(ascending.suffix(5)), "the first page is the latest sessions")
            #expect(try await store.progress(ProgressQuery(tenant: "clinic-1", subject: "p", limit: 23)).next == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func givesEachSessionTheTargetItWasPrescribed(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            var prescribed = Self.session("p-17", hours: 1)
            prescribed.summary.prescription = Prescription(target: 140, rest: 30, enter: 60, exit: 45, reps: 10)
            var other = Self.session("p-17", hours: 2, random: 2)
            other.summary.prescription = Prescription(target: 150.5)
            let unknown = Self.session("p-17", hours: 3, random: 3)
            for session in [prescribed, other, unknown] { try await store.create(session) }
            let page = try await store.progress(ProgressQuery(tenant: "clinic-1", subject: "p-17"))
            #expect(page.entries.map(\.target) == [140, 150.5, nil])
        }
    }

    @Test(arguments: [0, -5, 1_001, Int.max, Int.min])
    func clampsTheLimit(_ limit: Int) {
        let query = ProgressQuery(tenant: "t", subject: "s", limit: limit)
        #expect((1...ProgressQuery.maximumLimit).contains(query.effectiveLimit))
    }

    @Test(arguments: StoreKind.allCases)
    func readsAtMostTheLimitOfAMuchLongerHistory(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            for index in 0..<1_203 {
                try await store.create(Self.session("busy", hours: Int64(index), random: UInt128(index + 1)))
            }
            let page = try await store.progress(ProgressQuery(tenant: "clinic-1", subject: "busy"))
            #expect(page.entries.count == ProgressQuery.maximumLimit)
            #expect(page.entries.first?.startedAt == Double(Self.start + 203 * Self.hour) / 1000)
            let next = try #require(page.next)
            let rest = try await store.progress(ProgressQuery(tenant: "clinic-1", subject: "busy", cursor: next))
            #expect(rest.entries.count == 203)
            #expect(rest.next == nil)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func refusesACursorItDidNotIssue(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            for cursor in ["", "garbage", String(repeating: "A", count: 39), String(repeating: "é", count: 100)] {
                await #expect(throws: SessionStoreError.invalidCursor, "\(cursor)") {
                    try await store.progress(ProgressQuery(tenant: "t", subject: "s", cursor: cursor))
                }
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func followsALiveSessionsCheckpoints(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            var session = StoredSession.make(subject: "p", summary: SessionSummary(exercise: "squat"))
            try await store.create(session)
            let query = ProgressQuery(tenant: session.tenant, subject: "p")
            #expect(try await store.progress(query).entries.map(\.meanPeak) == [nil])
            #expect(try await store.progress(query).entries.map(\.status) == [.live])
            session.summary = .make(exercise: "squat", reps: 3)
            try await store.checkpoint(id: session.id, tenant: session.tenant, summary: session.summary)
            // Reps 1 and 3 are clean: (130.2 + 132.2) / 2.
            #expect(try await store.progress(query).entries.map(\.meanPeak) == [131.2])
            #expect(try await store.progress(query).entries.map(\.repCount) == [2])
            try await store.finish(
                id: session.id, tenant: session.tenant, summary: .make(exercise: "squat", reps: 1), status: .abandoned,
                endedAt: 1)
            let point = try #require(try await store.progress(query).entries.first)
            #expect(point.status == .abandoned)
            #expect(point.meanPeak == 130.2)
        }
    }

    @Test(arguments: [
        ProgressQuery(tenant: "t", subject: "s"), ProgressQuery(tenant: "t", subject: "s", exercise: "e"),
        ProgressQuery(tenant: "t", subject: "s", from: 1, to: 2),
        ProgressQuery(tenant: "t", subject: "s", exercise: "e", from: 1, to: 9, cursor: "c"),
        ProgressQuery(tenant: "t", subject: "s", cursor: "c"),
    ])
    func readsThroughAnIndexWithoutSorting(_ query: ProgressQuery) async throws {
        try await withSQLiteStore { _, path in
            let plan = try RawDatabase(path: path).strings(
                "EXPLAIN QUERY PLAN " + SQLiteSessionStore.progressSQL(for: query), column: 3
            ).joined(separator: "\n")
            let index = query.exercise == nil ? "sessions_by_subject " : "sessions_by_subject_exercise "
            #expect(plan.contains("USING INDEX " + index), "\(plan)")
            #expect(!plan.contains("TEMP B-TREE"), "\(plan)")
        }
    }
}
