import Foundation
import MotionCore
import Testing

@testable import SessionStore

/// Programmes in both stores (docs/protocol.md §5.3): versions numbered by the store, every version kept, ends that
/// leave them readable, tenants apart, listings by subject and state, the quota checked in the saving transaction.
@Suite struct ProgrammeStoreTests {
    static func draft(_ id: String, tenant: String = "clinic-1", subject: String = "patient-17") -> ProgrammeDraft {
        ProgrammeDraft(id: id, tenant: tenant, subject: subject, startsOn: "2026-12-07", endsOn: "2027-01-03")
    }

    @discardableResult
    static func save(
        _ store: any SessionStore, _ draft: ProgrammeDraft, as write: ExerciseWrite = .create,
        maxVersions: Int = 10_000
    ) async throws -> StoredProgramme {
        try await store.saveProgramme(draft, as: write, maxVersions: maxVersions) { version in
            #"{"id":"\#(draft.id)","version":\#(version),"note":"ángulo ✓"}"#
        }
    }

    /// Ids as the server makes them: sortable by creation time.
    static func id(_ n: UInt64) -> String { SessionID(time: 1_764_424_800_000 + n, random: 7).description }

    @Test(arguments: StoreKind.allCases)
    func numbersVersionsAndKeepsEveryOne(_ kind: StoreKind) async throws {
        let clock = ManualClock(1_764_424_800_000)
        try await withStore(kind, clock: clock) { store, _ in
            let id = Self.id(1)
            let first = try await Self.save(store, Self.draft(id))
            #expect(
                first
                    == StoredProgramme(
                        id: id, tenant: "clinic-1", version: 1, subject: "patient-17", startsOn: "2026-12-07",
                        endsOn: "2027-01-03", definition: #"{"id":"\#(id)","version":1,"note":"ángulo ✓"}"#,
                        createdAt: 1_764_424_800_000))
            clock.advance(by: 1000)
            var open = Self.draft(id)
            open.endsOn = nil
            let second = try await Self.save(store, open, as: .update)
            #expect(second.version == 2)
            #expect(second.endsOn == nil)
            #expect(try await store.programme(id: id, tenant: "clinic-1", version: nil) == second)
            #expect(try await store.programme(id: id, tenant: "clinic-1", version: 1) == first)
            #expect(try await store.programme(id: id, tenant: "clinic-1", version: 3) == nil)
            #expect(try await store.programme(id: id, tenant: "clinic-2", version: nil) == nil, "tenants apart")
            await #expect(throws: SessionStoreError.alreadyExists) { try await Self.save(store, Self.draft(id)) }
            await #expect(throws: SessionStoreError.notFound) {
                try await Self.save(store, Self.draft(Self.id(2)), as: .update)
            }
            await #expect(throws: SessionStoreError.notFound) {
                try await Self.save(store, Self.draft(id, tenant: "clinic-2"), as: .update)
            }

            clock.advance(by: 1000)
            #expect(try await store.endProgramme(id: id, tenant: "clinic-2") == false)
            #expect(try await store.endProgramme(id: id, tenant: "clinic-1"))
            #expect(try await store.endProgramme(id: id, tenant: "clinic-1") == false, "ends once")
            let ended = try #require(try await store.programme(id: id, tenant: "clinic-1", version: nil))
            #expect(ended.endedAt == 1_764_424_802_000)
            #expect(ended.version == 2)
            #expect(try await store.programme(id: id, tenant: "clinic-1", version: 1)?.endedAt == 1_764_424_802_000)
            await #expect(throws: SessionStoreError.ended) { try await Self.save(store, open, as: .update) }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func listsLatestVersionsNewestFirstBySubjectAndState(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            for n in 1...5 {
                try await Self.save(store, Self.draft(Self.id(UInt64(n)), subject: n % 2 == 0 ? "even" : "odd"))
            }
            try await Self.save(store, Self.draft(Self.id(3), subject: "odd"), as: .update)
            try await Self.save(store, Self.draft(Self.id(9), tenant: "clinic-2", subject: "odd"))
            _ = try await store.endProgramme(id: Self.id(5), tenant: "clinic-1")

            let all = try await store.programmes(ProgrammeQuery(tenant: "clinic-1"))
            #expect(all.programmes.map(\.id) == (1...5).reversed().map { Self.id(UInt64($0)) })
            #expect(all.programmes.first { $0.id == Self.id(3) }?.version == 2, "each at its latest version")
            #expect(all.next == nil)
            let odd = try await store.programmes(ProgrammeQuery(tenant: "clinic-1", subject: "odd"))
            #expect(odd.programmes.map(\.id) == [5, 3, 1].map { Self.id($0) })
            let running = try await store.programmes(ProgrammeQuery(tenant: "clinic-1", subject: "odd", active: true))
            #expect(running.programmes.map(\.id) == [3, 1].map { Self.id($0) })
            let ended = try await store.programmes(ProgrammeQuery(tenant: "clinic-1", active: false))
            #expect(ended.programmes.map(\.id) == [Self.id(5)])

            var pages: [String] = []
            var query = ProgrammeQuery(tenant: "clinic-1", limit: 2)
            repeat {
                let page = try await store.programmes(query)
                #expect(page.programmes.count <= 2)
                pages += page.programmes.map(\.id)
                query.cursor = page.next
            } while query.cursor != nil
            #expect(pages == all.programmes.map(\.id), "pages cover the list once, in order")

            await #expect(throws: SessionStoreError.invalidCursor) {
                try await store.programmes(ProgrammeQuery(tenant: "clinic-1", cursor: "garbage"))
            }
        }
    }

    @Test(arguments: StoreKind.allCases)
    func refusesVersionsPastTheTenantsQuota(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            try await Self.save(store, Self.draft(Self.id(1)), maxVersions: 2)
            try await Self.save(store, Self.draft(Self.id(1)), as: .update, maxVersions: 2)
            await #expect(throws: SessionStoreError.tooManyVersions(limit: 2)) {
                try await Self.save(store, Self.draft(Self.id(2)), maxVersions: 2)
            }
            await #expect(throws: SessionStoreError.tooManyVersions(limit: 2)) {
                try await Self.save(store, Self.draft(Self.id(1)), as: .update, maxVersions: 2)
            }
            try await Self.save(store, Self.draft(Self.id(2), tenant: "clinic-2"), maxVersions: 2)
        }
    }
}

/// The programme item and demonstration flag kept with each session, in every read: whole, listed (read whole and
/// rendered), and in progress points with the goal of their prescription.
@Suite struct SessionProgrammeLinkTests {
    static let link = ProgrammeLink(id: "01KBZ0000000000000000000AA", version: 3, item: "a1")

    @Test(arguments: StoreKind.allCases)
    func keepsTheLinkAndTheDemoFlagInEveryRead(_ kind: StoreKind) async throws {
        try await withStore(kind) { _, database in
            let store = try await database.open(rendering: SummaryRendering(version: 1) { _ in Array("{}".utf8) })
            var linked = StoredSession.make(random: 1)
            linked.programme = Self.link
            var demo = StoredSession.make(startedAt: 1_764_424_801_000, random: 2)
            demo.demo = true
            let plain = StoredSession.make(startedAt: 1_764_424_802_000, random: 3, status: .finished, endedAt: 1)
            #expect(try await store.create([linked, demo, plain]).isEmpty)
            try await store.finish(
                id: linked.id, tenant: "clinic-1", summary: linked.summary, status: .finished,
                endedAt: 1_764_424_900_000)

            let read = try #require(try await store.session(id: linked.id, tenant: "clinic-1"))
            #expect(read.programme == Self.link)
            #expect(read.demo == false)
            #expect(try await store.session(id: demo.id, tenant: "clinic-1")?.demo == true)
            #expect(try await store.session(id: demo.id, tenant: "clinic-1")?.programme == nil)

            let page = try await store.list(SessionQuery(tenant: "clinic-1"))
            var links: [SessionID: (ProgrammeLink?, Bool)] = [:]
            for entry in page.entries {
                switch entry {
                case .read(let session): links[session.id] = (session.programme, session.demo)
                case .rendered(let session): links[session.id] = (session.programme, session.demo)
                }
            }
            #expect(links[linked.id]?.0 == Self.link, "rendered: the link is in the row")
            #expect(links[demo.id]?.1 == true, "read whole while live")
            #expect(links[plain.id]?.0 == nil)
            #expect(page.entries.contains { if case .rendered = $0 { true } else { false } })

            let progress = try await store.progress(ProgressQuery(tenant: "clinic-1", subject: "patient-17"))
            let byID = Dictionary(uniqueKeysWithValues: progress.entries.map { ($0.id, $0) })
            let point = try #require(byID[linked.id.description])
            #expect(point.programme == Self.link)
            #expect(point.goal == Goal(sets: 3, setsDone: 0, repsPerSet: 10), "2 clean reps of 3 sets of 10")
            #expect(byID[demo.id.description] == nil, "progress leaves demonstrations out")
            var withDemo = ProgressQuery(tenant: "clinic-1", subject: "patient-17")
            withDemo.includesDemo = true
            let all = try await store.progress(withDemo).entries
            #expect(all.count == 3)
            #expect(all.first { $0.id == demo.id.description }?.demo == true, "unless asked for")
            await store.close()
        }
    }
}

/// Patient codes in both stores (docs/protocol.md §6.1): only a digest kept, listed by subject, revoked once, the
/// working codes of a subject bounded in the creating transaction.
@Suite struct AccessCodeStoreTests {
    static func code(
        _ n: UInt64, subject: String = "patient-17", tenant: String = "clinic-1", expiresAt: Int64 = 1_764_500_000_000
    ) -> StoredAccessCode {
        StoredAccessCode(
            id: ProgrammeStoreTests.id(n), tenant: tenant, subject: subject,
            digest: Array(repeating: UInt8(n), count: 32),
            createdAt: 1_764_424_800_000, expiresAt: expiresAt)
    }

    @Test(arguments: StoreKind.allCases)
    func storesListsAndRevokesCodes(_ kind: StoreKind) async throws {
        let clock = ManualClock(1_764_424_800_000)
        try await withStore(kind, clock: clock) { store, _ in
            try await store.createAccessCode(Self.code(1), maxPerSubject: 20)
            try await store.createAccessCode(Self.code(2, subject: "patient-99"), maxPerSubject: 20)
            try await store.createAccessCode(Self.code(3, tenant: "clinic-2"), maxPerSubject: 20)
            try await store.createAccessCode(Self.code(4, expiresAt: 1_764_424_700_000), maxPerSubject: 20)
            await #expect(throws: SessionStoreError.alreadyExists) {
                try await store.createAccessCode(Self.code(1), maxPerSubject: 20)
            }
            var sameDigest = Self.code(5)
            sameDigest.digest = Self.code(1).digest
            await #expect(throws: SessionStoreError.alreadyExists) {
                try await store.createAccessCode(sameDigest, maxPerSubject: 20)
            }
            let mine = try await store.accessCodes(tenant: "clinic-1", subject: "patient-17")
            #expect(mine == [Self.code(1), Self.code(4, expiresAt: 1_764_424_700_000)])
            #expect(try await store.accessCodes(tenant: "clinic-1", subject: nil).count == 3)
            #expect(
                try await store.accessCodes(tenant: "clinic-2", subject: "patient-17") == [
                    Self.code(3, tenant: "clinic-2")
                ])

            clock.advance(by: 1000)
            #expect(
                try await store.revokeAccessCode(id: Self.code(1).id, tenant: "clinic-2", subject: "patient-17") == nil)
            #expect(
                try await store.revokeAccessCode(id: Self.code(1).id, tenant: "clinic-1", subject: "patient-99") == nil)
            let revoked = try #require(
                try await store.revokeAccessCode(id: Self.code(1).id, tenant: "clinic-1", subject: "patient-17"))
            #expect(revoked.revokedAt == 1_764_424_801_000)
            #expect(revoked.digest == Self.code(1).digest)
            #expect(
                try await store.revokeAccessCode(id: Self.code(1).id, tenant: "clinic-1", subject: "patient-17") == nil)

            let everyone = try await store.accessCodes(tenant: nil, subject: nil)
            #expect(everyone.map(\.id) == [1, 2, 3].map { ProgrammeStoreTests.id($0) }, "expired ones left out")
            #expect(everyone.first?.revokedAt != nil, "revoked ones kept, so every node learns of them")
        }
    }

    @Test(arguments: StoreKind.allCases)
    func boundsTheWorkingCodesOfASubject(_ kind: StoreKind) async throws {
        try await withStore(kind, clock: ManualClock(1_764_424_800_000)) { store, _ in
            try await store.createAccessCode(Self.code(1), maxPerSubject: 2)
            try await store.createAccessCode(Self.code(2, expiresAt: 1_764_424_800_000), maxPerSubject: 2)
            try await store.createAccessCode(Self.code(3), maxPerSubject: 2)
            await #expect(throws: SessionStoreError.tooManyVersions(limit: 2)) {
                try await store.createAccessCode(Self.code(4), maxPerSubject: 2)
            }
            _ = try await store.revokeAccessCode(id: Self.code(1).id, tenant: "clinic-1", subject: "patient-17")
            try await store.createAccessCode(Self.code(4), maxPerSubject: 2)
            try await store.createAccessCode(Self.code(5, subject: "patient-99"), maxPerSubject: 2)
        }
    }

    /// Reps of 1 s each, 2 s apart in a run, runs 30 s apart: 7 then 3 are ten clean reps but one set of 5.
    static func sevenThenThree() -> SessionSummary {
        var summary = SessionSummary(exercise: "squat", prescription: Prescription(reps: 5, sets: 2))
        summary.reps = (0..<10).map { i in
            let start = Double(i) * 2 + (i >= 7 ? 30 : 0)
            return Rep(index: i + 1, peak: 90, trough: 10, start: start, end: start + 1)
        }
        summary.repCount = 10
        return summary
    }

    @Test(arguments: StoreKind.allCases)
    func keepsTheSetsDoneAsTheSessionRanThemForProgress(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let session = StoredSession.make(random: 4, summary: Self.sevenThenThree())
            #expect(try await store.create([session]).isEmpty)
            let live = try await store.progress(ProgressQuery(tenant: "clinic-1", subject: "patient-17"))
            #expect(live.entries.first?.goal == Goal(sets: 2, setsDone: 1, repsPerSet: 5), "written with the row")
            var done = Self.sevenThenThree()
            done.reps += (0..<5).map { i in
                Rep(index: 11 + i, peak: 90, trough: 10, start: 120 + Double(i) * 2, end: 121 + Double(i) * 2)
            }
            done.repCount = 15
            try await store.finish(
                id: session.id, tenant: "clinic-1", summary: done, status: .finished, endedAt: 1_764_424_900_000)
            let finished = try await store.progress(ProgressQuery(tenant: "clinic-1", subject: "patient-17"))
            #expect(finished.entries.first?.goal?.met == true, "a third run of five: the second set")
            let read = try await store.session(id: session.id, tenant: "clinic-1")
            #expect(read?.summary.goal == Goal(sets: 2, setsDone: 2, repsPerSet: 5))
        }
    }
}
