import Foundation
import HTTPServer
import MotionCore
import MotionServer
import MotionSimulation
import MotionWire
import NetworkTestSupport
import Testing

/// The exercise endpoints (docs/protocol.md §5.1) against the real server: custom exercises per tenant with every
/// version kept, their refusals, and sessions started with them over WebSocket and HTTP.
@Suite("Custom exercises over REST")
struct ExerciseRoutesTests {
    static let tokens = """
        alice-token-0123456789 alice
        bob-token-0123456789ab bob
        """
    static let alice = "alice-token-0123456789"
    static let bob = "bob-token-0123456789ab"

    /// An elbow curl of our own: counted from 25° up to 55° and back to 35°.
    static func curl(id: String = "curl", enter: Double = 55, extra: String = "") -> String {
        #"{"id":"\#(id)","name":"Curl","view":"sagittal","kind":"rep","#
            + #""measurement":{"type":"flexion","joints":["shoulder","elbow","wrist"]},"#
            + #""thresholds":{"rest":25,"enter":\#(enter),"exit":35,"minAmplitude":20},"target":120\#(extra)}"#
    }

    static func json(_ response: TestResponse?) -> [String: Any]? {
        response.flatMap { (try? JSONSerialization.jsonObject(with: Data($0.body))) as? [String: Any] }
    }

    static func error(_ response: TestResponse?) -> [String: Any]? { json(response)?["error"] as? [String: Any] }

    @Test func createsListsUpdatesAndDeletesKeepingEveryVersion() async throws {
        try await withMotionServer { address, _, _ in
            let created = try #require(try await request(address, "POST", "/v1/exercises", body: Self.curl()))
            #expect(created.status == 201, "\(created.text)")
            #expect(created.header("Location") == "/v1/exercises/curl")
            let body = try #require(Self.json(created))
            #expect(body["version"] as? Int == 1)
            #expect(body["builtin"] as? Bool == false)
            #expect(body["unit"] as? String == "degrees")
            #expect(body["joints"] as? [String] == ["shoulder", "elbow", "wrist"])
            #expect((body["thresholds"] as? [String: Any])?["holdTolerance"] as? Double == 5)

            let one = try #require(try await request(address, "GET", "/v1/exercises/curl"))
            #expect(one.status == 200)
            #expect(one.body == created.body, "GET shows exactly what POST answered")
            let list = try #require(Self.json(try await request(address, "GET", "/v1/exercises")))
            let ids = (list["exercises"] as? [[String: Any]])?.compactMap { $0["id"] as? String }
            #expect(ids == Exercise.catalog.map(\.id) + ["curl"], "built-ins first, then the tenant's own")

            let updated = try #require(
                try await request(address, "PUT", "/v1/exercises/curl", body: Self.curl(enter: 60)))
            #expect(updated.status == 200, "\(updated.text)")
            #expect(Self.json(updated)?["version"] as? Int == 2)
            let again = try #require(
                try await request(address, "PUT", "/v1/exercises/curl", body: Self.curl(enter: 60)))
            #expect(again.body == updated.body, "an unchanged definition stores no new version")
            let withoutID = Self.curl(enter: 61).replacingOccurrences(of: #""id":"curl","#, with: "")
            let third = try await request(address, "PUT", "/v1/exercises/curl", body: withoutID)
            #expect(Self.json(third)?["version"] as? Int == 3, "the path gives the id")

            let first = Self.json(try await request(address, "GET", "/v1/exercises/curl/versions/1"))
            #expect((first?["thresholds"] as? [String: Any])?["enter"] as? Double == 55)
            #expect(first?["version"] as? Int == 1)
            #expect(Self.json(try await request(address, "GET", "/v1/exercises/curl"))?["version"] as? Int == 3)

            let deleted = try #require(try await request(address, "DELETE", "/v1/exercises/curl"))
            #expect(deleted.status == 204)
            #expect(try await request(address, "GET", "/v1/exercises/curl")?.status == 404)
            #expect(try await request(address, "DELETE", "/v1/exercises/curl")?.status == 404)
            #expect(try await request(address, "PUT", "/v1/exercises/curl", body: Self.curl())?.status == 404)
            let kept = try #require(try await request(address, "GET", "/v1/exercises/curl/versions/2"))
            #expect(kept.status == 200, "a deleted exercise's versions stay readable")
            #expect(kept.body == updated.body)
            #expect(try await request(address, "GET", "/v1/exercises/curl/versions/4")?.status == 404)
            let listed = Self.json(try await request(address, "GET", "/v1/exercises"))?["exercises"] as? [Any]
            #expect(listed?.count == Exercise.catalog.count)

            let recreated = try await request(address, "POST", "/v1/exercises", body: Self.curl())
            #expect(recreated?.status == 201)
            #expect(Self.json(recreated)?["version"] as? Int == 4, "versions number on after a delete")
        }
    }

    @Test func refusesTakenIDsAndChangesToBuiltIns() async throws {
        try await withMotionServer { address, _, _ in
            let builtin = try await request(address, "POST", "/v1/exercises", body: Self.curl(id: "squat"))
            #expect(builtin?.status == 409)
            #expect(Self.error(builtin)?["code"] as? String == "exerciseExists")
            #expect(try await request(address, "POST", "/v1/exercises", body: Self.curl())?.status == 201)
            let twice = try await request(address, "POST", "/v1/exercises", body: Self.curl())
            #expect(twice?.status == 409)
            #expect(Self.error(twice)?["code"] as? String == "exerciseExists")
            for (method, body) in [("PUT", Self.curl(id: "squat")), ("DELETE", "")] {
                let response = try await request(address, method, "/v1/exercises/squat", body: body)
                #expect(response?.status == 409, "\(method)")
                #expect(Self.error(response)?["code"] as? String == "builtinExercise")
            }
            #expect(try await request(address, "GET", "/v1/exercises/squat/versions/1")?.status == 200)
            #expect(try await request(address, "GET", "/v1/exercises/squat/versions/2")?.status == 404)
            let unknown = try await request(address, "PUT", "/v1/exercises/nothing", body: Self.curl(id: "nothing"))
            #expect(unknown?.status == 404)
            #expect(Self.error(unknown)?["code"] as? String == "unknownExercise")
            // The refusals are answers, not a failing store.
            #expect(try await request(address, "GET", "/readyz")?.status == 200)
        }
    }

    /// Ids are unique without regard to case: beside a built-in, beside the tenant's own (whichever spelling came
    /// first), never across tenants; a deleted exercise frees its id in every case.
    @Test func idsAreUniqueWithoutRegardToCase() async throws {
        try await withMotionServer(tokens: Self.tokens) { address, _, _ in
            func create(_ id: String, _ token: String = Self.alice) async throws -> TestResponse? {
                try await request(address, "POST", "/v1/exercises", token: token, body: Self.curl(id: id))
            }
            for id in ["ElbowFlexion", "ELBOWFLEXION", "elbowflexion", "Squat"] {
                let response = try await create(id)
                #expect(response?.status == 409, "\(id)")
                #expect(Self.error(response)?["code"] as? String == "exerciseExists")
                let message = Self.error(response)?["message"] as? String ?? ""
                #expect(message.contains("'\(id.lowercased() == "squat" ? "squat" : "elbowFlexion")'"), "\(message)")
            }
            #expect(try await create("kneeBend")?.status == 201)
            for id in ["KneeBend", "KNEEBEND", "kneebend"] {
                let response = try await create(id)
                #expect(response?.status == 409, "\(id)")
                #expect(Self.error(response)?["code"] as? String == "exerciseExists")
                #expect((Self.error(response)?["message"] as? String)?.contains("PUT /v1/exercises/kneeBend") == true)
            }
            #expect(try await create("KneeBend", Self.bob)?.status == 201, "another tenant's ids are its own")
            #expect(try await request(address, "GET", "/v1/exercises/KneeBend", token: Self.alice)?.status == 404)
            #expect(try await request(address, "DELETE", "/v1/exercises/kneeBend", token: Self.alice)?.status == 204)
            #expect(try await create("KNEEBEND")?.status == 201)
            let list = Self.json(try await request(address, "GET", "/v1/exercises", token: Self.alice))
            let ids = (list?["exercises"] as? [[String: Any]])?.compactMap { $0["id"] as? String } ?? []
            #expect(ids.filter { $0.lowercased() == "kneebend" } == ["KNEEBEND"])
        }
    }

    /// A name is refused as a subject is: bidirectional controls (U+202E would show `Knee bend` reversed, hiding
    /// what follows), C1 controls, line separators; 422 at `/name`.
    @Test(arguments: [
        #"Curl\u202Eevil"#, "Curl\u{202E}evil", #"Curl\u2067x\u2069"#, #"Curl\u200Fx"#, #"Curl\u0085x"#,
        "Curl\u{9B}x", #"Curl\u2029x"#,
    ])
    func refusesANameWithBidirectionalOrC1Controls(_ name: String) async throws {
        try await withMotionServer { address, _, _ in
            let body = Self.curl().replacingOccurrences(of: #""name":"Curl""#, with: #""name":"\#(name)""#)
            #expect(body != Self.curl())
            let preview = #"{"exercise":\#(body),"side":"left","frames":[]}"#
            for (path, body) in [("/v1/exercises", body), ("/v1/exercises/preview", preview)] {
                let response = try await request(address, "POST", path, body: body)
                #expect(response?.status == 422, "\(path)")
                #expect((Self.error(response)?["pointer"] as? String)?.hasSuffix("/name") == true, "\(path)")
            }
            #expect(try await request(address, "GET", "/v1/exercises/curl")?.status == 404, "nothing stored")
        }
    }

    @Test(arguments: [
        (curl(extra: #","colour":"red""#), 422, "invalidExercise", "/colour" as String?),
        (curl(enter: 30), 422, "invalidExercise", "/thresholds/enter"),
        (
            curl().replacingOccurrences(of: "\"elbow\"", with: "\"wing\""), 422, "invalidExercise",
            "/measurement/joints/1"
        ),
        (
            curl().replacingOccurrences(of: #""target":120"#, with: #""target":"120""#), 422, "invalidExercise",
            "/target"
        ),
        (curl().replacingOccurrences(of: #","target":120"#, with: ""), 422, "invalidExercise", "/target"),
        (curl().replacingOccurrences(of: #""target":120"#, with: #""target":200"#), 422, "invalidExercise", "/target"),
        ("[1,2]", 422, "invalidExercise", ""),
        (#"{"id":"curl","#, 400, "invalidJSON", nil),
        ("", 400, "invalidJSON", nil),
        (curl() + String(repeating: " ", count: 16_384), 413, "messageTooBig", nil),
    ])
    func refusesBadDefinitionsWithTheirPointer(
        _ body: String, _ status: Int, _ code: String, _ pointer: String?
    ) async throws {
        try await withMotionServer { address, _, _ in
            for (method, path) in [("POST", "/v1/exercises"), ("PUT", "/v1/exercises/curl")] {
                if method == "PUT" {
                    #expect(try await request(address, "POST", "/v1/exercises", body: Self.curl())?.status == 201)
                }
                let response = try #require(try await request(address, method, path, body: body))
                #expect(response.status == status, "\(method): \(response.text)")
                let error = Self.error(response)
                #expect(error?["code"] as? String == code)
                #expect(error?["pointer"] as? String == pointer, "\(method): \(response.text)")
            }
            #expect(Self.json(try await request(address, "GET", "/v1/exercises/curl"))?["version"] as? Int == 1)
        }
    }

    @Test func refusesABodyIDThatIsNotThePathsAndAnotherMediaType() async throws {
        try await withMotionServer { address, _, _ in
            #expect(try await request(address, "POST", "/v1/exercises", body: Self.curl())?.status == 201)
            let other = try await request(address, "PUT", "/v1/exercises/curl", body: Self.curl(id: "curl2"))
            #expect(other?.status == 422)
            #expect(Self.error(other)?["pointer"] as? String == "/id")
            let text = try await request(
                address, "POST", "/v1/exercises", headers: "Content-Type: text/plain\r\n", body: Self.curl(id: "b"))
            #expect(text?.status == 415)
        }
    }

    @Test func keepsTenantsApart() async throws {
        try await withMotionServer(tokens: Self.tokens) { address, _, _ in
            let created = try await request(address, "POST", "/v1/exercises", token: Self.alice, body: Self.curl())
            #expect(created?.status == 201)
            let mine = try await request(address, "GET", "/v1/exercises/curl", token: Self.alice)
            #expect(mine?.status == 200)
            for (method, path, body) in [
                ("GET", "/v1/exercises/curl", ""), ("GET", "/v1/exercises/curl/versions/1", ""),
                ("PUT", "/v1/exercises/curl", Self.curl()), ("DELETE", "/v1/exercises/curl", ""),
            ] {
                let theirs = try await request(address, method, path, token: Self.bob, body: body)
                let unknown = try await request(
                    address, method, path.replacingOccurrences(of: "curl", with: "lruc"), token: Self.bob,
                    body: body.replacingOccurrences(of: "curl", with: "lruc"))
                #expect(theirs?.status == 404, "\(method) \(path)")
                #expect(
                    theirs?.text == unknown?.text.replacingOccurrences(of: "lruc", with: "curl"),
                    "another tenant's exercise answers as an unknown one")
            }
            let list = Self.json(try await request(address, "GET", "/v1/exercises", token: Self.bob))
            #expect((list?["exercises"] as? [Any])?.count == Exercise.catalog.count)
            let own = try await request(address, "POST", "/v1/exercises", token: Self.bob, body: Self.curl(enter: 70))
            #expect(own?.status == 201, "bob has ids of his own")
            #expect(Self.json(own)?["version"] as? Int == 1)
            let still = Self.json(try await request(address, "GET", "/v1/exercises/curl", token: Self.alice))
            #expect((still?["thresholds"] as? [String: Any])?["enter"] as? Double == 55)
            #expect(try await request(address, "GET", "/v1/exercises/curl")?.status == 401)
            #expect(try await request(address, "POST", "/v1/exercises", body: Self.curl(id: "x"))?.status == 401)
        }
    }

    @Test func servesTheInputFormatMapsToEveryTenant() async throws {
        var expected: [UInt8] = []
        WireEncoder.encodeFormats(into: &expected)
        try await withMotionServer(tokens: Self.tokens) { address, _, _ in
            for token in [Self.alice, Self.bob] {
                let formats = try #require(try await request(address, "GET", "/v1/formats", token: token))
                #expect(formats.status == 200)
                #expect(formats.header("Content-Type")?.hasPrefix("application/json") == true)
                #expect(formats.body == expected)
            }
            #expect(try await request(address, "GET", "/v1/formats")?.status == 401)
            #expect(try await request(address, "POST", "/v1/formats", token: Self.alice, body: "{}")?.status == 405)
            #expect(try await request(address, "GET", "/v1/formats/coco", token: Self.alice)?.status == 404)
        }
    }

    @Test func previewsADraftOnFramesAndStoresNothing() async throws {
        let draft = try ExerciseDefinition.decode(Array(Self.curl().utf8))
        let poses = Simulation(exercise: draft, side: .left, reps: [.init(peak: 100), .init(peak: 95)]).poses()
        let frames = poses.map { poseMessage($0).replacingOccurrences(of: #""type":"pose","#, with: "") }
            .joined(separator: ",")
        func body(_ definition: String, side: String = #""left""#) -> String {
            #"{"exercise":\#(definition),"side":\#(side),"frames":[\#(frames)]}"#
        }
        try await withMotionServer(tokens: Self.tokens) { address, _, _ in
            let preview = try #require(
                try await request(address, "POST", "/v1/exercises/preview", token: Self.alice, body: body(Self.curl())))
            #expect(preview.status == 200, "\(preview.text)")
            let answer = try #require(Self.json(preview))
            #expect((answer["exercise"] as? [String: Any])?["id"] as? String == "curl")
            #expect((answer["snapshot"] as? [String: Any])?["repCount"] as? Int == 2)
            let reps = (answer["events"] as? [[String: Any]])?.filter { $0["event"] as? String == "repCompleted" }
            #expect(reps?.count == 2)
            // A higher entry threshold than either peak: the same frames count nothing.
            let strict = try await request(
                address, "POST", "/v1/exercises/preview", token: Self.alice, body: body(Self.curl(enter: 110)))
            #expect((Self.json(strict)?["snapshot"] as? [String: Any])?["repCount"] as? Int == 0)
            // Nothing was stored: no session, no exercise.
            let sessions = Self.json(try await request(address, "GET", "/v1/sessions", token: Self.alice))
            #expect((sessions?["sessions"] as? [Any])?.isEmpty == true)
            #expect(try await request(address, "GET", "/v1/exercises/curl", token: Self.alice)?.status == 404)

            let refusals: [(String, Int, String, String?)] = [
                (body(Self.curl(enter: 20)), 422, "invalidExercise", "/exercise/thresholds"),
                (body(#""curl""#), 422, "invalidExercise", "/exercise"),
                (#"{"side":"left","frames":[]}"#, 400, "invalidMessage", nil),
                (body(Self.curl(), side: #""up""#), 400, "invalidMessage", nil),
                (body(Self.curl(), side: "null"), 400, "missingSide", nil),
                (#"{"exercise":\#(Self.curl()),"exercise":\#(Self.curl())}"#, 400, "invalidMessage", nil),
                (#"{"exercise":\#(Self.curl()),"subject":"x"}"#, 400, "invalidMessage", nil),
                (#"{"exercise":\#(Self.curl()),"side":"left","frames":[{"t":1,"points":"#, 400, "invalidJSON", nil),
                ("[]", 400, "invalidMessage", nil),
            ]
            for (text, status, code, pointer) in refusals {
                let refused = try await request(address, "POST", "/v1/exercises/preview", token: Self.alice, body: text)
                #expect(refused?.status == status, "\(text.prefix(80)): \(refused?.text ?? "")")
                #expect(Self.error(refused)?["code"] as? String == code, "\(text.prefix(80))")
                if let pointer {
                    #expect(
                        (Self.error(refused)?["pointer"] as? String)?.hasPrefix(pointer) == true,
                        "\(refused?.text ?? "")")
                }
            }
            #expect(try await request(address, "POST", "/v1/exercises/preview", body: body(Self.curl()))?.status == 401)
        }
    }

    @Test func refusesExercisesBeyondTheTenantsLimit() async throws {
        var limits = ExerciseLimits()
        limits.maxExercisesPerTenant = 2
        try await withMotionServer(tokens: Self.tokens, exercises: limits) { address, _, _ in
            for id in ["a", "b"] {
                let response = try await request(
                    address, "POST", "/v1/exercises", token: Self.alice, body: Self.curl(id: id))
                #expect(response?.status == 201)
            }
            let third = try await request(address, "POST", "/v1/exercises", token: Self.alice, body: Self.curl(id: "c"))
            #expect(third?.status == 409)
            #expect(Self.error(third)?["code"] as? String == "tooManyExercises")
            #expect(
                try await request(address, "POST", "/v1/exercises", token: Self.bob, body: Self.curl(id: "c"))?.status
                    == 201)
            #expect(try await request(address, "DELETE", "/v1/exercises/a", token: Self.alice)?.status == 204)
            #expect(
                try await request(address, "POST", "/v1/exercises", token: Self.alice, body: Self.curl(id: "c"))?.status
                    == 201)
        }
    }

    @Test func refusesVersionsBeyondTheTenantsLimit() async throws {
        var limits = ExerciseLimits()
        limits.maxVersionsPerTenant = 3
        try await withMotionServer(exercises: limits) { address, _, _ in
            #expect(try await request(address, "POST", "/v1/exercises", body: Self.curl())?.status == 201)
            #expect(try await request(address, "PUT", "/v1/exercises/curl", body: Self.curl(enter: 60))?.status == 200)
            #expect(try await request(address, "DELETE", "/v1/exercises/curl")?.status == 204)
            #expect(try await request(address, "POST", "/v1/exercises", body: Self.curl())?.status == 201)
            let full = try await request(address, "PUT", "/v1/exercises/curl", body: Self.curl(enter: 61))
            #expect(full?.status == 409)
            #expect(Self.error(full)?["code"] as? String == "tooManyVersions")
        }
    }

    @Test func aRestartedServerFindsTheStoredExercises() async throws {
        let directory = NSTemporaryDirectory() + "motion-restart-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = directory + "/motion.sqlite"
        try await withMotionServer(tokens: Self.tokens, database: database) { address, _, _ in
            _ = try await request(address, "POST", "/v1/exercises", token: Self.alice, body: Self.curl())
            _ = try await request(address, "PUT", "/v1/exercises/curl", token: Self.alice, body: Self.curl(enter: 60))
            _ = try await request(address, "POST", "/v1/exercises", token: Self.bob, body: Self.curl(id: "gone"))
            _ = try await request(address, "DELETE", "/v1/exercises/gone", token: Self.bob)
        }
        try await withMotionServer(tokens: Self.tokens, database: database) { address, _, _ in
            let curl = Self.json(try await request(address, "GET", "/v1/exercises/curl", token: Self.alice))
            #expect(curl?["version"] as? Int == 2)
            #expect((curl?["thresholds"] as? [String: Any])?["enter"] as? Double == 60)
            #expect(try await request(address, "GET", "/v1/exercises/gone", token: Self.bob)?.status == 404)
            #expect(try await request(address, "GET", "/v1/exercises/gone/versions/1", token: Self.bob)?.status == 200)
            let next = try await request(
                address, "PUT", "/v1/exercises/curl", token: Self.alice, body: Self.curl(enter: 65))
            #expect(Self.json(next)?["version"] as? Int == 3)
        }
    }

    // MARK: Sessions with custom exercises

    @Test func aLiveSessionCountsWithACustomExerciseAndKeepsTheVersionItStartedWith() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        try await withMotionServer(tokens: Self.tokens) { address, _, _ in
            _ = try await request(address, "POST", "/v1/exercises", token: Self.alice, body: Self.curl())
            let (socket, inbox) = try await MotionServerTests.connect(
                address, headers: ["Authorization": "Bearer \(Self.alice)"], group: group)
            socket.send(.text(#"{"type":"start","exercise":"curl","side":"right","options":{"snapshots":"off"}}"#))
            await inbox.wait { $0.messages.count >= 1 }
            let started = try #require(inbox.objects().first)
            #expect(started["type"] as? String == "started", "\(started)")
            let exercise = try #require(started["exercise"] as? [String: Any])
            #expect(exercise["id"] as? String == "curl")
            #expect(exercise["version"] as? Int == 1)
            #expect(exercise["builtin"] as? Bool == false)

            // Changed, then deleted mid-session: the session keeps the definition it started with.
            let stricter = try await request(
                address, "PUT", "/v1/exercises/curl", token: Self.alice, body: Self.curl(enter: 115))
            #expect(Self.json(stricter)?["version"] as? Int == 2)
            #expect(try await request(address, "DELETE", "/v1/exercises/curl", token: Self.alice)?.status == 204)

            let exerciseV1 = try ExerciseDefinition.decode(Array(Self.curl().utf8))
            var simulation = Simulation(exercise: exerciseV1, side: .right, reps: [.init(peak: 100), .init(peak: 90)])
            simulation.noise = 1
            for pose in simulation.poses() { socket.send(.text(poseMessage(pose))) }
            socket.send(.text(#"{"type":"stop"}"#))
            await inbox.wait { $0.close != nil }
            let objects = inbox.objects()
            #expect(objects.filter { $0["event"] as? String == "repCompleted" }.count == 2)
            let summary = try #require(objects.last { $0["type"] as? String == "summary" })
            #expect(summary["repCount"] as? Int == 2)
            #expect(summary["exercise"] as? String == "curl")
        }
    }

    @Test func httpSessionsAndAnalysisStartWithACustomExerciseOfTheirTenantOnly() async throws {
        try await withMotionServer(tokens: Self.tokens) { address, _, _ in
            _ = try await request(address, "POST", "/v1/exercises", token: Self.alice, body: Self.curl())
            let exercise = try ExerciseDefinition.decode(Array(Self.curl().utf8))
            let poses = Simulation(exercise: exercise, side: .left, reps: [.init(peak: 100), .init(peak: 95)]).poses()
            let frames = poses.map { poseMessage($0).replacingOccurrences(of: #""type":"pose","#, with: "") }
            let analyze = #"{"exercise":"curl","side":"left","frames":[\#(frames.joined(separator: ","))]}"#
            let analysis = try await request(address, "POST", "/v1/analyze", token: Self.alice, body: analyze)
            #expect(analysis?.status == 200, "\(analysis?.text ?? "")")
            #expect((Self.json(analysis)?["summary"] as? [String: Any])?["repCount"] as? Int == 2)

            let start = #"{"exercise":"curl","side":"left"}"#
            let created = try await request(address, "POST", "/v1/sessions", token: Self.alice, body: start)
            #expect(created?.status == 201)
            for token in [Self.bob] {
                let refused = try await request(address, "POST", "/v1/sessions", token: token, body: start)
                #expect(refused?.status == 400)
                #expect(Self.error(refused)?["code"] as? String == "unknownExercise")
                let notTheirs = try await request(address, "POST", "/v1/analyze", token: token, body: analyze)
                #expect(Self.error(notTheirs)?["code"] as? String == "unknownExercise")
            }
        }
    }
}
