import Foundation
import HTTPServer
import MotionCore
import MotionSimulation
import MotionWire
import NetworkTestSupport
import Testing

@testable import MotionServer

/// The FHIR export over REST (docs/fhir.md) on a real server with a real SQLite file: tenancy, live and ended
/// sessions, custom exercises, pages and their links, and every refused query.
@Suite("FHIR export over REST")
struct FHIRRoutesTests {
    typealias Server = MotionServerTests

    static let tokens = "aaaaaaaaaaaaaaaa1 clinic-a\nbbbbbbbbbbbbbbbb2 clinic-b\n"
    static let a = "aaaaaaaaaaaaaaaa1"
    static let b = "bbbbbbbbbbbbbbbb2"

    /// `POST /v1/analyze` of the three curls of ``ResumeTests/poses``: the stored summary.
    static func analyze(
        _ address: SocketAddress, subject: String, exercise: String = "elbowFlexion", token: String? = a
    ) async throws -> [String: Any] {
        let body =
            #"{"exercise":"\#(exercise)","side":"right","subject":"\#(subject)","frames":["#
            + ResumeTests.poses.map(poseMessage).joined(separator: ",") + "]}"
        let answer = try await request(address, "POST", "/v1/analyze", token: token, body: body)
        #expect(answer?.status == 200, "\(answer?.text ?? "")")
        return try #require(Server.json(answer)?["summary"] as? [String: Any])
    }

    static func get(_ address: SocketAddress, _ path: String, token: String? = a) async throws -> TestResponse {
        try #require(try await request(address, "GET", path, token: token))
    }

    /// The Observations of a Bundle answer, checking what every answer has.
    static func observations(_ response: TestResponse, type: String = "collection") throws -> [[String: Any]] {
        #expect(response.status == 200, "\(response.text)")
        #expect(response.header("Content-Type") == "application/fhir+json")
        let bundle = try #require(Server.json(response))
        #expect(bundle["resourceType"] as? String == "Bundle")
        #expect(bundle["type"] as? String == type)
        return (bundle["entry"] as? [[String: Any]] ?? []).compactMap { $0["resource"] as? [String: Any] }
    }

    static func links(_ response: TestResponse) -> [String: String] {
        let links = Server.json(response)?["link"] as? [[String: String]] ?? []
        return Dictionary(links.map { ($0["relation"] ?? "", $0["url"] ?? "") }) { first, _ in first }
    }

    static func quantity(_ observation: [String: Any], _ code: String) -> Double? {
        let components = observation["component"] as? [[String: Any]] ?? []
        let component = components.first {
            (($0["code"] as? [String: Any])?["coding"] as? [[String: Any]])?.first?["code"] as? String == code
        }
        return (component?["valueQuantity"] as? [String: Any])?["value"] as? Double
    }

    @Test func exportsASessionToItsTenantOnly() async throws {
        try await withMotionServer(tokens: Self.tokens) { address, _, _ in
            let summary = try await Self.analyze(address, subject: "patient-17")
            let id = try #require(summary["id"] as? String)
            let path = "/v1/sessions/\(id)/fhir"
            let response = try await Self.get(address, path)
            let observation = try #require(try Self.observations(response).first)
            #expect(observation["id"] as? String == id)
            #expect(observation["status"] as? String == "final")
            let coding = ((observation["code"] as? [String: Any])?["coding"] as? [[String: Any]])?.first
            #expect(coding?["system"] as? String == FHIRSystem.exercises)
            #expect(coding?["code"] as? String == "elbowFlexion")
            let subject = (observation["subject"] as? [String: Any])?["identifier"] as? [String: String]
            #expect(
                subject == ["system": FHIRConfiguration().subjectSystem(tenant: "clinic-a"), "value": "patient-17"])
            #expect(
                (observation["device"] as? [String: String])?["display"] == "motion-server \(ServerVersion.current)")
            #expect(Self.quantity(observation, "cleanReps") == (summary["repCount"] as? Double))
            #expect(Self.quantity(observation, "rejectedReps") == (summary["rejectedCount"] as? Double))
            let best = try #require(summary["best"] as? Double)
            #expect(abs((Self.quantity(observation, "best") ?? 0) - best) <= 0.05)
            #expect(Self.links(response) == ["self": path])

            // Another tenant's id answers as an unknown one, byte for byte.
            let other = try await Self.get(address, path, token: Self.b)
            let unknown = try await Self.get(address, "/v1/sessions/01ARZ3NDEKTSV4RRFFQ69G5FAV/fhir", token: Self.b)
            #expect(other.status == 404 && other.body == unknown.body)
            #expect(try await Self.get(address, "/v1/sessions/not-an-id/fhir").status == 404)
            #expect(try await Self.get(address, path, token: nil).status == 401)
            #expect(try await Self.get(address, "/v1/subjects/patient-17/fhir", token: nil).status == 401)
            let theirs = try Self.observations(
                try await Self.get(address, "/v1/subjects/patient-17/fhir", token: Self.b))
            #expect(theirs.isEmpty, "the other tenant's patient-17 has no session")
        }
    }

    @Test func aLiveSessionIsPreliminaryAndItsTransactionSaysSo() async throws {
        try await withMotionServer { address, _, _ in
            let created = try await request(
                address, "POST", "/v1/sessions", body: #"{"exercise":"elbowFlexion","side":"right","subject":"p"}"#)
            let id = try #require(Server.json(created)?["id"] as? String)
            let frames = ResumeTests.poses.prefix(150).map(poseMessage).joined(separator: ",")
            #expect(
                try await request(address, "POST", "/v1/sessions/\(id)/poses", body: #"{"frames":[\#(frames)]}"#)?
                    .status == 200)
            let live = try #require(try Self.observations(try await Self.get(address, "/v1/sessions/\(id)/fhir")).first)
            #expect(live["status"] as? String == "preliminary")
            #expect((live["effectivePeriod"] as? [String: Any])?["end"] == nil)
            let transaction = try await Self.get(address, "/v1/sessions/\(id)/fhir?type=transaction")
            #expect(try Self.observations(transaction, type: "transaction").count == 1)
            let entry = try #require((Server.json(transaction)?["entry"] as? [[String: Any]])?.first)
            let request = try #require(entry["request"] as? [String: String])
            #expect(request["method"] == "POST" && request["url"] == "Observation")
            #expect(request["ifNoneExist"] == "identifier=\(FHIRSystem.sessions)|\(id)&status=preliminary")
            #expect(Self.links(transaction) == ["self": "/v1/sessions/\(id)/fhir?type=transaction"])
            #expect(try await MotionServerTests.requestStop(address, id) == 200)
            let ended = try #require(
                try Self.observations(try await Self.get(address, "/v1/sessions/\(id)/fhir")).first)
            #expect(ended["status"] as? String == "final")
        }
    }

    @Test func theCatalogsCodeSystemsArePublicAndACustomOneIsTheTenants() async throws {
        try await withMotionServer(tokens: Self.tokens) { address, _, _ in
            for path in ["/fhir/CodeSystem/exercises", "/fhir/CodeSystem/measures"] {
                let response = try await Self.get(address, path, token: nil)
                #expect(response.status == 200, "\(path)")
                #expect(response.header("Content-Type") == "application/fhir+json")
                #expect(Server.json(response)?["resourceType"] as? String == "CodeSystem")
            }
            let exercises = Server.json(try await Self.get(address, "/fhir/CodeSystem/exercises", token: nil))
            #expect((exercises?["concept"] as? [[String: Any]])?.count == Exercise.catalog.count)
            #expect(try await Self.get(address, "/fhir/CodeSystem/custom-exercises", token: nil).status == 401)

            var curl = Exercise.elbowFlexion
            curl.id = "towelCurl"
            curl.name = "Towel curl"
            let definition = ExerciseLibrary.definition(of: curl, version: 1)
            #expect(try await request(address, "POST", "/v1/exercises", token: Self.a, body: definition)?.status == 201)
            let custom = try #require(Server.json(try await Self.get(address, "/fhir/CodeSystem/custom-exercises")))
            let system = FHIRConfiguration.customExerciseSystem(tenant: "clinic-a")
            #expect(custom["url"] as? String == system)
            #expect((custom["concept"] as? [[String: Any]])?.map { $0["code"] as? String } == ["towelCurl"])
            let none = Server.json(try await Self.get(address, "/fhir/CodeSystem/custom-exercises", token: Self.b))
            #expect(none?["concept"] == nil && none?["url"] as? String != system, "the other tenant has none")

            // A session keeps the name of the version it used, after the exercise is renamed and deleted.
            let id = try #require(try await Self.analyze(address, subject: "c", exercise: "towelCurl")["id"] as? String)
            curl.name = "Towel curl, renamed"
            let renamed = ExerciseLibrary.definition(of: curl, version: 2)
            #expect(
                try await request(address, "PUT", "/v1/exercises/towelCurl", token: Self.a, body: renamed)?.status
                    == 200)
            #expect(try await request(address, "DELETE", "/v1/exercises/towelCurl", token: Self.a)?.status == 204)
            let observation = try #require(
                try Self.observations(try await Self.get(address, "/v1/sessions/\(id)/fhir")).first)
            let coding = ((observation["code"] as? [String: Any])?["coding"] as? [[String: Any]])?.first
            #expect(coding?["system"] as? String == system)
            #expect(coding?["code"] as? String == "towelCurl")
            #expect(coding?["display"] as? String == "Towel curl")
            #expect(Self.quantity(observation, "best") != nil, "its unit is known")
        }
    }

    @Test func pagesTheSubjectsSessionsWithSelfAndNextLinks() async throws {
        try await withMotionServer { address, _, _ in
            var ids: [String] = []
            for _ in 0..<5 {
                ids.append(try #require(try await Self.analyze(address, subject: "p 17")["id"] as? String))
            }
            _ = try await Self.analyze(address, subject: "someone else")
            var path: String? = "/v1/subjects/p%2017/fhir?limit=2&type=transaction"
            var seen: [String] = []
            var pages = 0
            while let next = path {
                let response = try await Self.get(address, next)
                let entries = try Self.observations(response, type: "transaction")
                seen += entries.compactMap {
                    (($0["identifier"] as? [[String: Any]])?.first?["value"]) as? String
                }
                let links = Self.links(response)
                #expect(links["self"]?.hasPrefix("/v1/subjects/p%2017/fhir?limit=2") == true, "\(links)")
                #expect(links["self"]?.hasSuffix("type=transaction") == true)
                path = links["next"]
                pages += 1
                #expect(pages <= 3)
            }
            #expect(pages == 3)
            #expect(seen == ids.reversed(), "newest first, each once")
            let all = try Self.observations(try await Self.get(address, "/v1/subjects/p%2017/fhir"))
            #expect(all.count == 5)
            let none = try await Self.get(address, "/v1/subjects/p%2017/fhir?from=2000-01-01&to=2000-01-02")
            #expect(try Self.observations(none).isEmpty)
            #expect(Self.links(none).keys.sorted() == ["self"])
            let squats = try await Self.get(address, "/v1/subjects/p%2017/fhir?exercise=squat")
            #expect(try Self.observations(squats).isEmpty)
        }
    }

    @Test func aHoldExercisesHeldTimeIsItsSummarysHolds() async throws {
        try await withMotionServer { address, _, _ in
            let scenario = try #require(Scenario.scenarios(for: .plankHold).first)
            let body =
                #"{"exercise":"plankHold","subject":"h","frames":["#
                + scenario.simulation.poses().map(poseMessage).joined(separator: ",") + "]}"
            let answer = try await request(address, "POST", "/v1/analyze", body: body)
            let summary = try #require(Server.json(answer)?["summary"] as? [String: Any])
            let holds = try #require(summary["holds"] as? [[String: Any]])
            #expect(holds.count == 2, "the scenario holds twice")
            let held = holds.compactMap { $0["held"] as? Double }
            let id = try #require(summary["id"] as? String)
            let observation = try #require(
                try Self.observations(try await Self.get(address, "/v1/sessions/\(id)/fhir", token: nil)).first)
            let total = try #require(Self.quantity(observation, "heldTime"))
            #expect(abs(total - held.reduce(0, +)) <= 0.005)
            let longest = try #require(Self.quantity(observation, "longestHold"))
            #expect(abs(longest - (summary["bestHold"] as? Double ?? -1)) <= 0.005)
            #expect(longest > 0)

            // A rep exercise has no hold components.
            let curl = try await Self.analyze(address, subject: "h", token: nil)
            let reps = try #require(
                try Self.observations(
                    try await Self.get(address, "/v1/sessions/\(curl["id"] as? String ?? "")/fhir", token: nil)
                ).first)
            #expect(Self.quantity(reps, "heldTime") == nil && Self.quantity(reps, "cleanReps") != nil)
        }
    }

    static let badQueries: [(query: String, code: String)] = [
        ("type=bogus", "invalidQuery"), ("type=", "invalidQuery"), ("type=TRANSACTION", "invalidQuery"),
        ("from=yesterday", "invalidQuery"), ("to=2026-13-01", "invalidQuery"), ("from=", "invalidQuery"),
        ("from=2026-02-01&to=2026-01-01", "invalidQuery"), ("from=1e300", "invalidQuery"),
        ("limit=0", "invalidQuery"), ("limit=501", "invalidQuery"), ("limit=-1", "invalidQuery"),
        ("limit=ten", "invalidQuery"), ("limit=99999999999999999999999", "invalidQuery"),
        ("cursor=garbage", "invalidCursor"), ("cursor=AAAAAAAA", "invalidCursor"),
    ]

    @Test func refusesEachBadQueryWithA400SayingWhy() async throws {
        try await withMotionServer { address, _, _ in
            let id = try #require(try await Self.analyze(address, subject: "q", token: nil)["id"] as? String)
            for (query, code) in Self.badQueries {
                let response = try await Self.get(address, "/v1/subjects/q/fhir?\(query)", token: nil)
                #expect(response.status == 400, "\(query)")
                let error = Server.json(response)?["error"] as? [String: Any]
                #expect(error?["code"] as? String == code, "\(query): \(response.text)")
                #expect((error?["message"] as? String)?.isEmpty == false)
            }
            for query in ["type=bogus", "type=Collection"] {
                let response = try await Self.get(address, "/v1/sessions/\(id)/fhir?\(query)", token: nil)
                #expect(response.status == 400, "\(query)")
                #expect(
                    (Server.json(response)?["error"] as? [String: Any])?["message"] as? String
                        == "type must be collection or transaction")
            }
            for subject in ["a%01b", "x%E2%80%AEy", String(repeating: "s", count: 129)] {
                let response = try await Self.get(address, "/v1/subjects/\(subject)/fhir", token: nil)
                #expect(response.status == 400, "\(subject)")
            }
            // What is refused elsewhere is taken here: an equal from and to is an empty window.
            let empty = try await Self.get(
                address, "/v1/subjects/q/fhir?from=2026-01-01&to=2026-01-01&limit=500&type=collection", token: nil)
            #expect(try Self.observations(empty).isEmpty)
        }
    }

    @Test func theSubjectSystemFollowsTheFlag() async throws {
        let template = "https://records.example/{tenant}/patients"
        let system: (inout ServerOptions) -> Void = { $0.fhir.subjectSystem = template }
        try await withMotionServer(tokens: "cccccccccccccccc3 clinic/ä\n", configure: system) { address, _, _ in
            let id = try #require(
                try await Self.analyze(address, subject: "p", token: "cccccccccccccccc3")["id"] as? String)
            let observation = try #require(
                try Self.observations(
                    try await Self.get(address, "/v1/sessions/\(id)/fhir", token: "cccccccccccccccc3")
                ).first)
            let identifier = (observation["subject"] as? [String: Any])?["identifier"] as? [String: String]
            #expect(identifier?["system"] == "https://records.example/clinic%2F%C3%A4/patients")
        }
    }
}

extension MotionServerTests {
    /// `POST /v1/sessions/{id}/stop`: the status.
    static func requestStop(_ address: SocketAddress, _ id: String) async throws -> Int? {
        try await request(address, "POST", "/v1/sessions/\(id)/stop")?.status
    }
}
