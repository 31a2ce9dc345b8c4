import MotionCore
import Testing

@testable import SessionStore

/// `GET /v1/subjects` in both stores: a tenant's subjects with sessions in byte order, by prefix, a page at a time.
@Suite struct SubjectListTests {
    static func session(
        _ subject: String?, hours: Int64, tenant: String = "clinic-1", random: UInt128 = 1
    )
        -> StoredSession
    {
        ProgressTests.session(subject, hours: hours, tenant: tenant, random: random)
    }

    @Test(arguments: StoreKind.allCases)
    func listsEachSubjectOnceWithItsSessionsAndLatestStart(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let sessions = [
                Self.session("p-17", hours: 1), Self.session("p-17", hours: 5, random: 2),
                Self.session("p-2", hours: 3), Self.session("P-9", hours: 2), Self.session(nil, hours: 4),
                Self.session("ñandú", hours: 6), Self.session("p-17", hours: 7, tenant: "clinic-2"),
                Self.session("p-1", hours: 8, tenant: "clinic-2"),
            ]
            for session in sessions { try await store.create(session) }
            let page = try await store.subjects(SubjectQuery(tenant: "clinic-1"))
            #expect(page.next == nil)
            // Byte order: upper case before lower, "p-17" before "p-2", non-ASCII last; no nil subject.
            #expect(page.subjects.map(\.subject) == ["P-9", "p-17", "p-2", "ñandú"])
            #expect(page.subjects.map(\.sessions) == [1, 2, 1, 1])
            #expect(page.subjects[1].lastStartedAt == sessions[1].startedAt)
            #expect(try await store.subjects(SubjectQuery(tenant: "clinic-3")).subjects == [], "tenants apart")
            #expect(
                try await store.subjects(SubjectQuery(tenant: "clinic-2")).subjects.map(\.subject) == ["p-1", "p-17"])
        }
    }

    @Test(arguments: StoreKind.allCases)
    func narrowsToAPrefixAndPagesWithACursor(_ kind: StoreKind) async throws {
        try await withStore(kind) { store, _ in
            let subjects = ["a", "p", "p-1", "p-10", "p-2", "p-3", "p.", "q", "pz", "p\u{10FFFF}x", "ñ", "ñu", "o"]
            for (index, subject) in subjects.enumerated() {
                try await store.create(Self.session(subject, hours: Int64(index), random: UInt128(index + 1)))
            }
            func names(_ query: SubjectQuery) async throws -> [String] {
                try await store.subjects(query).subjects.map(\.subject)
            }
            #expect(try await names(SubjectQuery(tenant: "clinic-1", prefix: "p-")) == ["p-1", "p-10", "p-2", "p-3"])
            #expect(
                try await names(SubjectQuery(tenant: "clinic-1", prefix: "p"))
                    == ["p", "p-1", "p-10", "p-2", "p-3", "p.", "pz", "p\u{10FFFF}x"])
            #expect(try await names(SubjectQuery(tenant: "clinic-1", prefix: "ñ")) == ["ñ", "ñu"])
            #expect(try await names(SubjectQuery(tenant: "clinic-1", prefix: "x")) == [])
            #expect(try await names(SubjectQuery(tenant: "clinic-1", prefix: "")).count == subjects.count)

            // Pages of two under the prefix "p": every subject once, in order, then no cursor.
            var seen: [String] = []
            var cursor: String? = nil
            repeat {
                let page = try await store.subjects(
                    SubjectQuery(tenant: "clinic-1", prefix: "p", limit: 2, cursor: cursor))
                #expect(page.subjects.count <= 2)
                seen += page.subjects.map(\.subject)
                cursor = page.next
            } while cursor != nil
            #expect(seen == ["p", "p-1", "p-10", "p-2", "p-3", "p.", "pz", "p\u{10FFFF}x"])

            // A cursor from before the prefix starts at the prefix.
            let early = try await store.subjects(SubjectQuery(tenant: "clinic-1", limit: 1))
            #expect(try await names(SubjectQuery(tenant: "clinic-1", prefix: "q", cursor: early.next)) == ["q"])
            // Not base64url, or not UTF-8 once decoded.
            for bad in ["!", "%%%", "a b", Base64URL.encode([0xFF, 0xFE]), Base64URL.encode([0xC3])] {
                await #expect(throws: SessionStoreError.invalidCursor, "cursor \(bad)") {
                    try await store.subjects(SubjectQuery(tenant: "clinic-1", cursor: bad))
                }
            }
        }
    }

    @Test func theUpperBoundOfAPrefixIsItsLastScalarRaised() {
        #expect(SubjectQuery.upperBound(ofPrefix: "p-") == "p.")
        #expect(SubjectQuery.upperBound(ofPrefix: "a\u{D7FF}") == "a\u{E000}", "past the surrogates")
        #expect(
            SubjectQuery.upperBound(ofPrefix: "a\u{10FFFF}") == "b", "the last scalar dropped, the one before raised")
        #expect(SubjectQuery.upperBound(ofPrefix: "\u{10FFFF}") == nil)
        #expect(SubjectQuery.upperBound(ofPrefix: "é") == "ê")
    }
}
