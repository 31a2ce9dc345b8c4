import Foundation
import HTTPServer
import MotionCore
import MotionServer
import MotionSimulation
import MotionWire
import NetworkTestSupport
import Testing

/// `GET /v1/exercises/{id}/demo` and `POST /v1/exercises/demo` (docs/protocol.md §5.1): the simulated person the
/// Demo source plays, for any current exercise of the caller's and for a draft, and their refusals.
@Suite("Demo performances over REST")
struct DemoRoutesTests {
    static func json(_ response: TestResponse?) -> [String: Any]? { ExerciseRoutesTests.json(response) }

    @Test func aBuiltInsPerformanceIsTheSimulationsFramesAndActs() async throws {
        try await withMotionServer { address, _, _ in
            let response = try #require(try await request(address, "GET", "/v1/exercises/sitToStand/demo?side=left"))
            #expect(response.status == 200, "\(response.text)")
            #expect(response.header("Content-Type") == "application/json")
            let body = try #require(Self.json(response))
            let simulation = Simulation.demo(of: .sitToStand, side: .left)
            #expect(body["exercise"] as? String == "sitToStand")
            #expect(body["side"] as? String == "left")
            let duration = try #require(body["duration"] as? Double)
            #expect(abs(duration - simulation.duration) < 1e-9)
            let frames = try #require(body["frames"] as? [[String: Any]])
            #expect(frames.count == simulation.poses().count)
            #expect(frames.first?["type"] as? String == "pose" && frames.first?["t"] as? Double == 0)
            #expect(frames.contains { ($0["points"] as? [String: Any])?.isEmpty == true }, "out of frame a moment")
            let acted = try #require(body["acted"] as? [[String: Any]])
            #expect(acted.count == Simulation.demoReps)
            #expect(acted.filter { !(($0["faults"] as? [String]) ?? []).isEmpty }.count == 2)
        }
    }

    @Test func playedToTheServerTheDemoCountsItsCleanReps() async throws {
        try await withMotionServer { address, _, _ in
            let body = try #require(Self.json(try await request(address, "GET", "/v1/exercises/heelRaise/demo")))
            let frames = try #require(body["frames"] as? [[String: Any]])
            let recording: [String: Any] = ["exercise": "heelRaise", "frames": frames]
            let text = String(decoding: try JSONSerialization.data(withJSONObject: recording), as: UTF8.self)
            let started = try #require(try await request(address, "POST", "/v1/analyze", body: text))
            #expect(started.status == 200, "\(started.text)")
            let summary = try #require(Self.json(started)?["summary"] as? [String: Any])
            // Its one fault, a bent knee, is acted in the second and the fifth raise.
            #expect(summary["repCount"] as? Int == Simulation.demoReps - 2)
            #expect(summary["rejectedCount"] as? Int == 2)
        }
    }

    @Test func aCustomExerciseIsItsTenantsAlone() async throws {
        try await withMotionServer(tokens: ExerciseRoutesTests.tokens) { address, _, _ in
            let alice = ExerciseRoutesTests.alice
            let created = try await request(
                address, "POST", "/v1/exercises", token: alice, body: ExerciseRoutesTests.curl())
            #expect(created?.status == 201)
            let mine = try await request(address, "GET", "/v1/exercises/curl/demo", token: alice)
            #expect(mine?.status == 200)
            #expect(Self.json(mine)?["exercise"] as? String == "curl")
            let theirs = try await request(address, "GET", "/v1/exercises/curl/demo", token: ExerciseRoutesTests.bob)
            #expect(theirs?.status == 404, "another tenant's exercise is unknown")
            #expect(try await request(address, "GET", "/v1/exercises/curl/demo")?.status == 401)
        }
    }

    @Test(arguments: ["up", "LEFT", "", "right,left", String(repeating: "l", count: 5000)])
    func refusesAnUnknownSide(side: String) async throws {
        try await withMotionServer { address, _, _ in
            let response = try await request(address, "GET", "/v1/exercises/squat/demo?side=\(side)")
            #expect(response?.status == 400)
            #expect(ExerciseRoutesTests.error(response)?["code"] as? String == "invalidQuery")
        }
    }

    @Test func refusesANulInTheSideBeforeTheRoute() async throws {
        try await withMotionServer { address, _, _ in
            let response = try await request(address, "GET", "/v1/exercises/squat/demo?side=left%00")
            #expect(response?.status == 400)
        }
    }

    @Test func aDraftIsCheckedAsAPreviewChecksIt() async throws {
        try await withMotionServer { address, _, _ in
            let draft = #"{"exercise":\#(ExerciseRoutesTests.curl(id: "draft")),"side":"right"}"#
            let played = try await request(address, "POST", "/v1/exercises/demo", body: draft)
            #expect(played?.status == 200)
            #expect(Self.json(played)?["exercise"] as? String == "draft")
            #expect(try await request(address, "GET", "/v1/exercises/draft")?.status == 404, "nothing is stored")

            let unnamed = ExerciseRoutesTests.curl(id: "draft").replacingOccurrences(of: #""name":"Curl","#, with: "")
            let refused = try await request(address, "POST", "/v1/exercises/demo", body: #"{"exercise":\#(unnamed)}"#)
            #expect(refused?.status == 422)
            #expect(ExerciseRoutesTests.error(refused)?["pointer"] as? String == "/exercise/name")
            for body in ["", "{", "[]", #"{"side":"right"}"#, #"{"exercise":{"id":"x"},"side":"up"}"#] {
                let bad = try await request(address, "POST", "/v1/exercises/demo", body: body)
                #expect([400, 422].contains(bad?.status ?? 0), "\(body): \(bad?.status ?? 0)")
            }
            let padding = #","pad":""# + String(repeating: "a", count: 40_000) + "\""
            let huge = #"{"exercise":\#(ExerciseRoutesTests.curl(id: "draft", extra: padding))}"#
            #expect(try await request(address, "POST", "/v1/exercises/demo", body: huge)?.status == 413)
        }
    }
}
