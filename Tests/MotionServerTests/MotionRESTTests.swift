import Foundation
import MotionServer
import NetworkTestSupport
import Testing

/// `POST /v1/sessions/{id}/motion` (docs/protocol.md §3.3 over REST): samples judged one by one, the snapshot's motion
/// level, and the refusals of a body, a session and a tenant that do not fit.
@Suite("POST /v1/sessions/{id}/motion")
struct MotionRESTTests {
    static func samples(from start: Double, count: Int) -> String {
        let items = (0..<count).map { step -> String in
            let t = start + Double(step) / 100
            return "[\(t),\(1.5 * sin(2 * Double.pi * 8 * t)),-9.81,0]"
        }
        return #"{"samples":["# + items.joined(separator: ",") + "]}"
    }

    @Test func judgesSamplesOneByOneAndReportsTheMotionLevel() async throws {
        try await withMotionServer { address, _, _ in
            let created = try await request(address, "POST", "/v1/sessions", body: #"{"exercise":"squat"}"#)
            let id = try #require(MotionServerTests.json(created)?["id"] as? String)
            let first = try #require(
                try await request(
                    address, "POST", "/v1/sessions/\(id)/motion",
                    body: #"{"samples":[[1,0,-9.81,0],[2,0],[1,0,-9.81,0],[1.5,0,-9.81,0,1,2,1e400]]}"#))
            #expect(first.status == 200)
            let answer = try #require(MotionServerTests.json(first))
            #expect((answer["events"] as? [Any])?.isEmpty == true)
            let errors = try #require(answer["errors"] as? [[String: Any]])
            #expect(errors.compactMap { $0["batchIndex"] as? Int } == [1, 2, 3])
            #expect(
                errors.compactMap { $0["code"] as? String } == [
                    "invalidMessage", "nonIncreasingTime", "invalidMessage",
                ])
            let level = try #require(
                try await request(
                    address, "POST", "/v1/sessions/\(id)/motion", body: Self.samples(from: 1.01, count: 300)))
            let snapshot = try #require(MotionServerTests.json(level)?["snapshot"] as? [String: Any])
            let motion = try #require(snapshot["motion"] as? [String: Double])
            #expect(try #require(motion["tremor"]) > 0.99)
            #expect(MotionServerTests.json(level)?["errors"] == nil)
            // The pose answer's snapshot carries it too.
            let pose = try await request(address, "POST", "/v1/sessions/\(id)/poses", body: #"{"t":5,"points":{}}"#)
            #expect((MotionServerTests.json(pose)?["snapshot"] as? [String: Any])?["motion"] != nil)
        }
    }

    @Test(arguments: [
        (#"{"samples":[[1,0,0,9.8]"#, 400, "invalidJSON"),
        (#"{"samples":{"t":1}}"#, 400, "invalidMessage"),
        (#"{}"#, 400, "invalidMessage"),
        (#"{"samples":[],"samples":[]}"#, 400, "invalidMessage"),
        ("[[1,0,0,9.8]]", 400, "invalidMessage"),
        ("", 400, "invalidJSON"),
        (
            "{\"samples\":[" + Array(repeating: "[1,0,0,9.8]", count: 1001).joined(separator: ",") + "]}", 413,
            "messageTooBig"
        ),
    ])
    func refusesABodyThatIsNotASampleBatch(_ body: String, _ status: Int, _ code: String) async throws {
        try await withMotionServer { address, _, _ in
            let created = try await request(address, "POST", "/v1/sessions", body: #"{"exercise":"squat"}"#)
            let id = try #require(MotionServerTests.json(created)?["id"] as? String)
            let response = try #require(try await request(address, "POST", "/v1/sessions/\(id)/motion", body: body))
            #expect(response.status == status)
            #expect((MotionServerTests.json(response)?["error"] as? [String: Any])?["code"] as? String == code)
        }
    }

    @Test func answersOnlyTheTenantsOpenSessions() async throws {
        let tokens = "aaaaaaaaaaaaaaaa1 clinic-a\nbbbbbbbbbbbbbbbb2 clinic-b\n"
        try await withMotionServer(tokens: tokens) { address, _, _ in
            let a = "aaaaaaaaaaaaaaaa1"
            let created = try await request(
                address, "POST", "/v1/sessions", token: a, body: #"{"exercise":"squat"}"#)
            let id = try #require(MotionServerTests.json(created)?["id"] as? String)
            let body = Self.samples(from: 0, count: 3)
            let path = "/v1/sessions/\(id)/motion"
            #expect(try await request(address, "POST", path, token: a, body: body)?.status == 200)
            #expect(try await request(address, "POST", path, body: body)?.status == 401)
            #expect(
                try await request(address, "POST", path, token: "bbbbbbbbbbbbbbbb2", body: body)?.status == 404,
                "another tenant's session reads as unknown")
            #expect(
                try await request(
                    address, "POST", "/v1/sessions/01ARZ3NDEKTSV4RRFFQ69G5FAV/motion", token: a, body: body)?.status
                    == 404)
            #expect(
                try await request(address, "POST", "/v1/sessions/not-an-id/motion", token: a, body: body)?.status == 404
            )
            #expect(try await request(address, "POST", "/v1/sessions/\(id)/stop", token: a)?.status == 200)
            #expect(
                try await request(address, "POST", path, token: a, body: body)?.status == 409, "a stopped session")
            #expect(
                try await request(
                    address, "POST", path, token: a, headers: "Content-Type: text/plain\r\n", body: body)?.status
                    != 200)
        }
    }
}
