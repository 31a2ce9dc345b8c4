import Foundation
import HTTPServer
import HTTPWire
import MotionCore
import MotionServer
import NetworkTestSupport
import PostgresTestSupport
import SessionStore
import Testing

/// Several nodes on one PostgreSQL database (docs/protocol.md §8), in process: a session resumed on another node than
/// the one that ran it continues exactly, whether its holder is alive (it lets go) or gone (its last checkpoint).
// Needs Debian's `postgresql` package (PostgreSQL 15 server binaries); `make deps` installs it.
@Suite(.enabled(if: PostgresTestServer.isInstalled, "PostgreSQL server binaries missing: apt install postgresql"))
struct ClusterTests {
    typealias Server = MotionServerTests
    typealias Resume = ResumeTests

    /// Starts a session on `address` and sends the first `count` poses; answers its id, token and connection.
    static func begin(
        _ address: SocketAddress, poses count: Int, group: EventLoopGroup
    ) async throws -> (id: String, token: String, socket: WebSocket, inbox: Inbox) {
        let (socket, inbox) = try await Server.connect(address, group: group)
        socket.send(.text(Resume.start))
        await inbox.wait { !$0.messages.isEmpty }
        let started = try #require(inbox.objects().first)
        for pose in Resume.poses[..<count] { socket.send(.text(poseMessage(pose))) }
        return (
            try #require(started["session"] as? String), try #require(started["resume"] as? String), socket, inbox
        )
    }

    /// Re-sends what a client kept after `resumed.t`, then the rest, and stops; answers the summary.
    static func finish(
        _ socket: WebSocket, _ inbox: Inbox, resumed: [String: Any], sent: Int
    ) async throws -> [String: Any] {
        for pose in Resume.poses(after: resumed["t"] as? Double, upTo: sent) { socket.send(.text(poseMessage(pose))) }
        for pose in Resume.poses[sent...] { socket.send(.text(poseMessage(pose))) }
        socket.send(.text(#"{"type":"stop"}"#))
        await inbox.wait { $0.close != nil }
        #expect(inbox.close?.0 == .normal)
        return try #require(inbox.objects().last { $0["type"] as? String == "summary" })
    }

    /// The session as `GET /v1/sessions/{id}` on `node` shows it: at once, since `started` follows its stored create
    /// (docs/protocol.md §3), on every node.
    static func stored(_ id: String, on node: SocketAddress) async throws -> [String: Any]? {
        Server.json(try await request(node, "GET", "/v1/sessions/\(id)")).flatMap { $0["id"] != nil ? $0 : nil }
    }

    @Test func aSessionDroppedOnOneNodeResumesOnAnotherWhichTheHolderLetsHave() async throws {
        let url = try await PostgresTestServer.shared.createDatabase()
        let group = try EventLoopGroup(loops: 2)
        defer { group.shutdown() }
        try await withMotionServer(database: url) { a, _, _ in
            try await withMotionServer(database: url) { b, _, _ in
                let expected = try await Resume.reference(a, group: group)
                let session = try await Self.begin(a, poses: 150, group: group)
                session.socket.close(code: .normal, reason: "")
                await session.inbox.wait { $0.close != nil }

                let (socket, inbox, resumed) = try await Resume.resume(
                    b, id: session.id, token: session.token, group: group)
                #expect(resumed["type"] as? String == "resumed", "\(resumed)")
                // The holder stored everything it had before letting go: nothing is re-sent but what it never got.
                #expect(abs((resumed["t"] as? Double ?? 0) - Resume.poses[149].timestamp) < 1e-9)
                let summary = try await Self.finish(socket, inbox, resumed: resumed, sent: 150)
                #expect(summary["id"] as? String == session.id)
                #expect(Resume.comparable(summary) == Resume.comparable(expected))

                // Either node answers for it: one history.
                for node in [a, b] {
                    let stored = Server.json(try await request(node, "GET", "/v1/sessions/\(session.id)"))
                    #expect(stored?["status"] as? String == "finished")
                    #expect(stored?["repCount"] as? Int == 3)
                }
            }
        }
    }

    @Test func aResumeOnAnotherNodeWhileTheOldConnectionLivesClosesItWith4001() async throws {
        let url = try await PostgresTestServer.shared.createDatabase()
        let group = try EventLoopGroup(loops: 2)
        defer { group.shutdown() }
        try await withMotionServer(database: url) { a, _, _ in
            try await withMotionServer(database: url) { b, _, _ in
                let expected = try await Resume.reference(b, group: group)
                let session = try await Self.begin(a, poses: 80, group: group)
                let (socket, inbox, resumed) = try await Resume.resume(
                    b, id: session.id, token: session.token, group: group)
                #expect(resumed["type"] as? String == "resumed", "\(resumed)")
                await session.inbox.wait { $0.close != nil }
                #expect(session.inbox.close?.0 == WebSocketCloseCode(rawValue: 4001))
                let summary = try await Self.finish(socket, inbox, resumed: resumed, sent: 80)
                #expect(Resume.comparable(summary) == Resume.comparable(expected))

                // Stopped on the second node: the first knows it ended.
                let (_, againInbox, again) = try await Resume.resume(
                    a, id: session.id, token: session.token, group: group)
                #expect(again["type"] as? String == "error")
                #expect(again["code"] as? String == "resumeExpired", "it ended: \(again)")
                await againInbox.wait { $0.close != nil }
            }
        }
    }

    @Test func aSessionOfANodeThatLeftResumesFromItsLastCheckpoint() async throws {
        let url = try await PostgresTestServer.shared.createDatabase()
        let group = try EventLoopGroup(loops: 2)
        defer { group.shutdown() }
        try await withMotionServer(database: url) { b, _, _ in
            let expected = try await Resume.reference(b, group: group)
            var session: (id: String, token: String, socket: WebSocket, inbox: Inbox)?
            try await withMotionServer(database: url) { a, _, _ in
                session = try await Self.begin(a, poses: 200, group: group)
                // The node has analysed poses (the first rep ends within the 200) before it stops.
                await session?.inbox.wait { inbox in
                    inbox.objects().contains { $0["event"] as? String == "repCompleted" }
                }
            }
            // The node stopped: it checkpointed its sessions and left; the other claims the session at once.
            let (id, token) = (try #require(session?.id), try #require(session?.token))
            let (socket, inbox, resumed) = try await Resume.resume(b, id: id, token: token, group: group)
            #expect(resumed["type"] as? String == "resumed", "\(resumed)")
            // What the node had processed when it stopped; the client re-sends the rest.
            #expect((resumed["t"] as? Double ?? .infinity) <= Resume.poses[199].timestamp)
            let summary = try await Self.finish(socket, inbox, resumed: resumed, sent: 200)
            #expect(Resume.comparable(summary) == Resume.comparable(expected))
        }
    }

    @Test func watchersOnEitherNodeFollowASessionAcrossAResumeOnTheOther() async throws {
        let url = try await PostgresTestServer.shared.createDatabase()
        let group = try EventLoopGroup(loops: 2)
        defer { group.shutdown() }
        try await withMotionServer(database: url) { a, _, _ in
            try await withMotionServer(database: url) { b, _, _ in
                let session = try await Self.begin(a, poses: 0, group: group)
                // A clinician finds the session in the shared history (stored a moment after `started`), then
                // watches it from either node.
                #expect(try await Self.stored(session.id, on: b) != nil)
                let path = "/v1/sessions/\(session.id)/watch"
                let (_, local) = try await Server.connect(a, path: path, group: group)
                let (_, remote) = try await Server.connect(b, path: path, group: group)
                for watcher in [local, remote] {
                    await watcher.wait { inbox in inbox.objects().contains { $0["type"] as? String == "snapshot" } }
                    #expect(watcher.objects().first?["type"] as? String == "started")
                    #expect(watcher.objects().first?["session"] as? String == session.id)
                }
                for pose in Resume.poses[..<200] { session.socket.send(.text(poseMessage(pose))) }
                // The watcher on the other node hears the first rep over the node bus.
                await remote.wait { inbox in inbox.objects().contains { $0["event"] as? String == "repCompleted" } }
                session.socket.close(code: .normal, reason: "")
                await session.inbox.wait { $0.close != nil }

                // Resumed on the second node: both watchers follow it there and hear the rest.
                let (socket, inbox, resumed) = try await Resume.resume(
                    b, id: session.id, token: session.token, group: group)
                #expect(resumed["type"] as? String == "resumed", "\(resumed)")
                let summary = try await Self.finish(socket, inbox, resumed: resumed, sent: 200)
                #expect(summary["repCount"] as? Int == 3)
                for watcher in [local, remote] {
                    await watcher.wait { $0.close != nil }
                    #expect(watcher.close?.0 == .normal)
                    let heard = watcher.objects()
                    #expect(heard.filter { $0["event"] as? String == "repCompleted" }.count == 3, "\(heard.count)")
                    #expect(heard.last { $0["type"] as? String == "summary" }?["repCount"] as? Int == 3)
                }
            }
        }
    }

    @Test func aWatcherOnAnotherNodeGetsThePosesItAskedForAndFollowsThemAcrossAResume() async throws {
        let url = try await PostgresTestServer.shared.createDatabase()
        let group = try EventLoopGroup(loops: 2)
        defer { group.shutdown() }
        try await withMotionServer(database: url) { a, _, _ in
            try await withMotionServer(database: url) { b, _, _ in
                let session = try await Self.begin(a, poses: 0, group: group)
                #expect(try await Self.stored(session.id, on: b) != nil)
                let path = "/v1/sessions/\(session.id)/watch"
                let (_, poses) = try await Server.connect(b, path: path + "?poses=1", group: group)
                await poses.wait { inbox in inbox.objects().contains { $0["type"] as? String == "snapshot" } }
                // The node's second watcher of the session joins the subscription the first made.
                let (_, plain) = try await Server.connect(b, path: path, group: group)
                // At camera speed, so that the node bus's own bound (a pose per 50 ms) thins nothing.
                for pose in Resume.poses[..<45] {
                    session.socket.send(.text(poseMessage(pose)))
                    try await Task.sleep(nanoseconds: 33_000_000)
                }
                await poses.wait { WatchPosesTests.poseMessages($0).count >= 5 }
                session.socket.close(code: .normal, reason: "")
                await session.inbox.wait { $0.close != nil }

                // Resumed on the watchers' own node: the poses now come from there.
                let (socket, inbox, resumed) = try await Resume.resume(
                    b, id: session.id, token: session.token, group: group)
                #expect(resumed["type"] as? String == "resumed", "\(resumed)")
                for pose in Resume.poses(after: resumed["t"] as? Double, upTo: 45) {
                    socket.send(.text(poseMessage(pose)))
                }
                // At camera speed again: the watchers follow the session to its new holder over the node bus, which
                // a loaded machine may deliver after a burst of poses has already ended.
                for pose in Resume.poses[45..<90] {
                    socket.send(.text(poseMessage(pose)))
                    try await Task.sleep(nanoseconds: 33_000_000)
                }
                socket.send(.text(#"{"type":"stop"}"#))
                await inbox.wait { $0.close != nil }
                for watcher in [poses, plain] { await watcher.wait { $0.close != nil } }

                // Both followed the session to the end; only the one that asked saw poses.
                // The second watcher joined the node's subscription, and was greeted as the first was.
                let types = plain.objects().map { $0["type"] as? String ?? "?" }
                #expect(types.prefix(2) == ["started", "snapshot"], "\(types)")
                #expect(types.last == "summary" && plain.close?.0 == .normal, "\(types)")
                #expect(WatchPosesTests.poseMessages(plain).isEmpty)
                let heard = WatchPosesTests.poseMessages(poses)
                let indices = heard.map { WatchPosesTests.index(of: $0["t"] as? Double ?? -1) }
                let before = indices.filter { $0 < 45 }
                #expect(before.count >= 5 && before.allSatisfy { $0 % 2 == 0 }, "\(indices)")
                #expect(indices.contains { $0 >= 45 }, "no pose after the resume: \(indices)")
                // In order, at most 15 a second: the new holder's grid starts again at the first pose it analyses.
                let steps = zip(indices, indices.dropFirst()).map { $1 - $0 }
                #expect(steps.allSatisfy { $0 >= 1 } && steps.filter { $0 < 2 }.count <= 1, "\(indices)")
                #expect(zip(heard, indices).allSatisfy { WatchPosesTests.shows($0, Resume.poses[$1]) })
            }
        }
    }

    @Test func aWatcherOnAnotherNodeGetsTheMotionItAskedFor() async throws {
        let url = try await PostgresTestServer.shared.createDatabase()
        let group = try EventLoopGroup(loops: 2)
        defer { group.shutdown() }
        try await withMotionServer(database: url) { a, _, _ in
            try await withMotionServer(database: url) { b, _, _ in
                let session = try await Self.begin(a, poses: 0, group: group)
                let path = "/v1/sessions/\(session.id)/watch"
                let (_, motion) = try await Server.connect(b, path: path + "?motion=1", group: group)
                let (_, poses) = try await Server.connect(b, path: path + "?poses=1", group: group)
                for watcher in [motion, poses] {
                    await watcher.wait { inbox in inbox.objects().contains { $0["type"] as? String == "snapshot" } }
                }
                // A phone's pace, a message of ten samples every 100 ms: the node bus's own bound (a motion message
                // per 50 ms) thins nothing.
                let (messages, sent) = WatchMotionTests.stream(from: 1, seconds: 2)
                for message in messages {
                    session.socket.send(.text(message))
                    try await Task.sleep(nanoseconds: 100_000_000)
                }
                await motion.wait { WatchMotionTests.samples($0).count >= 45 }
                session.socket.send(.text(#"{"type":"stop"}"#))
                for watcher in [motion, poses] { await watcher.wait { $0.close != nil } }

                let got = WatchMotionTests.samples(motion)
                #expect(WatchMotionTests.areSent(got, of: sent), "samples changed, repeated or out of order")
                #expect(got.count <= 61, "\(got.count) samples in 2 s")
                #expect(WatchMotionTests.motionMessages(poses).isEmpty)
                #expect(motion.close?.0 == .normal && poses.close?.0 == .normal)
            }
        }
    }

    @Test func everyNodeSaysWhetherAClientIsAttached() async throws {
        let url = try await PostgresTestServer.shared.createDatabase()
        let group = try EventLoopGroup(loops: 2)
        defer { group.shutdown() }
        let writes = Observed<[ReportedWrite]>([])
        try await withMotionServer(writes: writes, database: url) { a, _, _ in
            try await withMotionServer(database: url) { b, _, _ in
                let session = try await Self.begin(a, poses: 30, group: group)
                let path = "/v1/sessions/\(session.id)"
                let shown = try await Self.stored(session.id, on: b)
                #expect(shown?["connected"] as? Bool == true, "\(String(describing: shown))")
                session.socket.close(code: .normal, reason: "")
                await session.inbox.wait { $0.close != nil }
                // The holder writes the change after the session's last checkpoint.
                await writes.wait { $0.contains { $0.isConnection(false, of: session.id) } }
                #expect(Server.json(try await request(b, "GET", path))?["connected"] as? Bool == false)
                let listed = Server.json(try await request(b, "GET", "/v1/sessions?status=live"))
                let sessions = try #require(listed?["sessions"] as? [[String: Any]])
                #expect(sessions.first { $0["id"] as? String == session.id }?["connected"] as? Bool == false)
            }
        }
    }

    @Test func aWatchOfASessionNoNodeRunsIsRefused() async throws {
        let url = try await PostgresTestServer.shared.createDatabase()
        try await withMotionServer(database: url) { a, _, _ in
            try await withMotionServer(database: url) { b, _, _ in
                let created = try #require(
                    try await request(a, "POST", "/v1/sessions", body: #"{"exercise":"squat"}"#))
                let id = try #require(Server.json(created)?["id"] as? String)
                let upgrade =
                    "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
                #expect(try await request(b, "GET", "/v1/sessions/\(id)/watch", headers: upgrade)?.status == 101)
                #expect(try await request(a, "POST", "/v1/sessions/\(id)/stop")?.status == 200)
                #expect(try await request(b, "GET", "/v1/sessions/\(id)/watch", headers: upgrade)?.status == 404)
                let unknown = SessionID.generate(at: 1_700_000_000_000).description
                #expect(try await request(b, "GET", "/v1/sessions/\(unknown)/watch", headers: upgrade)?.status == 404)
            }
        }
    }
}
