import Foundation
import HTTPServer
import MotionCore
import MotionServer
import MotionSimulation
import Testing

/// What the History and Progress pages count: `GET /v1/sessions?total=true` and the fault counts of
/// `GET /v1/subjects/{subject}/progress`, through the real server on 127.0.0.1 with a real SQLite file.
@Suite struct HistoryTotalsTests {
    /// Stores `count` one-rep sessions of `subject` through `POST /v1/analyze`.
    private static func analyze(_ address: SocketAddress, subject: String, count: Int) async throws {
        let poses = Simulation(exercise: .elbowFlexion, side: .right, reps: [.init(peak: 130)]).poses()
        for _ in 0..<count {
            let answer = try await PrescriptionTests.post(
                address, "/v1/analyze",
                PrescriptionTests.analyzeBody(exercise: "elbowFlexion", subject: subject, poses: poses))
            #expect(answer.status == 200)
        }
    }

    @Test func listsTheTotalOfEveryPageOnlyWhenAsked() async throws {
        try await withMotionServer { address, _, _ in
            try await Self.analyze(address, subject: "p-1", count: 5)
            try await Self.analyze(address, subject: "p-2", count: 2)
            func list(_ query: String) async throws -> [String: Any] {
                let response = try #require(try await MotionServerTests.get(address, "/v1/sessions?\(query)"))
                #expect(response.status == 200, "\(query)")
                return try #require(MotionServerTests.json(response))
            }
            let plain = try await list("subject=p-1&limit=2")
            #expect(plain["total"] == nil, "no count unless asked")
            #expect(try await list("subject=p-1&limit=2&total=false")["total"] == nil)
            let first = try await list("subject=p-1&limit=2&total=true")
            #expect(first["total"] as? Int == 5)
            #expect((first["sessions"] as? [Any])?.count == 2)
            let cursor = try #require(first["next"] as? String)
            #expect(try await list("subject=p-1&limit=2&total=true&cursor=\(cursor)")["total"] as? Int == 5)
            #expect(try await list("total=true")["total"] as? Int == 7)
            #expect(try await list("subjectPrefix=p-&status=live&total=true")["total"] as? Int == 0)
        }
    }

    @Test(arguments: ["total=", "total=1", "total=yes", "total=TRUE", "total=truee"])
    func refusesATotalThatIsNeitherTrueNorFalse(_ query: String) async throws {
        try await withMotionServer { address, _, _ in
            let response = try #require(try await MotionServerTests.get(address, "/v1/sessions?\(query)"))
            #expect(response.status == 400)
            let error = MotionServerTests.json(response)?["error"] as? [String: Any]
            #expect(error?["code"] as? String == "invalidQuery")
            #expect(error?["message"] as? String == "total must be true or false")
        }
    }

    @Test func progressCarriesEachSessionsFaultCounts() async throws {
        try await withMotionServer { address, _, _ in
            let poses = Simulation(
                exercise: .elbowFlexion, side: .right,
                reps: [.init(peak: 130), .init(peak: 130, faults: [.keepUpperArmStill]), .init(peak: 130)]
            ).poses()
            let answer = try await PrescriptionTests.post(
                address, "/v1/analyze",
                PrescriptionTests.analyzeBody(exercise: "elbowFlexion", subject: "p-3", poses: poses))
            let summary = try #require(answer.json?["summary"] as? [String: Any])
            let faults = try #require(summary["faultCounts"] as? [String: Int])
            #expect((faults["keepUpperArmStill"] ?? 0) >= 1)
            try await Self.analyze(address, subject: "p-3", count: 1)
            let response = try #require(try await MotionServerTests.get(address, "/v1/subjects/p-3/progress"))
            let sessions = try #require(MotionServerTests.json(response)?["sessions"] as? [[String: Any]])
            #expect(sessions.count == 2)
            #expect(sessions.first?["faultCounts"] as? [String: Int] == faults)
            #expect(sessions.last?["faultCounts"] as? [String: Int] == [:])
        }
    }
}
