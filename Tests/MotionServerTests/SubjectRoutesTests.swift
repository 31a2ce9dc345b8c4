import Foundation
import MotionServer
import NetworkTestSupport
import Testing

/// `GET /v1/subjects` (docs/protocol.md §5.2): a tenant's subjects with sessions, by prefix and page; a patient
/// code's own subject only; bad queries refused.
@Suite("Subjects over REST")
struct SubjectRoutesTests {
    static let alice = ProgrammeRoutesTests.alice
    static let bob = ProgrammeRoutesTests.bob

    static func subjects(_ response: TestResponse?) -> [String] {
        (MotionServerTests.json(response)?["subjects"] as? [[String: Any]])?.compactMap { $0["subject"] as? String }
            ?? []
    }

    @Test func listsTheTenantsSubjectsByPrefixAPageAtATime() async throws {
        try await withMotionServer(tokens: ProgrammeRoutesTests.tokens) { address, _, _ in
            for (subject, token) in [
                ("patient-17", Self.alice), ("patient-17", Self.alice), ("patient-18", Self.alice),
                ("zoe", Self.alice), ("patient-99", Self.bob),
            ] {
                let made = try await request(
                    address, "POST", "/v1/sessions", token: token,
                    body: #"{"exercise":"squat","subject":"\#(subject)"}"#)
                #expect(made?.status == 201, "\(made?.text ?? "")")
            }
            let all = try #require(try await request(address, "GET", "/v1/subjects", token: Self.alice))
            #expect(all.status == 200)
            let body = try #require(MotionServerTests.json(all))
            let first = try #require((body["subjects"] as? [[String: Any]])?.first)
            #expect(first["subject"] as? String == "patient-17")
            #expect(first["sessions"] as? Int == 2)
            #expect((first["lastSessionAt"] as? String)?.hasSuffix("Z") == true)
            #expect(body["next"] is NSNull)
            #expect(Self.subjects(all) == ["patient-17", "patient-18", "zoe"], "bob's subject is not alice's to see")
            #expect(
                Self.subjects(try await request(address, "GET", "/v1/subjects?prefix=patient-", token: Self.alice))
                    == ["patient-17", "patient-18"])
            #expect(
                Self.subjects(try await request(address, "GET", "/v1/subjects?prefix=Patient", token: Self.alice))
                    == [], "prefixes are case-sensitive, as subjects are")

            var seen: [String] = []
            var path = "/v1/subjects?limit=1"
            while true {
                let page = try #require(
                    MotionServerTests.json(try await request(address, "GET", path, token: Self.alice)))
                seen += (page["subjects"] as? [[String: Any]])?.compactMap { $0["subject"] as? String } ?? []
                guard let next = page["next"] as? String else { break }
                path = "/v1/subjects?limit=1&cursor=\(next)"
            }
            #expect(seen == ["patient-17", "patient-18", "zoe"])

            let long = String(repeating: "p", count: 257)
            for query in ["limit=0", "limit=201", "limit=ten", "cursor=%21%21", "prefix=\(long)"] {
                let refused = try await request(address, "GET", "/v1/subjects?\(query)", token: Self.alice)
                #expect(refused?.status == 400, "\(query): \(refused?.text ?? "")")
            }
            #expect(try await request(address, "GET", "/v1/subjects")?.status == 401)
        }
    }

    @Test func aPatientCodeSeesItsOwnSubjectOnly() async throws {
        try await withMotionServer(tokens: ProgrammeRoutesTests.tokens) { address, _, _ in
            for subject in ["patient-17", "patient-18"] {
                _ = try await request(
                    address, "POST", "/v1/sessions", token: Self.alice,
                    body: #"{"exercise":"squat","subject":"\#(subject)"}"#)
            }
            let made = MotionServerTests.json(
                try await request(address, "POST", "/v1/subjects/patient-17/access", token: Self.alice))
            let code = try #require(made?["code"] as? String)
            for (query, expected) in [
                ("", ["patient-17"]), ("?prefix=patient", ["patient-17"]), ("?prefix=patient-17", ["patient-17"]),
                ("?prefix=patient-18", []), ("?prefix=patient-170", []),
            ] {
                let answer = try await request(address, "GET", "/v1/subjects\(query)", token: code)
                #expect(answer?.status == 200)
                #expect(Self.subjects(answer) == expected, "\(query)")
            }
        }
    }
}
