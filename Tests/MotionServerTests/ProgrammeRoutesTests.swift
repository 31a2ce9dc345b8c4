import Foundation
import HTTPServer
import MotionCore
import MotionServer
import NetworkTestSupport
import PostgresTestSupport
import Testing

/// The programme endpoints (docs/protocol.md §5.3) against the real server: versions, pinned exercise versions,
/// ends, tenants apart, pagination, and every refusal with its pointer.
@Suite("Programmes over REST")
struct ProgrammeRoutesTests {
    static let tokens = """
        alice-token-0123456789 alice
        bob-token-0123456789ab bob
        """
    static let alice = "alice-token-0123456789"
    static let bob = "bob-token-0123456789ab"

    static func item(
        _ id: String = "a1", exercise: String = "sitToStand", side: String = "null",
        prescription: String = #"{"reps":10,"sets":3,"restSeconds":60,"target":null,"holdSeconds":null}"#,
        instructions: String = #"{"en":"Arms crossed, stand up fully.","es":"Brazos cruzados, levántese del todo."}"#,
        extra: String = ""
    ) -> String {
        #"{"item":"\#(id)","exercise":"\#(exercise)","side":\#(side),"perWeek":5,"prescription":\#(prescription),"#
            + #""instructions":\#(instructions)\#(extra)}"#
    }

    static func programme(
        subject: String = "patient-17", startsOn: String = "2026-12-07", endsOn: String = #""2027-01-03""#,
        items: [String] = [item()], extra: String = ""
    ) -> String {
        #"{"subject":"\#(subject)","title":"Knee, weeks 1-4","startsOn":"\#(startsOn)","endsOn":\#(endsOn),"#
            + #""items":[\#(items.joined(separator: ","))]\#(extra)}"#
    }

    static func json(_ response: TestResponse?) -> [String: Any]? { MotionServerTests.json(response) }

    @Test func createsReadsVersionsAndEndsAProgramme() async throws {
        try await withMotionServer(tokens: Self.tokens) { address, _, _ in
            let created = try #require(
                try await request(address, "POST", "/v1/programmes", token: Self.alice, body: Self.programme()))
            #expect(created.status == 201, "\(created.text)")
            let body = try #require(Self.json(created))
            let id = try #require(body["id"] as? String)
            #expect(created.header("Location") == "/v1/programmes/\(id)")
            #expect(body["version"] as? Int == 1)
            #expect(body["subject"] as? String == "patient-17")
            #expect(body["startsOn"] as? String == "2026-12-07")
            #expect(body["endsOn"] as? String == "2027-01-03")
            #expect(body["endedAt"] is NSNull)
            let items = try #require(body["items"] as? [[String: Any]])
            #expect(items.count == 1)
            #expect(items[0]["exerciseVersion"] as? Int == 1, "the exercise's version is pinned")
            #expect(items[0]["perWeek"] as? Int == 5)
            #expect((items[0]["prescription"] as? [String: Any])?["reps"] as? Int == 10)
            #expect((items[0]["instructions"] as? [String: String])?["es"] == "Brazos cruzados, levántese del todo.")

            let read = try #require(try await request(address, "GET", "/v1/programmes/\(id)", token: Self.alice))
            #expect(read.body == created.body, "GET shows exactly what POST answered")
            #expect(try await request(address, "GET", "/v1/programmes/\(id)", token: Self.bob)?.status == 404)
            #expect(try await request(address, "DELETE", "/v1/programmes/\(id)", token: Self.bob)?.status == 404)

            let second = Self.programme(items: [Self.item(), Self.item("b2", exercise: "squat")])
            let updated = try #require(
                try await request(address, "PUT", "/v1/programmes/\(id)", token: Self.alice, body: second))
            #expect(updated.status == 200, "\(updated.text)")
            #expect(Self.json(updated)?["version"] as? Int == 2)
            #expect((Self.json(updated)?["items"] as? [Any])?.count == 2)
            let moved = try await request(
                address, "PUT", "/v1/programmes/\(id)", token: Self.alice, body: Self.programme(subject: "other"))
            #expect(moved?.status == 422)
            #expect(
                MotionServerTests.json(moved).flatMap { $0["error"] as? [String: Any] }?["pointer"] as? String
                    == "/subject")

            #expect(try await request(address, "DELETE", "/v1/programmes/\(id)", token: Self.alice)?.status == 204)
            #expect(try await request(address, "DELETE", "/v1/programmes/\(id)", token: Self.alice)?.status == 204)
            let ended = try #require(
                Self.json(try await request(address, "GET", "/v1/programmes/\(id)", token: Self.alice)))
            #expect(ended["endedAt"] is String, "an ended programme stays readable")
            #expect(ended["version"] as? Int == 2)
            let late = try await request(address, "PUT", "/v1/programmes/\(id)", token: Self.alice, body: second)
            #expect(late?.status == 409)
            #expect(late?.text.contains("programmeEnded") == true)
            #expect(
                try await request(address, "GET", "/v1/programmes/01ARZ3NDEKTSV4RRFFQ69G5FAV", token: Self.alice)?
                    .status == 404)
            #expect(try await request(address, "GET", "/v1/programmes/nonsense", token: Self.alice)?.status == 404)
        }
    }

    @Test func listsBySubjectAndStateInPages() async throws {
        try await withMotionServer { address, _, _ in
            var ids: [String] = []
            for n in 0..<5 {
                let response = try await request(
                    address, "POST", "/v1/programmes", body: Self.programme(subject: n < 3 ? "p-1" : "p-2"))
                ids.append(try #require(Self.json(response)?["id"] as? String))
            }
            #expect(try await request(address, "DELETE", "/v1/programmes/\(ids[0])")?.status == 204)
            func listed(_ query: String) async throws -> (ids: [String], next: String?) {
                let body = try #require(Self.json(try await request(address, "GET", "/v1/programmes?\(query)")))
                let ids = (body["programmes"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
                return (ids, body["next"] as? String)
            }
            #expect(try await listed("subject=p-1").ids == [ids[2], ids[1], ids[0]])
            #expect(try await listed("subject=p-1&active=true").ids == [ids[2], ids[1]])
            #expect(try await listed("active=false").ids == [ids[0]])
            #expect(try await listed("subject=nobody").ids == [])
            let first = try await listed("limit=2")
            #expect(first.ids == [ids[4], ids[3]])
            let cursor = try #require(first.next)
            #expect(try await listed("limit=2&cursor=\(cursor)").ids == [ids[2], ids[1]])
            for bad in ["limit=0", "limit=501", "limit=x", "active=yes", "cursor=AAAA"] {
                let response = try await request(address, "GET", "/v1/programmes?\(bad)")
                #expect(response?.status == 400, "\(bad)")
            }
        }
    }

    /// Hostile and malformed bodies: each refused with the pointer of its first bad field.
    @Test(arguments: [
        (programme(items: [item(exercise: "nope")]), "/items/0/exercise"),
        (programme(items: [item(exercise: "elbowFlexion")]), "/items/0/side"),
        (
            programme(items: [
                item(exercise: "elbowFlexion", side: #""left""#, prescription: #"{"reps":5,"target":300}"#)
            ]),
            "/items/0/prescription/target"
        ),
        (programme(items: [item(prescription: #"{"reps":5,"holdSeconds":5}"#)]), "/items/0/prescription/holdSeconds"),
        (programme(items: [item(prescription: #"{"reps":0}"#)]), "/items/0/prescription/reps"),
        (programme(items: [item(prescription: #"{"sets":1.5}"#)]), "/items/0/prescription/sets"),
        (programme(items: [item(prescription: #"{"restSeconds":-1}"#)]), "/items/0/prescription/restSeconds"),
        (programme(items: [item(side: #""middle""#)]), "/items/0/side"),
        (programme(items: [item(), item()]), "/items/1/item"),
        (programme(items: [item("bad id")]), "/items/0/item"),
        (programme(items: [item(String(repeating: "a", count: 33))]), "/items/0/item"),
        (
            programme(items: [
                item(extra: #","perWeek2":22"#).replacingOccurrences(of: #""perWeek":5"#, with: #""perWeek":22"#)
            ]),
            "/items/0/perWeek"
        ),
        (programme(items: Array(repeating: item(), count: 51).enumerated().map { item("i\($0.offset)") }), "/items"),
        (programme(items: []), "/items"),
        (programme(startsOn: "2026-02-30"), "/startsOn"),
        (programme(startsOn: "07/12/2026"), "/startsOn"),
        (programme(endsOn: #""2026-12-06""#), "/endsOn"),
        (programme(subject: ""), "/subject"),
        (programme(subject: String(repeating: "s", count: 129)), "/subject"),
        (programme(subject: #"a\u0000b"#), "/subject"),
        (programme(extra: #","title":"x""#), "/title"),
        (
            programme(items: [item(instructions: #"{"en":"\#(String(repeating: "é", count: 2001))"}"#)]),
            "/items/0/instructions/en"
        ),
        (programme(items: [item(instructions: #"{"es":"line\nbreak"}"#)]), "/items/0/instructions/es"),
        (programme(items: [item(instructions: #"{"en":"a","en":"b"}"#)]), "/items/0/instructions/en"),
        (#"{"subject":"p","startsOn":"2026-12-07"}"#, "/items"),
        (#"{"subject":"p","items":[]}"#, "/startsOn"),
        (#"[]"#, ""),
        (#"{"subject":"p","subject":"q","startsOn":"2026-12-07","items":[]}"#, "/subject"),
        (
            #"{"subject":"p","startsOn":"2026-12-07","items":[{"item":"a","exercise":"squat","item":"b"}]}"#,
            "/items/0/item"
        ),
    ])
    func refusesBadProgrammesWithAPointer(_ body: String, _ pointer: String) async throws {
        try await withMotionServer { address, _, _ in
            let response = try #require(try await request(address, "POST", "/v1/programmes", body: body))
            #expect(response.status == 422, "\(response.text)")
            let error = try #require(Self.json(response)?["error"] as? [String: Any])
            #expect(error["code"] as? String == "invalidProgramme")
            #expect(error["pointer"] as? String == pointer, "\(error)")
        }
    }

    @Test func refusesWhatIsNoProgrammeBody() async throws {
        try await withMotionServer { address, _, _ in
            let truncated = String(Self.programme().dropLast(5))
            #expect(try await request(address, "POST", "/v1/programmes", body: truncated)?.status == 400)
            let huge = Self.programme(extra: #","pad":"\#(String(repeating: "x", count: 70_000))""#)
            #expect(try await request(address, "POST", "/v1/programmes", body: huge)?.status == 413)
            let form = try await request(
                address, "POST", "/v1/programmes", headers: "Content-Type: text/plain\r\n", body: Self.programme())
            #expect(form?.status == 415)
            let unknown = Self.programme(extra: #","colour":"blue","id":"mine","version":9"#)
            let created = try #require(Self.json(try await request(address, "POST", "/v1/programmes", body: unknown)))
            #expect(created["colour"] == nil, "members it does not know are skipped")
            #expect(created["id"] as? String != "mine", "the server makes the id")
            #expect(created["version"] as? Int == 1)
        }
    }

    @Test func pinsTheCustomExercisesVersionOfEachSave() async throws {
        try await withMotionServer { address, _, _ in
            let curl = ExerciseRoutesTests.curl()
            #expect(try await request(address, "POST", "/v1/exercises", body: curl)?.status == 201)
            let item = Self.item(exercise: "curl", side: #""right""#, prescription: #"{"reps":5}"#)
            let created = try #require(
                Self.json(try await request(address, "POST", "/v1/programmes", body: Self.programme(items: [item]))))
            let id = try #require(created["id"] as? String)
            #expect((created["items"] as? [[String: Any]])?.first?["exerciseVersion"] as? Int == 1)
            #expect(
                try await request(address, "PUT", "/v1/exercises/curl", body: ExerciseRoutesTests.curl(enter: 60))?
                    .status == 200)
            let read = Self.json(try await request(address, "GET", "/v1/programmes/\(id)"))
            #expect((read?["items"] as? [[String: Any]])?.first?["exerciseVersion"] as? Int == 1, "pinned at save")
            let resaved = Self.json(
                try await request(address, "PUT", "/v1/programmes/\(id)", body: Self.programme(items: [item])))
            #expect((resaved?["items"] as? [[String: Any]])?.first?["exerciseVersion"] as? Int == 2)
            let otherTenant = try await request(
                address, "POST", "/v1/programmes", token: nil,
                body: Self.programme(items: [Self.item(exercise: "Curl")]))
            #expect(otherTenant?.status == 422, "exercise ids are exact")
        }
    }
}

/// Sessions of a programme item (docs/protocol.md §5.3): the item's exercise, side and prescription applied, the
/// summary's `programme` and `goal`, and the refusals of a `start` that names an item.
@Suite("Sessions of programme items")
struct ProgrammeSessionTests {
    /// The simulated person's sit-to-stands: six reps, the second and fifth with a form fault, so four clean.
    static func demoFrames(_ address: SocketAddress) async throws -> String {
        let demo = try #require(try await request(address, "GET", "/v1/exercises/sitToStand/demo"))
        let body = try #require(MotionServerTests.json(demo))
        let frames = try JSONSerialization.data(withJSONObject: try #require(body["frames"]))
        return String(decoding: frames, as: UTF8.self)
    }

    static func createProgramme(_ address: SocketAddress, items: [String]) async throws -> String {
        let body = ProgrammeRoutesTests.programme(items: items)
        let created = try await request(address, "POST", "/v1/programmes", body: body)
        return try #require(MotionServerTests.json(created)?["id"] as? String, "\(created?.text ?? "")")
    }

    @Test func appliesTheItemAndReportsTheGoalMetOrNot() async throws {
        try await withMotionServer { address, _, _ in
            let id = try await Self.createProgramme(
                address,
                items: [
                    ProgrammeRoutesTests.item("met", prescription: #"{"reps":2,"sets":2}"#),
                    ProgrammeRoutesTests.item("missed", prescription: #"{"reps":3,"sets":2,"target":10}"#),
                ])
            let frames = try await Self.demoFrames(address)
            var goals: [String: [String: Any]] = [:]
            for item in ["met", "missed"] {
                let body = #"{"programme":{"id":"\#(id)","item":"\#(item)"},"frames":\#(frames)}"#
                let analysed = try #require(try await request(address, "POST", "/v1/analyze", body: body))
                #expect(analysed.status == 200, "\(analysed.text.prefix(300))")
                let summary = try #require(MotionServerTests.json(analysed)?["summary"] as? [String: Any])
                #expect(summary["exercise"] as? String == "sitToStand")
                #expect(summary["subject"] as? String == "patient-17", "the programme's subject")
                let programme = try #require(summary["programme"] as? [String: Any])
                #expect(programme["id"] as? String == id)
                #expect(programme["version"] as? Int == 1)
                #expect(programme["item"] as? String == item)
                #expect(summary["demo"] as? Bool == false)
                goals[item] = try #require(summary["goal"] as? [String: Any])
                let sessionID = try #require(summary["id"] as? String)
                let stored = try #require(
                    MotionServerTests.json(try await request(address, "GET", "/v1/sessions/\(sessionID)")))
                #expect((stored["goal"] as? [String: Any])?["met"] as? Bool == goals[item]?["met"] as? Bool)
                #expect((stored["programme"] as? [String: Any])?["item"] as? String == item)
                let prescription = try #require(stored["prescription"] as? [String: Any])
                #expect(prescription["sets"] as? Int == 2)
            }
            #expect(goals["met"]?["met"] as? Bool == true, "four clean reps make two sets of two")
            #expect(goals["met"]?["setsDone"] as? Int == 2)
            #expect(goals["missed"]?["met"] as? Bool == false, "four clean reps make one set of three")
            #expect(goals["missed"]?["setsDone"] as? Int == 1)
            #expect(goals["missed"]?["repsPerSet"] as? Int == 3)
        }
    }

    @Test func answersAdherenceAndRefusesBadQueries() async throws {
        try await withMotionServer { address, _, _ in
            let plain = #"{"item":"free","exercise":"squat"}"#
            let id = try await Self.createProgramme(address, items: [ProgrammeRoutesTests.item(), plain])
            let path = "/v1/subjects/patient-17/adherence"
            let body = try #require(
                MotionServerTests.json(try await request(address, "GET", path + "?from=2026-12-07&to=2026-12-20")))
            let weeks = try #require(body["weeks"] as? [[String: Any]])
            #expect(weeks.compactMap { $0["week"] as? String } == ["2026-W50", "2026-W51"])
            let items = try #require(weeks.first?["items"] as? [[String: Any]])
            #expect(items.compactMap { $0["item"] as? String } == ["a1", "free"], "an item without a goal is kept")
            #expect(items.first?["programme"] as? String == id)
            #expect(items.first?["prescribed"] as? Int == 5)
            #expect(body["timeZone"] as? String == "UTC")
            let instants = MotionServerTests.json(
                try await request(address, "GET", path + "?from=2026-12-07T10:00:00Z&to=2026-12-08T00:00:00Z&tz=UTC"))
            #expect((instants?["weeks"] as? [Any])?.count == 1, "instants count by their day in tz")
            let santiago = MotionServerTests.json(
                try await request(address, "GET", path + "?from=2026-09-06&to=2026-09-06&tz=America/Santiago"))
            #expect(santiago?["timeZone"] as? String == "America/Santiago")
            #expect(
                (santiago?["weeks"] as? [[String: Any]])?.first?["startsOn"] as? String == "2026-08-31",
                "a Sunday whose midnight the clocks skip")
            let empty = MotionServerTests.json(try await request(address, "GET", "/v1/subjects/nobody/adherence"))
            #expect(
                (empty?["weeks"] as? [[String: Any]])?.allSatisfy { ($0["items"] as? [Any])?.isEmpty == true } == true)
            for bad in [
                "?tz=Mars/Olympus", "?tz=", "?tz=..%2F..%2Fetc%2Fpasswd", "?tz=%2Fetc%2Fpasswd", "?tz=Europe",
                "?tz=leapseconds", "?tz=europe%2Fmadrid", "?from=2026-12-20&to=2026-12-07", "?from=2026-02-30",
                "?from=2020-01-01&to=2026-12-31", "?demo=maybe", "?to=yesterday",
            ] {
                let response = try await request(address, "GET", path + bad)
                #expect(response?.status == 400, "\(bad): \(response?.text ?? "")")
                #expect(response?.text.contains("invalidQuery") == true, "\(bad)")
            }
            #expect(try await request(address, "GET", "/v1/subjects/a%00b/adherence")?.status == 400)
        }
    }

    @Test func refusesAStartThatDoesNotNameAnItemOfTheTenant() async throws {
        try await withMotionServer(tokens: ProgrammeRoutesTests.tokens) { address, _, _ in
            let alice = ProgrammeRoutesTests.alice
            let body = ProgrammeRoutesTests.programme()
            let created = try await request(address, "POST", "/v1/programmes", token: alice, body: body)
            let id = try #require(MotionServerTests.json(created)?["id"] as? String)
            let refusals: [(String, String, Int, String)] = [
                (alice, #"{"programme":{"id":"\#(id)","item":"nope"}}"#, 400, "unknownProgramme"),
                (ProgrammeRoutesTests.bob, #"{"programme":{"id":"\#(id)","item":"a1"}}"#, 400, "unknownProgramme"),
                (alice, #"{"programme":{"id":"01ARZ3NDEKTSV4RRFFQ69G5FAV","item":"a1"}}"#, 400, "unknownProgramme"),
                (alice, #"{"exercise":"squat","programme":{"id":"\#(id)","item":"a1"}}"#, 400, "invalidMessage"),
                (alice, #"{"programme":{"id":"\#(id)","item":"a1"},"options":{"reps":3}}"#, 400, "invalidMessage"),
                (alice, #"{"programme":{"id":"\#(id)","item":"a1"},"side":"left"}"#, 400, "invalidMessage"),
                (alice, #"{"programme":{"id":"\#(id)","item":"a1"},"subject":"else"}"#, 400, "invalidMessage"),
            ]
            for (token, start, status, code) in refusals {
                let response = try #require(
                    try await request(address, "POST", "/v1/sessions", token: token, body: start))
                #expect(response.status == status, "\(start): \(response.text)")
                #expect(response.text.contains(code), "\(start): \(response.text)")
            }
            let started = try await request(
                address, "POST", "/v1/sessions", token: alice,
                body: #"{"programme":{"id":"\#(id)","item":"a1"},"options":{"baselineReps":2,"snapshots":"off"}}"#)
            #expect(started?.status == 201, "the client's own options stay its own")
            #expect(try await request(address, "DELETE", "/v1/programmes/\(id)", token: alice)?.status == 204)
            let ended = try await request(
                address, "POST", "/v1/sessions", token: alice, body: #"{"programme":{"id":"\#(id)","item":"a1"}}"#)
            #expect(ended?.status == 409)
            #expect(ended?.text.contains("programmeEnded") == true)
        }
    }
}

/// Patient codes over REST (docs/protocol.md §6.1): made, listed and revoked by the clinic; limited to their subject.
@Suite("Patient codes")
struct PatientCodeRoutesTests {
    static let alice = ProgrammeRoutesTests.alice

    @Test func aCodeReachesItsSubjectOnlyUntilItIsRevoked() async throws {
        try await withMotionServer(tokens: ProgrammeRoutesTests.tokens) { address, _, _ in
            let mine = try #require(
                MotionServerTests.json(
                    try await request(
                        address, "POST", "/v1/programmes", token: Self.alice, body: ProgrammeRoutesTests.programme())))
            let theirs = try #require(
                MotionServerTests.json(
                    try await request(
                        address, "POST", "/v1/programmes", token: Self.alice,
                        body: ProgrammeRoutesTests.programme(subject: "patient-99"))))
            let made = try #require(
                try await request(
                    address, "POST", "/v1/subjects/patient-17/access", token: Self.alice,
                    body: #"{"expiresInSeconds":600}"#))
            #expect(made.status == 201, "\(made.text)")
            let body = try #require(MotionServerTests.json(made))
            let code = try #require(body["code"] as? String)
            let id = try #require(body["id"] as? String)
            #expect(code.utf8.count == 43)
            #expect(body["subject"] as? String == "patient-17")
            #expect(body["revokedAt"] is NSNull)

            let expectations: [(String, String, String, Int)] = [
                ("GET", "/v1/programmes/\(try #require(mine["id"] as? String))", "", 200),
                ("GET", "/v1/programmes/\(try #require(theirs["id"] as? String))", "", 404),
                ("GET", "/v1/subjects/patient-17/adherence", "", 200),
                ("GET", "/v1/subjects/patient-99/adherence", "", 404),
                ("GET", "/v1/subjects/patient-99/progress", "", 404),
                ("GET", "/v1/exercises", "", 200),
                ("POST", "/v1/programmes", ProgrammeRoutesTests.programme(), 403),
                ("POST", "/v1/exercises", ExerciseRoutesTests.curl(), 403),
                ("POST", "/v1/subjects/patient-17/access", "", 403),
                ("GET", "/v1/subjects/patient-17/access", "", 403),
                ("DELETE", "/v1/subjects/patient-17/access/\(id)", "", 403),
                ("GET", "/metrics", "", 403),
                ("POST", "/v1/sessions", #"{"exercise":"squat"}"#, 400),
                ("POST", "/v1/sessions", #"{"programme":{"id":"\#(theirs["id"] ?? "")","item":"a1"}}"#, 400),
                ("POST", "/v1/sessions", #"{"programme":{"id":"\#(mine["id"] ?? "")","item":"a1"}}"#, 201),
            ]
            for (method, path, body, status) in expectations {
                let response = try await request(address, method, path, token: code, body: body)
                #expect(response?.status == status, "\(method) \(path): \(response?.text ?? "")")
            }
            let listed = MotionServerTests.json(try await request(address, "GET", "/v1/sessions", token: code))
            #expect((listed?["sessions"] as? [[String: Any]])?.map { $0["subject"] as? String } == ["patient-17"])
            let other = MotionServerTests.json(
                try await request(address, "GET", "/v1/sessions?subject=patient-99", token: code))
            #expect((other?["sessions"] as? [Any])?.isEmpty == true)

            let codes = MotionServerTests.json(
                try await request(address, "GET", "/v1/subjects/patient-17/access", token: Self.alice))
            let entries = try #require(codes?["codes"] as? [[String: Any]])
            #expect(entries.map { $0["id"] as? String } == [id])
            #expect(entries.allSatisfy { $0["code"] == nil }, "never the secret again")
            #expect(
                try await request(address, "DELETE", "/v1/subjects/patient-99/access/\(id)", token: Self.alice)?
                    .status == 404)
            #expect(
                try await request(
                    address, "DELETE", "/v1/subjects/patient-17/access/\(id)", token: ProgrammeRoutesTests.bob)?
                    .status == 404, "another tenant's code is unknown")
            #expect(
                try await request(address, "DELETE", "/v1/subjects/patient-17/access/\(id)", token: Self.alice)?
                    .status == 204)
            #expect(try await request(address, "GET", "/v1/exercises", token: code)?.status == 401, "revoked at once")
            #expect(
                try await request(address, "DELETE", "/v1/subjects/patient-17/access/\(id)", token: Self.alice)?
                    .status == 404)
        }
    }

    @Test(arguments: [
        #"{"expiresInSeconds":10}"#, #"{"expiresInSeconds":40000000}"#, #"{"expiresInSeconds":"1"}"#, "[", "7",
    ])
    func refusesABadBody(_ body: String) async throws {
        try await withMotionServer(tokens: ProgrammeRoutesTests.tokens) { address, _, _ in
            let response = try await request(
                address, "POST", "/v1/subjects/patient-17/access", token: Self.alice, body: body)
            #expect(response?.status == 400, "\(body): \(response?.text ?? "")")
        }
    }

    @Test func limitsTheWorkingCodesOfASubject() async throws {
        try await withMotionServer { address, _, _ in
            for _ in 0..<20 {
                #expect(try await request(address, "POST", "/v1/subjects/p-1/access")?.status == 201)
            }
            let refused = try await request(address, "POST", "/v1/subjects/p-1/access")
            #expect(refused?.status == 409)
            #expect(refused?.text.contains("tooManyAccessCodes") == true)
            #expect(try await request(address, "POST", "/v1/subjects/p-2/access")?.status == 201)
            #expect(try await request(address, "POST", "/v1/subjects/%20%0A/access")?.status == 400)
        }
    }
}

/// A programme's prescriptions are judged against the exercise version each item pins, not the exercise's current
/// version, on both stores.
@Suite("Programmes pin and check exercise versions")
struct ProgrammePinnedVersionTests {
    /// A custom exercise whose rest position is `rest` (degrees), its thresholds above it.
    static func raise(rest: Double) -> String {
        #"{"id":"raise","name":"Raise","view":"sagittal","kind":"rep","#
            + #""measurement":{"type":"flexion","joints":["shoulder","elbow","wrist"]},"#
            + #""thresholds":{"rest":\#(rest),"enter":\#(rest + 30),"exit":\#(rest + 10),"minAmplitude":20},"#
            + #""target":\#(rest + 95)}"#
    }

    /// A programme of the right-side raise with `target`, pinning `version` when given.
    static func programme(target: Double, version: Int?) -> String {
        let pin = version.map { #","exerciseVersion":\#($0)"# } ?? ""
        return ProgrammeRoutesTests.programme(items: [
            ProgrammeRoutesTests.item(
                exercise: "raise", side: #""right""#, prescription: #"{"reps":5,"target":\#(target)}"#, extra: pin)
        ])
    }

    /// Version 1 rests at 25°, version 2 at 50°: a 40° target is one version 1 takes and version 2 refuses.
    static func checksAgainstThePinnedVersion(database: String?) async throws {
        try await withMotionServer(database: database) { address, _, _ in
            #expect(try await request(address, "POST", "/v1/exercises", body: Self.raise(rest: 25))?.status == 201)
            #expect(try await request(address, "PUT", "/v1/exercises/raise", body: Self.raise(rest: 50))?.status == 200)

            let pinnedOld = try #require(
                try await request(address, "POST", "/v1/programmes", body: Self.programme(target: 40, version: 1)))
            #expect(pinnedOld.status == 201, "valid for the pinned version 1: \(pinnedOld.text)")
            let created = try #require(ProgrammeRoutesTests.json(pinnedOld))
            let items = try #require(created["items"] as? [[String: Any]])
            #expect(items.first?["exerciseVersion"] as? Int == 1, "the named version is pinned")

            for version in [nil, 2] as [Int?] {
                let current = try await request(
                    address, "POST", "/v1/programmes", body: Self.programme(target: 40, version: version))
                #expect(current?.status == 422, "40° is below version 2's rest position")
                let error = ExerciseRoutesTests.error(current)
                #expect(error?["code"] as? String == "invalidProgramme")
                #expect(error?["pointer"] as? String == "/items/0/prescription/target")
            }
            let valid = try await request(
                address, "POST", "/v1/programmes", body: Self.programme(target: 70, version: nil))
            #expect(
                (ProgrammeRoutesTests.json(valid)?["items"] as? [[String: Any]])?.first?["exerciseVersion"] as? Int
                    == 2,
                "without a named version the current one is pinned")

            let id = try #require(created["id"] as? String)
            let update = try await request(
                address, "PUT", "/v1/programmes/\(id)", body: Self.programme(target: 30, version: 1))
            #expect(update?.status == 200, "an update is judged against its pinned version too")
            let refused = try await request(
                address, "PUT", "/v1/programmes/\(id)", body: Self.programme(target: 30, version: 2))
            #expect(ExerciseRoutesTests.error(refused)?["pointer"] as? String == "/items/0/prescription/target")

            for (exercise, version) in [("raise", 3), ("raise", 7), ("sitToStand", 2)] {
                let item = ProgrammeRoutesTests.item(
                    exercise: exercise, side: exercise == "raise" ? #""right""# : "null",
                    prescription: #"{"reps":5}"#, extra: #","exerciseVersion":\#(version)"#)
                let unknown = try await request(
                    address, "POST", "/v1/programmes", body: ProgrammeRoutesTests.programme(items: [item]))
                #expect(unknown?.status == 422, "\(exercise) has no version \(version)")
                #expect(ExerciseRoutesTests.error(unknown)?["pointer"] as? String == "/items/0/exerciseVersion")
            }
            for bad in ["0", "-1", "1.5", #""1""#, "4294967296"] {
                let item = ProgrammeRoutesTests.item(
                    exercise: "sitToStand", prescription: #"{"reps":5}"#, extra: #","exerciseVersion":\#(bad)"#)
                let refused = try await request(
                    address, "POST", "/v1/programmes", body: ProgrammeRoutesTests.programme(items: [item]))
                #expect(refused?.status == 422, "exerciseVersion \(bad)")
                #expect(ExerciseRoutesTests.error(refused)?["pointer"] as? String == "/items/0/exerciseVersion")
            }
        }
    }

    @Test func checksEachItemAgainstThePinnedVersionOnSQLite() async throws {
        try await Self.checksAgainstThePinnedVersion(database: nil)
    }

    @Test(.enabled(if: PostgresTestServer.isInstalled, "PostgreSQL server binaries missing: apt install postgresql"))
    func checksEachItemAgainstThePinnedVersionOnPostgreSQL() async throws {
        try await Self.checksAgainstThePinnedVersion(database: try await PostgresTestServer.shared.createDatabase())
    }
}
