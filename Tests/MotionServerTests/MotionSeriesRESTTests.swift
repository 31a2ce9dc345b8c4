import Foundation
import HTTPServer
import MotionCore
import MotionServer
import NetworkTestSupport
import Testing

/// The stored motion series over REST (`GET /v1/sessions/{id}/motion`, docs/protocol.md §5.2) and a recording's motion
/// samples in `POST /v1/analyze`, on a real server with a real SQLite file.
@Suite("motion series over REST and in /v1/analyze")
struct MotionSeriesRESTTests {
    typealias Server = MotionServerTests

    /// One sample per pose, 5 ms before it: a slow swing on x with an 8 Hz tremor, gravity on y.
    static func sample(before pose: Pose) -> (Double, Double, Double, Double) {
        let t = pose.timestamp - 0.005
        return (t, sin(2 * Double.pi * 0.5 * t) + 0.4 * sin(2 * Double.pi * 8 * t), -9.81, 0.2)
    }

    static func sampleJSON(_ sample: (Double, Double, Double, Double)) -> String {
        "[\(sample.0),\(sample.1),\(sample.2),\(sample.3)]"
    }

    /// A `POST /v1/analyze` body of the three curls of ``ResumeTests/poses`` and `motion`.
    static func analyzeBody(motion: String) -> String {
        #"{"exercise":"elbowFlexion","side":"right","frames":["#
            + ResumeTests.poses.map(poseMessage).joined(separator: ",") + #"],"motion":\#(motion)}"#
    }

    static func get(
        _ address: SocketAddress, _ path: String, token: String? = nil
    ) async throws -> (status: Int, json: [String: Any]?) {
        let response = try #require(try await request(address, "GET", path, token: token))
        return (response.status, Server.json(response))
    }

    @Test func storesTheSamplesOfAnHTTPSessionAtTwentyPerSecond() async throws {
        let tokens = "aaaaaaaaaaaaaaaa1 clinic-a\nbbbbbbbbbbbbbbbb2 clinic-b\n"
        try await withMotionServer(tokens: tokens) { address, _, _ in
            let a = "aaaaaaaaaaaaaaaa1"
            let created = try await request(
                address, "POST", "/v1/sessions", token: a, body: #"{"exercise":"squat"}"#)
            let id = try #require(Server.json(created)?["id"] as? String)
            // 3 s at 100 Hz, in three posts of one second.
            for second in 0..<3 {
                let body = MotionRESTTests.samples(from: 1 + Double(second), count: 100)
                #expect(
                    try await request(address, "POST", "/v1/sessions/\(id)/motion", token: a, body: body)?.status == 200
                )
            }
            let path = "/v1/sessions/\(id)/motion"
            #expect(try await Self.get(address, path, token: a).status == 200, "a live session's series so far")
            #expect(try await request(address, "POST", "/v1/sessions/\(id)/stop", token: a)?.status == 200)
            let answer = try await Self.get(address, path, token: a)
            #expect(answer.status == 200)
            let json = try #require(answer.json)
            #expect(json["interval"] as? Double == 0.05)
            let times = try #require(json["t"] as? [Double])
            #expect(times.count == 60)
            #expect(abs(times[1] - times[0] - 0.05) < 1e-9)
            for axis in ["x", "y", "z"] { #expect((json[axis] as? [Double])?.count == 60, "\(axis)") }
            #expect((json["y"] as? [Double])?.allSatisfy { $0 == -9.81 } == true)
            #expect((json["z"] as? [Double])?.allSatisfy { $0 == 0 } == true)
            // Tenant-scoped like /series: another tenant's and unknown ids are 404; no token is 401.
            #expect(try await Self.get(address, path, token: "bbbbbbbbbbbbbbbb2").status == 404)
            #expect(try await Self.get(address, path).status == 401)
            #expect(
                try await Self.get(address, "/v1/sessions/01ARZ3NDEKTSV4RRFFQ69G5FAV/motion", token: a).status == 404)
            #expect(try await Self.get(address, "/v1/sessions/not-an-id/motion", token: a).status == 404)
            #expect(try await Self.get(address, path + "/extra", token: a).status == 404)
        }
    }

    @Test func aSessionWithoutMotionHasAnEmptySeries() async throws {
        try await withMotionServer { address, _, _ in
            let created = try await request(address, "POST", "/v1/sessions", body: #"{"exercise":"squat"}"#)
            let id = try #require(Server.json(created)?["id"] as? String)
            #expect(try await request(address, "POST", "/v1/sessions/\(id)/stop")?.status == 200)
            let answer = try await Self.get(address, "/v1/sessions/\(id)/motion")
            #expect(answer.status == 200)
            for key in ["t", "x", "y", "z"] { #expect((answer.json?[key] as? [Any])?.isEmpty == true, "\(key)") }
        }
    }

    @Test func analyzeJudgesARecordingsMotionBesideItsPoses() async throws {
        try await withMotionServer { address, _, _ in
            let samples = ResumeTests.poses.map { Self.sampleJSON(Self.sample(before: $0)) }
            // Refused alone: a bad shape, a non-finite reading, a time not after the last accepted one.
            var motion = samples
            motion.insert("[1,2]", at: 10)
            motion.insert("[\(Self.sample(before: ResumeTests.poses[20]).0),1e400,0,0]", at: 21)
            motion.insert(samples[5], at: 31)
            let answer = try await PrescriptionTests.post(
                address, "/v1/analyze", Self.analyzeBody(motion: "[" + motion.joined(separator: ",") + "]"))
            #expect(answer.status == 200)
            let json = try #require(answer.json)
            #expect(json["errors"] == nil, "the frames were all accepted")
            let refused = try #require(json["motionErrors"] as? [[String: Any]])
            #expect(refused.compactMap { $0["batchIndex"] as? Int } == [10, 21, 31])
            #expect(
                refused.compactMap { $0["code"] as? String } == [
                    "invalidMessage", "invalidMessage", "nonIncreasingTime",
                ])
            #expect((refused.first?["message"] as? String)?.hasPrefix("motion[10]: ") == true)
            let summary = try #require(json["summary"] as? [String: Any])
            let reps = try #require(summary["reps"] as? [[String: Any]])
            #expect(reps.count == 3)
            for rep in reps {
                #expect(rep["smoothness"] is Double && rep["tremor"] is Double, "\(rep)")
            }
            let id = try #require(summary["id"] as? String)
            let stored = try await Self.get(address, "/v1/sessions/\(id)/motion")
            // 30 samples/s kept at 20/s over about 12 s.
            let times = try #require(stored.json?["t"] as? [Double])
            #expect(times.count > 200 && times.count < 300, "\(times.count)")
            let storedSummary = try await Self.get(address, "/v1/sessions/\(id)")
            #expect(
                (storedSummary.json?["reps"] as? [[String: Any]])?.compactMap { $0["smoothness"] as? Double }
                    == reps.compactMap { $0["smoothness"] as? Double })
        }
    }

    @Test func analyzeWithoutMotionIsUnchanged() async throws {
        try await withMotionServer { address, _, _ in
            let body =
                #"{"exercise":"elbowFlexion","side":"right","frames":["#
                + ResumeTests.poses.map(poseMessage).joined(separator: ",") + "]}"
            let answer = try await PrescriptionTests.post(address, "/v1/analyze", body)
            #expect(answer.status == 200)
            #expect(answer.json?["motionErrors"] == nil)
            let reps = try #require((answer.json?["summary"] as? [String: Any])?["reps"] as? [[String: Any]])
            #expect(reps.count == 3 && reps.allSatisfy { $0["smoothness"] == nil && $0["tremor"] == nil })
        }
    }

    @Test(arguments: [
        (#"{"t":1}"#, 400, "invalidMessage"),
        ("[[1,0,0,9.8]", 400, "invalidJSON"),
        (#"[[1,0,0,9.8]],"motion":[]"#, 400, "invalidMessage"),
        ("[" + Array(repeating: "[1,0,0,9.8]", count: 4001).joined(separator: ",") + "]", 413, "messageTooBig"),
    ])
    func analyzeRefusesAMotionMemberThatIsNoSampleArray(_ motion: String, _ status: Int, _ code: String) async throws {
        try await withMotionServer { address, _, _ in
            let answer = try await PrescriptionTests.post(address, "/v1/analyze", Self.analyzeBody(motion: motion))
            #expect(answer.status == status)
            #expect((answer.json?["error"] as? [String: Any])?["code"] as? String == code)
            let list = try await Self.get(address, "/v1/sessions")
            #expect((list.json?["sessions"] as? [Any])?.isEmpty == true, "nothing is stored for a refused body")
        }
    }
}
