import Foundation
import HTTPServer
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
}
