import Foundation
import PostgresTestSupport
import SessionStore
import Testing

@testable import MotionServer

/// The server on `--database postgres://…`: sessions go to the PostgreSQL database and survive the process.
// Needs Debian's `postgresql` package (PostgreSQL 15 server binaries); `make deps` installs it.
@Suite(.enabled(if: PostgresTestServer.isInstalled, "PostgreSQL server binaries missing: apt install postgresql"))
struct PostgresServerTests {
    @Test func storesSessionsInThePostgreSQLDatabaseOfItsURL() async throws {
        let url = try await PostgresTestServer.shared.createDatabase()
        var id = ""
        try await withMotionServer(database: url) { address, _, database in
            #expect(database == url)
            #expect(try await request(address, "GET", "/readyz")?.status == 200)
            let created = try #require(
                try await request(address, "POST", "/v1/sessions", body: #"{"exercise":"squat","subject":"p-1"}"#))
            #expect(created.status == 201)
            id = try #require(MotionServerTests.json(created)?["id"] as? String)
            #expect(try await request(address, "POST", "/v1/sessions/\(id)/stop")?.status == 200)
            let listed = MotionServerTests.json(try await request(address, "GET", "/v1/sessions?subject=p-1"))
            let sessions = try #require(listed?["sessions"] as? [[String: Any]])
            #expect(sessions.map { $0["id"] as? String } == [id])
            let counted = MotionServerTests.json(
                try await request(address, "GET", "/v1/sessions?subjectPrefix=p-&total=true&limit=1"))
            #expect(counted?["total"] as? Int == 1)
            let progress = MotionServerTests.json(try await request(address, "GET", "/v1/subjects/p-1/progress"))
            let points = try #require(progress?["sessions"] as? [[String: Any]])
            #expect(points.first?["faultCounts"] as? [String: Int] == [:])
        }
        let store = try await PostgresSessionStore(url: url)
        let stored = try await store.session(id: try #require(SessionID(id)), tenant: "default")
        #expect(stored?.subject == "p-1")
        #expect(stored?.status == .finished)
        await store.close()
    }
}

/// What the server prints of a `--database` value: never a password.
@Suite struct DatabaseLocationTests {
    @Test(arguments: [
        ("postgres://motion:s3cret@db.internal:5432/motion", "postgres://motion@db.internal:5432/motion"),
        ("postgresql://u:p:q@h/db?host=/run/postgresql", "postgresql://u@h/db?host=/run/postgresql"),
        ("postgres://u@h/db", "postgres://u@h/db"),
        ("postgres:///db?host=/tmp/a@b", "postgres:///db?host=/tmp/a@b"),
        ("./data/motion:sqlite@x", "./data/motion:sqlite@x"),
    ])
    func leavesOutThePassword(_ location: String, _ shown: String) {
        #expect(MotionServer.withoutPassword(location) == shown)
    }
}
