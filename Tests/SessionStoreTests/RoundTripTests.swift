import MotionCore
import Testing

@testable import SessionStore

@Suite struct RoundTripTests {
    @Test(arguments: StoreKind.allCases, [128.0, nil] as [Double?])
    func roundTripsAFullSession(_ kind: StoreKind, baseline: Double?) async throws {
        try await withStore(kind) { store, _ in
            let session = StoredSession.make(summary: .make(baseline: baseline))
            try await store.create(session)
            let read = try #require(try await store.session(id: session.id, tenant: session.tenant))
            #expect(read == session)
            #expect(read.summary.baseline == baseline)
            #expect(read.summary.series.values.contains(nil))
            #expect(read.summary.reps[1].faults == [.keepUpperArmStill, .keepHipsLevel])
            #expect(read.summary.reps.map(\.motion) == session.summary.reps.map(\.motion))
            #expect(read.summary.reps[0].motion?.smoothness == -1.4375)
            #expect(read.summary.reps[1].motion != nil && read.summary.reps[1].motion?.smoothness == nil)
            #expect(read.summary.reps[2].motion == nil)
            #expect(try await store.series(id: session.id, tenant: session.tenant) == session.summary.series)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func roundTripsAnEmptySession(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let session = StoredSession.make(
                subject: nil, summary: SessionSummary(exercise: "shoulderAbduction"))
            try await store.create(session)
            #expect(try await store.session(id: session.id, tenant: session.tenant) == session)
            #expect(try await store.series(id: session.id, tenant: session.tenant) == ValueSeries())
        }
    }

    @Test(arguments: StoreKind.allCases)
    func roundTripsAnAlternatingSessionWithSidesTalliesAndTimesToPeak(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let session = StoredSession.make(summary: .make(exercise: "marching", reps: 5, alternating: true))
            try await store.create(session)
            let read = try #require(try await store.session(id: session.id, tenant: session.tenant))
            #expect(read == session)
            #expect(read.summary.reps.map(\.side) == [.left, .right, .left, .right, .left])
            #expect(read.summary.reps.map(\.timeToPeak) == session.summary.reps.map(\.timeToPeak))
            #expect(read.summary.reps[2].timeToPeak == nil)
            #expect(read.summary.perSide[.left] == SideTally(repCount: 3, rejectedCount: 0, best: 132.2))
            #expect(read.summary.perSide[.right] == SideTally(repCount: 1, rejectedCount: 1, best: nil))
            #expect(
                try await store.list(SessionQuery(tenant: session.tenant)).sessions.map(\.summary.perSide) == [
                    session.summary.perSide
                ])
        }
    }

    @Test(
        arguments: StoreKind.allCases,
        [
            Prescription(),
            SessionSummary.prescribed,
            Prescription(target: 90, rest: 30, enter: 90, exit: 60, holdSeconds: 8, reps: nil, sets: 2),
            Prescription(target: -0.0, rest: 0.1, enter: -359.99999999999994, exit: .leastNonzeroMagnitude, reps: 1000),
            Prescription(target: 1.25, holdSeconds: 3600, reps: 1, sets: 100),
        ])
    func roundTripsEveryPrescriptionAndVersion(_ kind: StoreKind, _ prescription: Prescription) async throws {
        try await withStore(kind) { store, _ in
            var summary = SessionSummary.make()
            summary.prescription = prescription
            summary.exerciseVersion = Int(Int32.max) + 7
            let session = StoredSession.make(summary: summary)
            try await store.create(session)
            let read = try #require(try await store.session(id: session.id, tenant: session.tenant))
            #expect(read.summary.prescription == prescription)
            #expect(read.summary.exerciseVersion == summary.exerciseVersion)
            #expect(read == session)
        }
    }

    /// SQLite's blob literals in PostgreSQL's words: `x'00'` is `'\x00'::bytea`, `zeroblob(15)` fifteen zero bytes.
    static func postgresBlobs(_ sql: String) -> String {
        sql.replacing(/x'([0-9A-F]*)'/) { #"'\x"# + $0.output.1 + "'::bytea" }
            .replacing(/zeroblob\((\d+)\)/) { "decode(repeat('00', \($0.output.1)), 'hex')" }
    }

    @Test(
        arguments: StoreKind.allCases,
        [
            "UPDATE sessions SET per_side = 'middle=1:0:'", "UPDATE sessions SET per_side = 'left=1:0'",
            "UPDATE sessions SET per_side = 'left=1:0:x'", "UPDATE sessions SET per_side = 'left=1:0:,left=2:0:'",
            "UPDATE sessions SET per_side = 'left=one:0:'", "UPDATE sessions SET per_side = 'left'",
        ])
    func reportsDamagedTallies(_ kind: StoreKind, damage: String) async throws {
        try await withStore(kind) { store, database in
            let session = StoredSession.make(summary: .make(alternating: true))
            try await store.create(session)
            try database.raw().execute(damage)
            await #expect(throws: SessionStoreError.corruptRecord(id: session.id.description)) {
                try await store.session(id: session.id, tenant: session.tenant)
            }
            await #expect(throws: SessionStoreError.corruptRecord(id: session.id.description)) {
                try await store.list(SessionQuery(tenant: session.tenant))
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func reportsARepWithAnUnknownSide(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, database in
            let session = StoredSession.make(summary: .make(alternating: true))
            try await store.create(session)
            try database.raw().execute(#"UPDATE reps SET side = 'middle' WHERE "position" = 1"#)
            await #expect(throws: SessionStoreError.corruptRecord(id: session.id.description)) {
                try await store.session(id: session.id, tenant: session.tenant)
            }
            await #expect(throws: SessionStoreError.corruptRecord(id: session.id.description)) {
                try await store.list(SessionQuery(tenant: session.tenant))
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func roundTripsAHalvedSeriesThatGoesOnRecording(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            // Capacity 16 over 100 samples: the interval has doubled several times.
            var series = ValueSeries.make(count: 100, capacity: 16)
            #expect(series.interval > 0.1)
            let session = StoredSession.make(summary: .make(series: series))
            try await store.create(session)
            var read = try #require(try await store.series(id: session.id, tenant: session.tenant))
            #expect(read == series)
            for i in 100..<140 {
                series.record(Double(i), at: 3.0 + Double(i) * 0.1)
                read.record(Double(i), at: 3.0 + Double(i) * 0.1)
            }
            #expect(read == series)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func roundTripsAFinishedSessionCreatedAtOnce(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let session = StoredSession.make(status: .finished, endedAt: 1_764_424_893_400)
            try await store.create(session)
            #expect(try await store.session(id: session.id, tenant: session.tenant) == session)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func keepsExtremeNumbers(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            var summary = SessionSummary.make(reps: 1)
            summary.best = .greatestFiniteMagnitude
            summary.baseline = -.leastNonzeroMagnitude
            summary.frames = .max
            summary.firstTimestamp = -1e300
            summary.lastTimestamp = .infinity
            let session = StoredSession.make(startedAt: 0, summary: summary)
            try await store.create(session)
            #expect(try await store.session(id: session.id, tenant: session.tenant) == session)
        }
    }

    @Test(
        arguments: StoreKind.allCases,
        [
            "UPDATE series_chunks SET samples = x'00'", "UPDATE series_chunks SET samples = zeroblob(15)",
            "UPDATE series_chunks SET samples = x'000000000000F87F0000000000000000'",
            "UPDATE series_chunks SET samples = x'0000000000000040000000000000000000000000000000000000000000000000'",
            // Chunks that overlap; a chunk after a gap whose times go back.
            "INSERT INTO series_chunks SELECT session_id, 39, samples FROM series_chunks",
            "INSERT INTO series_chunks SELECT session_id, 41, samples FROM series_chunks",
        ])
    func reportsADamagedSeries(_ kind: StoreKind, damage: String) async throws {
        try await withStore(kind) { store, database in
            let session = StoredSession.make()
            try await store.create(session)
            try database.raw().execute(database.dialect(sqlite: damage, postgres: Self.postgresBlobs(damage)))
            await #expect(throws: SessionStoreError.corruptRecord(id: session.id.description)) {
                try await store.series(id: session.id, tenant: session.tenant)
            }
            await #expect(throws: SessionStoreError.corruptRecord(id: session.id.description)) {
                try await store.session(id: session.id, tenant: session.tenant)
            }
            #expect(try await store.list(SessionQuery(tenant: session.tenant)).sessions.count == 1)
        }
    }

    @Test(arguments: StoreKind.allCases)
    func reportsADamagedRow(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, database in
            let session = StoredSession.make()
            try await store.create(session)
            try database.raw().execute("UPDATE sessions SET fault_counts = 'keepHipsLevel=many'")
            await #expect(throws: SessionStoreError.corruptRecord(id: session.id.description)) {
                try await store.session(id: session.id, tenant: session.tenant)
            }
            await #expect(throws: SessionStoreError.corruptRecord(id: session.id.description)) {
                try await store.list(SessionQuery(tenant: session.tenant))
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func skipsFaultNamesItDoesNotKnow(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, database in
            let session = StoredSession.make()
            try await store.create(session)
            let raw = try database.raw()
            try raw.execute("UPDATE sessions SET fault_counts = 'keepHipsLevel=1,retiredFault=4'")
            try raw.execute("UPDATE reps SET faults = 'retiredFault,keepThighStill'")
            let read = try #require(try await store.session(id: session.id, tenant: session.tenant))
            #expect(read.summary.faultCounts == [.keepHipsLevel: 1])
            #expect(read.summary.reps.allSatisfy { $0.faults == [.keepThighStill] })
        }
    }

    static let hostileStrings: [String] = [
        "'; DROP TABLE sessions; --", "Robert'); DROP TABLE reps; --", "\"double\" 'single' `back`", "a\u{0}b\u{0}",
        "\u{0}", "\u{FFFE}x\u{FFFE}", "🏋️‍♀️ émoji ñ 中文 \u{202E}", "", " ", "%_*?\\", String(repeating: "x", count: 10_240),
        String(repeating: "💥'\"\u{0}", count: 1_000),
    ]

    @Test(arguments: StoreKind.allCases, hostileStrings)
    func roundTripsHostileTextVerbatim(_ kind: StoreKind, _ text: String) async throws {
        try await withStore(kind) { store, database in
            let session = StoredSession.make(
                tenant: "tenant " + text, subject: text, summary: .make(exercise: text))
            let bystander = StoredSession.make(startedAt: 1, random: 2, tenant: "tenant " + text, subject: "other")
            try await store.create(session)
            try await store.create(bystander)
            let read = try #require(try await store.session(id: session.id, tenant: session.tenant))
            #expect(read.subject == text)
            #expect(read.exercise == text)
            #expect(read.tenant == session.tenant)
            #expect(read == session)
            let page = try await store.list(SessionQuery(tenant: session.tenant, subject: text, exercise: text))
            #expect(page.sessions.map(\.id) == [session.id])
            #expect(try await store.list(SessionQuery(tenant: session.tenant)).sessions.count == 2)
            let raw = try database.raw()
            #expect(try raw.integer("SELECT count(*) FROM sessions") == 2)
            #expect(try raw.integer("SELECT count(*) FROM reps") == 6)
        }
    }
}
