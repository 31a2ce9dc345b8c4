import Foundation
import HTTPServer
import MotionCore
import MotionSimulation
import PostgresTestSupport
import SessionStore
import Testing

@testable import MotionServer

/// `GET /v1/sessions` copies an ended session's summary as the store kept it rendered (``SummaryRendering/wire``):
/// each listed session must be byte for byte what `GET /v1/sessions/{id}` answers for it, which encodes it anew.
@Suite struct RenderedListingRESTTests {
    @Test(arguments: ["sqlite", "postgres"])
    func listsEachSessionAsItsOwnGetAnswersIt(_ kind: String) async throws {
        var database: String?
        if kind == "postgres" {
            // Debian package `postgresql`; `make deps` installs it.
            guard PostgresTestServer.isInstalled else { try Test.cancel("PostgreSQL server binaries missing") }
            database = try await PostgresTestServer.shared.createDatabase()
        }
        try await withMotionServer(database: database) { address, _, location in
            let poses = Simulation(
                exercise: .elbowFlexion, side: .right,
                reps: [.init(peak: 130), .init(peak: 118, faults: [.keepUpperArmStill]), .init(peak: 134)]
            ).poses()
            for subject in ["p-1", "p-2", #"p-\"3\"\u00e9"#] {
                let answer = try await PrescriptionTests.post(
                    address, "/v1/analyze",
                    PrescriptionTests.analyzeBody(
                        exercise: "elbowFlexion", subject: subject, options: #"{"reps":3,"sets":2}"#, poses: poses))
                #expect(answer.status == 200)
            }
            let live = try #require(
                try await request(address, "POST", "/v1/sessions", body: #"{"exercise":"squat","subject":"p-4"}"#))
            #expect(live.status == 201)

            let listed = try #require(try await MotionServerTests.get(address, "/v1/sessions"))
            #expect(listed.status == 200)
            let ids = try #require(MotionServerTests.json(listed)?["sessions"] as? [[String: Any]]).compactMap {
                $0["id"] as? String
            }
            #expect(ids.count == 4)
            var expected = #"{"sessions":["#
            for (index, id) in ids.enumerated() {
                let got = try #require(try await MotionServerTests.get(address, "/v1/sessions/\(id)"))
                #expect(got.status == 200)
                expected += (index > 0 ? "," : "") + String(decoding: got.body, as: UTF8.self)
            }
            expected += #"],"next":null}"#
            #expect(String(decoding: listed.body, as: UTF8.self) == expected)

            // The three analysed sessions were listed from their renderings, the live one read whole.
            let store: any SessionStore
            if kind == "postgres" {
                var configuration = PostgresSessionStore.Configuration()
                configuration.rendering = .wire
                store = try await PostgresSessionStore(url: location, configuration: configuration)
            } else {
                var configuration = SQLiteSessionStore.Configuration()
                configuration.rendering = .wire
                store = try await SQLiteSessionStore(path: location, configuration: configuration)
            }
            let page = try await store.list(SessionQuery(tenant: "default"))
            await store.close()
            #expect(page.entries.map(\.id.description) == ids)
            #expect(page.sessions.map(\.status) == [.live], "only the live session is read whole")
        }
    }

    /// Sessions stored without renderings (by a store that kept none, as before the server kept them) are rendered
    /// in the background once the server starts, and listed from their renderings.
    @Test func rendersTheSummariesStoredWithoutOneAfterStart() async throws {
        let directory = NSTemporaryDirectory() + "motion-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let path = directory + "/motion.sqlite"
        let plain = try await SQLiteSessionStore(path: path)
        var ids: [String] = []
        for i in 0..<450 {
            let summary = SessionSummary(
                exercise: "squat", side: .left, frames: 300, visibleFrames: 290, repCount: i % 3, best: 91.5,
                reps: (0..<(i % 3)).map { Rep(index: $0 + 1, peak: 90 + Double($0), trough: 10, start: 1, end: 2) },
                faultCounts: i % 2 == 0 ? [.keepTrunkUpright: 1] : [:])
            let startedAt = 1_764_424_800_000 + Int64(i) * 1000
            let id = SessionID.generate(at: startedAt)
            try await plain.create(
                StoredSession(
                    id: id, tenant: "default", subject: "p-\(i % 7)", status: .finished, startedAt: startedAt,
                    endedAt: startedAt + 500, summary: summary))
            ids.append(id.description)
        }
        try await withMotionServer(database: path) { address, _, _ in
            var configuration = SQLiteSessionStore.Configuration()
            configuration.rendering = .wire
            let store = try await SQLiteSessionStore(path: path, configuration: configuration)
            // The server renders them in batches of 200 after it starts.
            var unrendered = Int.max
            for _ in 0..<200 where unrendered > 0 {
                unrendered = 0
                var cursor: String?
                repeat {
                    let page = try await store.list(SessionQuery(tenant: "default", limit: 500, cursor: cursor))
                    unrendered += page.sessions.count
                    cursor = page.next
                } while cursor != nil
                if unrendered > 0 { try await Task.sleep(for: .milliseconds(50)) }
            }
            await store.close()
            #expect(unrendered == 0)
            let listed = try #require(try await MotionServerTests.get(address, "/v1/sessions?limit=3"))
            let first = try #require(try await MotionServerTests.get(address, "/v1/sessions/\(ids[449])"))
            #expect(
                String(decoding: listed.body, as: UTF8.self).hasPrefix(
                    #"{"sessions":["# + String(decoding: first.body, as: UTF8.self) + ","))
        }
        await plain.close()
    }
}
