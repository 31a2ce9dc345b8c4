import Foundation
import HTTPServer
import HTTPWire
import MotionCore
import MotionServer
import MotionSimulation
import NetworkTestSupport
import SessionStore
import Testing

/// Resuming a session after its connection ended (docs/protocol.md §3.1), in process: from memory, by takeover, with
/// watchers, from the store after a restart, and every refusal.
@Suite("resumable sessions")
struct ResumeTests {
    typealias Server = MotionServerTests

    static let start = #"{"type":"start","exercise":"elbowFlexion","side":"right","options":{"snapshots":"off"}}"#

    /// Three curls with noise: about 12 s of poses at 30 per second.
    static let poses: [Pose] = {
        var simulation = Simulation(
            exercise: .elbowFlexion, side: .right, reps: [.init(peak: 130), .init(peak: 118), .init(peak: 126)])
        simulation.noise = 1
        return simulation.poses()
    }()

    /// The summary members that depend on the frames alone (not on the id or the server's clock).
    static func comparable(_ summary: [String: Any]) -> NSDictionary {
        var summary = summary
        for key in ["id", "startedAt", "endedAt", "type"] { summary[key] = nil }
        return summary as NSDictionary
    }

    /// The summary of `poses` sent over one connection.
    static func reference(_ address: SocketAddress, group: EventLoopGroup) async throws -> [String: Any] {
        let (socket, inbox) = try await Server.connect(address, group: group)
        socket.send(.text(start))
        for pose in poses { socket.send(.text(poseMessage(pose))) }
        socket.send(.text(#"{"type":"stop"}"#))
        await inbox.wait { $0.close != nil }
        return try #require(inbox.objects().last { $0["type"] as? String == "summary" })
    }

    /// Opens a connection and sends `resume`; answers the connection and the `resumed` message (or the error).
    static func resume(
        _ address: SocketAddress, id: String, token: String, protocols: [String] = [], group: EventLoopGroup
    ) async throws -> (WebSocket, Inbox, [String: Any]) {
        let (socket, inbox) = try await Server.connect(address, protocols: protocols, group: group)
        socket.send(.text(#"{"type":"resume","session":"\#(id)","token":"\#(token)"}"#))
        await inbox.wait { !$0.messages.isEmpty || $0.close != nil }
        return (socket, inbox, inbox.objects().first ?? [:])
    }

    /// The poses after `t` (all of them when nil), as a client that kept them re-sends them.
    static func poses(after t: Double?, upTo end: Int) -> ArraySlice<Pose> {
        poses[..<end].drop { pose in t.map { pose.timestamp <= $0 } ?? false }
    }

    @Test func aSessionCutSeveralTimesAndResumedFromMemoryEndsAsOverOneConnection() async throws {
        let group = try EventLoopGroup(loops: 2)
        defer { group.shutdown() }
        try await withMotionServer { address, _, _ in
            let expected = try await Self.reference(address, group: group)
            var (socket, inbox) = try await Server.connect(address, group: group)
            socket.send(.text(Self.start))
            await inbox.wait { !$0.messages.isEmpty }
            let started = try #require(inbox.objects().first)
            let id = try #require(started["session"] as? String)
            let token = try #require(started["resume"] as? String)
            #expect(started["resumeSeconds"] as? Double == 120, "the default window, announced")
            #expect(token.utf8.count == 43)
            var sent = 0
            for cut in [100, 170, 171, 300] {
                for pose in Self.poses[sent..<cut] { socket.send(.text(poseMessage(pose))) }
                sent = cut
                socket.close(code: .normal, reason: "")
                await inbox.wait { $0.close != nil }
                let resumed: [String: Any]
                (socket, inbox, resumed) = try await Self.resume(address, id: id, token: token, group: group)
                #expect(resumed["type"] as? String == "resumed", "\(resumed)")
                #expect(resumed["motionT"] == nil, "no motion samples, no motionT")
                // A client keeps every frame until a checkpoint: it re-sends those after `t`.
                for pose in Self.poses(after: resumed["t"] as? Double, upTo: sent) {
                    socket.send(.text(poseMessage(pose)))
                }
            }
            for pose in Self.poses[sent...] { socket.send(.text(poseMessage(pose))) }
            socket.send(.text(#"{"type":"stop"}"#))
            await inbox.wait { $0.close != nil }
            let summary = try #require(inbox.objects().last { $0["type"] as? String == "summary" })
            #expect(summary["id"] as? String == id)
            #expect(Self.comparable(summary) == Self.comparable(expected))
            #expect(summary["repCount"] as? Int == 3)
        }
    }

    @Test func aResumeWhileTheOldConnectionLivesTakesItOverWith4001() async throws {
        let group = try EventLoopGroup(loops: 2)
        defer { group.shutdown() }
        try await withMotionServer { address, _, _ in
            let (old, oldInbox) = try await Server.connect(address, group: group)
            old.send(.text(Self.start))
            await oldInbox.wait { !$0.messages.isEmpty }
            let started = try #require(oldInbox.objects().first)
            let id = try #require(started["session"] as? String)
            let token = try #require(started["resume"] as? String)
            for pose in Self.poses[..<60] { old.send(.text(poseMessage(pose))) }
            let (_, watcherInbox) = try await Server.connect(address, path: "/v1/sessions/\(id)/watch", group: group)
            await watcherInbox.wait { $0.messages.count >= 2 }
            let (new, newInbox, resumed) = try await Self.resume(address, id: id, token: token, group: group)
            #expect(resumed["type"] as? String == "resumed")
            // Foundation's JSON reader on Linux may be an ulp off: the server wrote the pose's t exactly.
            #expect(abs((resumed["t"] as? Double ?? 0) - Self.poses[59].timestamp) < 1e-9)
            await oldInbox.wait { $0.close != nil }
            #expect(oldInbox.close?.0 == WebSocketCloseCode(rawValue: 4001))
            // The watcher stays: it hears that a client is attached again, then the session goes on.
            await watcherInbox.wait { inbox in
                inbox.objects().contains { $0["type"] as? String == "connection" && $0["connected"] as? Bool == true }
            }
            #expect(watcherInbox.close == nil)
            for pose in Self.poses[60...] { new.send(.text(poseMessage(pose))) }
            new.send(.text(#"{"type":"stop"}"#))
            await newInbox.wait { $0.close != nil }
            #expect(newInbox.close?.0 == .normal)
            await watcherInbox.wait { $0.close != nil }
            #expect(watcherInbox.close?.0 == .normal)
            let watched = watcherInbox.objects()
            #expect(watched.filter { $0["event"] as? String == "repCompleted" }.count == 3)
            #expect(watched.last { $0["type"] as? String == "summary" }?["repCount"] as? Int == 3)
        }
    }

    @Test func aWatcherHearsTheClientDropAndComeBack() async throws {
        let group = try EventLoopGroup(loops: 2)
        defer { group.shutdown() }
        let writes = Observed<[ReportedWrite]>([])
        try await withMotionServer(writes: writes) { address, _, _ in
            let (socket, inbox) = try await Server.connect(address, group: group)
            socket.send(.text(Self.start))
            await inbox.wait { !$0.messages.isEmpty }
            let started = try #require(inbox.objects().first)
            let id = try #require(started["session"] as? String)
            let token = try #require(started["resume"] as? String)
            let (_, watcher) = try await Server.connect(address, path: "/v1/sessions/\(id)/watch", group: group)
            await watcher.wait { $0.messages.count >= 2 }
            #expect(watcher.objects().first?["resume"] == nil, "a watcher never learns the token")
            socket.close(code: .normal, reason: "")
            await watcher.wait { inbox in
                inbox.objects().contains { $0["type"] as? String == "connection" && $0["connected"] as? Bool == false }
            }
            let session = try await Server.sessionOnceDetached(address, id, writes: writes)
            #expect(session?["status"] as? String == "live")
            // A watcher joining meanwhile is told at once that nobody is attached.
            let (_, late) = try await Server.connect(address, path: "/v1/sessions/\(id)/watch", group: group)
            await late.wait { inbox in inbox.objects().contains { $0["type"] as? String == "connection" } }
            let (resumedSocket, resumedInbox, resumed) = try await Self.resume(
                address, id: id, token: token, group: group)
            #expect(resumed["type"] as? String == "resumed")
            for watching in [watcher, late] {
                await watching.wait { inbox in
                    inbox.objects().contains {
                        $0["type"] as? String == "connection" && $0["connected"] as? Bool == true
                    }
                }
            }
            let connected = Server.json(try await Server.get(address, "/v1/sessions/\(id)"))
            #expect(connected?["connected"] as? Bool == true)
            resumedSocket.send(.text(#"{"type":"stop"}"#))
            await resumedInbox.wait { $0.close != nil }
            await watcher.wait { $0.close != nil }
            #expect(watcher.close?.0 == .normal)
        }
    }

    @Test func refusalsNameTheirCodeAndClose1008() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        let tokens = """
            alice-token-0123456789 alice
            bob-token-0123456789ab bob
            """
        try await withMotionServer(tokens: tokens) { address, _, _ in
            let alice = ["bearer.alice-token-0123456789"]
            let (socket, inbox) = try await Server.connect(address, protocols: alice, group: group)
            socket.send(.text(Self.start))
            await inbox.wait { !$0.messages.isEmpty }
            let started = try #require(inbox.objects().first)
            let id = try #require(started["session"] as? String)
            let token = try #require(started["resume"] as? String)
            // A second first message on a started connection is refused, and the session goes on.
            socket.send(.text(#"{"type":"resume","session":"\#(id)","token":"\#(token)"}"#))
            await inbox.wait { $0.messages.count >= 2 }
            #expect(inbox.objects().last?["code"] as? String == "alreadyStarted")

            let cases: [(id: String, token: String, protocols: [String], code: String)] = [
                (id, token, ["bearer.bob-token-0123456789ab"], "unknownSession"),
                ("01ARZ3NDEKTSV4RRFFQ69G5FAV", token, alice, "unknownSession"),
                ("not-an-id", token, alice, "unknownSession"),
                (id, String(token.reversed()), alice, "invalidResume"),
            ]
            for refused in cases {
                let (_, refusedInbox, answer) = try await Self.resume(
                    address, id: refused.id, token: refused.token, protocols: refused.protocols, group: group)
                #expect(answer["code"] as? String == refused.code, "\(refused) answered \(answer)")
                #expect(!(answer["message"] as? String ?? "").contains(token), "the token is never echoed")
                await refusedInbox.wait { $0.close != nil }
                #expect(refusedInbox.close?.0 == .policyViolation)
            }
            #expect(inbox.close == nil, "refused resumes leave the session's connection alone")

            socket.send(.text(#"{"type":"stop"}"#))
            await inbox.wait { $0.close != nil }
            let (_, endedInbox, ended) = try await Self.resume(
                address, id: id, token: token, protocols: alice, group: group)
            #expect(ended["code"] as? String == "resumeExpired")
            await endedInbox.wait { $0.close != nil }
            #expect(endedInbox.close?.0 == .policyViolation)
            let stored = try #require(
                try await request(address, "GET", "/v1/sessions/\(id)", token: "alice-token-0123456789"))
            #expect(!String(decoding: stored.body, as: UTF8.self).contains(token), "REST never shows the token")
        }
    }

    /// A session whose server was stopped (SIGTERM's drain) continues on the next run from its final checkpoint.
    @Test func aSessionContinuesOnTheNextRunFromItsShutdownCheckpoint() async throws {
        let group = try EventLoopGroup(loops: 2)
        defer { group.shutdown() }
        let directory = NSTemporaryDirectory() + "motion-resume-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let database = directory + "/motion.sqlite"
        var id = ""
        var token = ""
        let cut = 200
        try await withMotionServer(database: database) { address, _, _ in
            let (socket, inbox) = try await Server.connect(address, group: group)
            socket.send(.text(Self.start))
            for pose in Self.poses[..<cut] { socket.send(.text(poseMessage(pose))) }
            socket.send(.text(#"{"type":"reset-me-not"}"#))
            // The unknown message's error comes after every pose was processed.
            await inbox.wait { $0.objects().contains { $0["code"] as? String == "unknownType" } }
            let started = try #require(inbox.objects().first)
            id = try #require(started["session"] as? String)
            token = try #require(started["resume"] as? String)
        }
        try await withMotionServer(database: database) { address, _, _ in
            let listed = Server.json(try await Server.get(address, "/v1/sessions/\(id)"))
            #expect(listed?["status"] as? String == "live")
            #expect(listed?["connected"] as? Bool == false)
            let (socket, inbox, resumed) = try await Self.resume(address, id: id, token: token, group: group)
            #expect(resumed["type"] as? String == "resumed", "\(resumed)")
            #expect(abs((resumed["t"] as? Double ?? 0) - Self.poses[cut - 1].timestamp) < 1e-9)
            for pose in Self.poses[cut...] { socket.send(.text(poseMessage(pose))) }
            socket.send(.text(#"{"type":"stop"}"#))
            await inbox.wait { $0.close != nil }
            let summary = try #require(inbox.objects().last { $0["type"] as? String == "summary" })
            let expected = try await Self.reference(address, group: group)
            #expect(Self.comparable(summary) == Self.comparable(expected))
            // A second resume finds it finished.
            let (_, _, again) = try await Self.resume(address, id: id, token: token, group: group)
            #expect(again["code"] as? String == "resumeExpired")
        }
    }
}
