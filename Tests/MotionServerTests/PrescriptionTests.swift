import Foundation
import HTTPServer
import MotionCore
import MotionServer
import MotionSimulation
import NetworkTestSupport
import Testing

/// Prescriptions in `start.options` and the summaries and progress of docs/protocol.md §5.2, through the real server:
/// WebSocket and REST on 127.0.0.1, a real SQLite file.
@Suite("Prescriptions, v2 summaries and progress")
struct PrescriptionTests {
    /// A `POST /v1/analyze` body of `poses` in the joints format.
    static func analyzeBody(
        exercise: String, side: String? = "right", subject: String? = nil, options: String? = nil, poses: [Pose]
    ) -> String {
        var members = [#""exercise":"\#(exercise)""#]
        if let side { members.append(#""side":"\#(side)""#) }
        if let subject { members.append(#""subject":"\#(subject)""#) }
        if let options { members.append(#""options":\#(options)"#) }
        members.append(#""frames":[\#(poses.map(poseMessage).joined(separator: ","))]"#)
        return "{" + members.joined(separator: ",") + "}"
    }

    static func post(
        _ address: SocketAddress, _ path: String, _ body: String, token: String? = nil
    ) async throws -> (status: Int, json: [String: Any]?) {
        let response = try #require(try await request(address, "POST", path, token: token, body: body))
        return (response.status, MotionServerTests.json(response))
    }

    /// A patient whose arm reaches 55° of abduction, three times.
    static let weakAbduction = Simulation(
        exercise: .shoulderAbduction, side: .right, reps: [.init(peak: 55), .init(peak: 55), .init(peak: 55)]
    ).poses()

    @Test func aLowTargetCountsRepsTheDefaultDoesNot() async throws {
        try await withMotionServer { address, _, _ in
            let plain = try await Self.post(
                address, "/v1/analyze", Self.analyzeBody(exercise: "shoulderAbduction", poses: Self.weakAbduction))
            #expect(plain.status == 200)
            let plainSummary = try #require(plain.json?["summary"] as? [String: Any])
            #expect(plainSummary["repCount"] as? Int == 0, "the default enters a rep at 70°")
            let defaults = try #require(plainSummary["prescription"] as? [String: Any])
            #expect(defaults["target"] as? Double == 180 && defaults["enter"] as? Double == 70)
            #expect(defaults["reps"] is NSNull && defaults["holdSeconds"] is NSNull)

            let prescribed = try await Self.post(
                address, "/v1/analyze",
                Self.analyzeBody(
                    exercise: "shoulderAbduction", options: #"{"target":50}"#, poses: Self.weakAbduction))
            #expect(prescribed.status == 200)
            let summary = try #require(prescribed.json?["summary"] as? [String: Any])
            #expect(summary["repCount"] as? Int == 3, "\(summary)")
            #expect(summary["exerciseVersion"] as? Int == Exercise.shoulderAbduction.version)
            let prescription = try #require(summary["prescription"] as? [String: Any])
            #expect(prescription["target"] as? Double == 50)
            #expect(prescription["rest"] as? Double == 30)
            #expect(abs((prescription["enter"] as? Double ?? 0) - (30 + 40.0 * 20 / 150)) < 1e-9)
            #expect(abs((prescription["exit"] as? Double ?? 0) - 32) < 1e-9)
            #expect(summary["perSide"] is NSNull)
            let reps = try #require(summary["reps"] as? [[String: Any]])
            for rep in reps {
                let peak = try #require(rep["peak"] as? Double)
                let trough = try #require(rep["trough"] as? Double)
                #expect(abs(peak - 55) < 3, "\(rep)")
                #expect(abs((rep["range"] as? Double ?? 0) - abs(peak - trough)) < 1e-9)
                let timeToPeak = try #require(rep["timeToPeak"] as? Double)
                #expect(timeToPeak > 0 && timeToPeak < (rep["duration"] as? Double ?? 0), "\(rep)")
                #expect(rep["side"] is NSNull)
            }

            // Stored as answered: the summary and the CSV.
            let id = try #require(summary["id"] as? String)
            let stored = try #require(
                MotionServerTests.json(try await MotionServerTests.get(address, "/v1/sessions/\(id)")))
            #expect(NSDictionary(dictionary: stored) == NSDictionary(dictionary: summary))
            let csv = try #require(try await MotionServerTests.get(address, "/v1/sessions/\(id)?format=csv")).text
            let lines = csv.split(separator: "\r\n")
            let header =
                "index,peak,trough,start,end,duration,clean,faults,range,timeToPeak,side,smoothness,tremor,held"
            #expect(lines.first.map(String.init) == header)
            #expect(lines.count == 4)
            // No motion samples and no holds: the last three columns are empty.
            #expect(
                lines.dropFirst().allSatisfy {
                    let fields = $0.split(separator: ",", omittingEmptySubsequences: false)
                    return fields.count == 14 && fields.suffix(3).allSatisfy(\.isEmpty)
                })
        }
    }

    @Test func aRepGoalGivesSetProgressAndSetCompletedEvents() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        try await withMotionServer { address, _, _ in
            let (socket, inbox) = try await MotionServerTests.connect(address, group: group)
            socket.send(
                .text(
                    #"{"type":"start","exercise":"elbowFlexion","side":"right","options":{"reps":2,"sets":2}}"#))
            let poses = Simulation(
                exercise: .elbowFlexion, side: .right, reps: (0..<5).map { _ in .init(peak: 130) }
            ).poses()
            for pose in poses { socket.send(.text(poseMessage(pose))) }
            socket.send(.text(#"{"type":"stop"}"#))
            await inbox.wait { $0.close != nil }
            let objects = inbox.objects()
            let completed = objects.filter { $0["event"] as? String == "repCompleted" }
            #expect(completed.count == 5)
            let sets = objects.filter { $0["event"] as? String == "setCompleted" }
            #expect(sets.map { $0["set"] as? Int } == [1, 2])
            // Each setCompleted follows the repCompleted that finished the set, at the same pose.
            for set in sets {
                let index = try #require(objects.firstIndex { NSDictionary(dictionary: $0).isEqual(to: set) })
                #expect(objects[index - 1]["event"] as? String == "repCompleted")
                #expect(objects[index - 1]["t"] as? Double == set["t"] as? Double)
            }
            let snapshots = objects.filter { $0["type"] as? String == "snapshot" }
            let first = try #require(snapshots.first?["set"] as? [String: Any])
            #expect(first["number"] as? Int == 1 && first["of"] as? Int == 2 && first["goal"] as? Int == 2)
            #expect(first["reps"] as? Int == 0 && first["complete"] as? Bool == false)
            let last = try #require(snapshots.last?["set"] as? [String: Any])
            #expect(last["number"] as? Int == 2 && last["complete"] as? Bool == true, "\(last)")
            #expect(snapshots.allSatisfy { $0["side"] is NSNull })
            let summary = try #require(objects.last { $0["type"] as? String == "summary" })
            let prescription = try #require(summary["prescription"] as? [String: Any])
            #expect(prescription["reps"] as? Int == 2 && prescription["sets"] as? Int == 2)
            #expect(prescription["target"] as? Double == 150)
        }
    }

    /// Options the decoder takes but the exercise cannot use, and options the decoder refuses, on every way in.
    static let refused: [(options: String, says: String)] = [
        (#"{"enter":35,"exit":40}"#, "thresholds.enter must be above exit"),
        (#"{"rest":50,"exit":40}"#, "thresholds.exit must be ≥ rest"),
        (#"{"target":20}"#, "target must be above thresholds.rest"),
        (#"{"target":-10}"#, "target must be within 0…180°"),
        (#"{"target":"high"}"#, "options.target must be a number"),
        (#"{"reps":0}"#, "options.reps must be a whole number within 1…1000"),
        (#"{"sets":1.5}"#, "options.sets must be a whole number within 1…100"),
        (#"{"exit":400}"#, "options.exit must be a finite number within -360…360"),
    ]

    @Test(arguments: refused)
    func refusesUnusableOptionsWithAClearError(_ options: String, _ says: String) async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        try await withMotionServer { address, _, _ in
            let (socket, inbox) = try await MotionServerTests.connect(address, group: group)
            socket.send(.text(#"{"type":"start","exercise":"shoulderAbduction","side":"right","options":\#(options)}"#))
            await inbox.wait { $0.messages.count >= 1 }
            let error = try #require(inbox.objects().first)
            #expect(error["type"] as? String == "error")
            #expect(error["code"] as? String == "invalidMessage")
            #expect((error["message"] as? String)?.contains(says) == true, "\(error)")
            // The connection goes on: a usable start is taken.
            socket.send(
                .text(#"{"type":"start","exercise":"shoulderAbduction","side":"right","options":{"target":50}}"#))
            await inbox.wait { $0.messages.count >= 2 }
            #expect(inbox.objects().last?["type"] as? String == "started")

            let body = #"{"exercise":"shoulderAbduction","side":"right","options":\#(options)}"#
            for path in ["/v1/sessions", "/v1/analyze"] {
                let answer = try await Self.post(address, path, body)
                #expect(answer.status == 400, "\(path)")
                let object = answer.json?["error"] as? [String: Any]
                #expect(object?["code"] as? String == "invalidMessage", "\(path)")
                #expect(
                    (object?["message"] as? String)?.contains(says) == true, "\(path): \(String(describing: object))")
            }
            let list = MotionServerTests.json(try await MotionServerTests.get(address, "/v1/sessions"))
            let stored = list?["sessions"] as? [[String: Any]]
            #expect(stored?.count == 1, "only the usable start made a session")
            #expect((stored?.first?["prescription"] as? [String: Any])?["target"] as? Double == 50)
        }
    }

    @Test func progressAnswersASubjectsSessionsOldestFirstPerTenant() async throws {
        let tokens = "aaaaaaaaaaaaaaaa1 clinic-a\nbbbbbbbbbbbbbbbb2 clinic-b\n"
        let a = "aaaaaaaaaaaaaaaa1"
        try await withMotionServer(tokens: tokens) { address, _, _ in
            var ids: [String] = []
            for (exercise, peak) in [("elbowFlexion", 120.0), ("elbowFlexion", 130), ("squat", 90)] {
                let exerciseValue = try #require(Exercise.named(exercise))
                let poses = Simulation(exercise: exerciseValue, side: .right, reps: [.init(peak: peak)]).poses()
                let answer = try await Self.post(
                    address, "/v1/analyze", Self.analyzeBody(exercise: exercise, subject: "p 17é", poses: poses),
                    token: a)
                #expect(answer.status == 200)
                ids.append(try #require((answer.json?["summary"] as? [String: Any])?["id"] as? String))
            }
            let subject = "p%2017%C3%A9"
            func progress(_ query: String, token: String? = a) async throws -> (Int, [String: Any]?) {
                let response = try #require(
                    try await MotionServerTests.get(address, "/v1/subjects/\(subject)/progress\(query)", token: token))
                return (response.status, MotionServerTests.json(response))
            }
            let (status, all) = try await progress("")
            #expect(status == 200)
            let sessions = try #require(all?["sessions"] as? [[String: Any]])
            #expect(sessions.map { $0["id"] as? String } == ids)
            #expect(all?["next"] is NSNull)
            #expect(sessions.map { $0["exercise"] as? String } == ["elbowFlexion", "elbowFlexion", "squat"])
            for session in sessions {
                #expect(session["status"] as? String == "finished")
                #expect(session["repCount"] as? Int == 1)
                #expect(session["rejectedCount"] as? Int == 0)
                #expect(session["startedAt"] is String)
                let best = try #require(session["best"] as? Double)
                let meanPeak = try #require(session["meanPeak"] as? Double)
                #expect(meanPeak <= best + 1e-9)
            }
            let (_, elbow) = try await progress("?exercise=elbowFlexion&limit=1")
            #expect((elbow?["sessions"] as? [[String: Any]])?.map { $0["id"] as? String } == [ids[1]])
            let cursor = try #require(elbow?["next"] as? String)
            let (_, older) = try await progress("?exercise=elbowFlexion&limit=1&cursor=\(cursor)")
            #expect((older?["sessions"] as? [[String: Any]])?.map { $0["id"] as? String } == [ids[0]])
            #expect(older?["next"] is NSNull)
            let (_, future) = try await progress("?from=2100-01-01")
            #expect((future?["sessions"] as? [Any])?.isEmpty == true)

            // Another tenant, an unknown subject: an empty list, not an error.
            let (otherStatus, other) = try await progress("", token: "bbbbbbbbbbbbbbbb2")
            #expect(otherStatus == 200)
            #expect((other?["sessions"] as? [Any])?.isEmpty == true)
            let unknown = MotionServerTests.json(
                try await MotionServerTests.get(address, "/v1/subjects/nobody/progress", token: a))
            #expect((unknown?["sessions"] as? [Any])?.isEmpty == true)
            #expect(try await progress("", token: nil).0 == 401)

            for (query, says) in [
                ("?from=yesterday", "from must be ISO-8601 UTC or Unix seconds"),
                ("?to=2026-13-01", "to must be ISO-8601 UTC or Unix seconds"),
                ("?limit=0", "limit must be 1…1000"), ("?limit=1001", "limit must be 1…1000"),
                ("?limit=ten", "limit must be 1…1000"),
            ] {
                let (badStatus, bad) = try await progress(query)
                #expect(badStatus == 400, "\(query)")
                let error = bad?["error"] as? [String: Any]
                #expect(error?["code"] as? String == "invalidQuery" && error?["message"] as? String == says)
            }
            let (cursorStatus, badCursor) = try await progress("?cursor=nope")
            #expect(cursorStatus == 400)
            #expect((badCursor?["error"] as? [String: Any])?["code"] as? String == "invalidCursor")
            // Refused as `start` refuses a subject: too long, a bidirectional override, a control character.
            for hostile in [String(repeating: "%C3%A9", count: 129), "a%E2%80%AEb", "a%01b"] {
                let response = try #require(
                    try await MotionServerTests.get(address, "/v1/subjects/\(hostile)/progress", token: a))
                #expect(response.status == 400, "\(hostile)")
                #expect(
                    ((MotionServerTests.json(response)?["error"] as? [String: Any])?["code"] as? String)
                        == "invalidQuery")
            }
        }
    }
}
