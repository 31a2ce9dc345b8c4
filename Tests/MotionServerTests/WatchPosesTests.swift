import Basics
import Foundation
import HTTPServer
import HTTPWire
import MotionCore
import NetworkTestSupport
import SessionStore
import Testing

@testable import MotionServer

/// The patient's poses on the watch stream (`GET /v1/sessions/{id}/watch?poses=1`): only to the watchers that asked,
/// at most 15 per second of the session's time, live or driven over HTTP, across a resume; and the throttle and the
/// node-bus messages that carry them on their own.
@Suite("watching the patient's poses")
struct WatchPosesTests {
    typealias Server = MotionServerTests
    typealias Resume = ResumeTests

    static let upgrade =
        "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
        + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"

    /// The `pose` messages a watcher received, in order.
    static func poseMessages(_ inbox: Inbox) -> [[String: Any]] {
        inbox.objects().filter { $0["type"] as? String == "pose" }
    }

    /// The index in ``ResumeTests/poses`` of the pose sent at `t` (they are 1/30 s apart).
    static func index(of t: Double) -> Int {
        Int(((t - Resume.poses[0].timestamp) * 30).rounded())
    }

    /// Whether `message` shows `pose` as ``poseMessage(_:)`` sent it: its time, the image size sent (1280 × 720),
    /// and every seen point to the decimal the server writes.
    static func shows(_ message: [String: Any], _ pose: Pose) -> Bool {
        guard let t = message["t"] as? Double, abs(t - pose.timestamp) < 1e-9,
            message["width"] as? Double == 1280, message["height"] as? Double == 720,
            let points = message["points"] as? [String: [Double]]
        else { return false }
        let seen = Joint.allCases.filter { pose[$0] != nil }
        guard points.count == seen.count else { return false }
        return seen.allSatisfy { joint in
            guard let point = pose[joint], let shown = points[joint.rawValue], shown.count == 2 else { return false }
            return abs(shown[0] - point.x) <= 0.05 + 1e-9 && abs(shown[1] - point.y) <= 0.05 + 1e-9
        }
    }

    /// Starts a live session (``ResumeTests/start``) and opens a watcher with and one without poses.
    static func watchedSession(
        _ address: SocketAddress, group: EventLoopGroup
    ) async throws -> (socket: WebSocket, started: [String: Any], poses: Inbox, plain: Inbox) {
        let (socket, inbox) = try await Server.connect(address, group: group)
        socket.send(.text(Resume.start))
        await inbox.wait { !$0.messages.isEmpty }
        let started = try #require(inbox.objects().first)
        let id = try #require(started["session"] as? String)
        let (_, poses) = try await Server.connect(address, path: "/v1/sessions/\(id)/watch?poses=1", group: group)
        let (_, plain) = try await Server.connect(address, path: "/v1/sessions/\(id)/watch", group: group)
        for watcher in [poses, plain] {
            await watcher.wait { $0.objects().contains { $0["type"] as? String == "started" } }
        }
        return (socket, started, poses, plain)
    }

    @Test func aWatcherThatAskedGetsThePatientsPosesAndOneThatDidNotGetsNone() async throws {
        let group = try EventLoopGroup(loops: 2)
        defer { group.shutdown() }
        try await withMotionServer { address, _, _ in
            let session = try await Self.watchedSession(address, group: group)
            // Three seconds of a 30 Hz stream, sent as fast as the socket takes them.
            for pose in Resume.poses[..<90] { session.socket.send(.text(poseMessage(pose))) }
            session.socket.send(.text(#"{"type":"stop"}"#))
            for watcher in [session.poses, session.plain] { await watcher.wait { $0.close != nil } }

            #expect(Self.poseMessages(session.plain).isEmpty)
            let poses = Self.poseMessages(session.poses)
            #expect(!poses.isEmpty)
            // At most 15 per second of the session's time: of an exact 30 Hz stream every other pose at most (a
            // slow watcher may have had some replaced by newer ones), each shown as it was analysed.
            #expect(poses.count <= 45)
            var previous = -1
            for message in poses {
                let index = Self.index(of: message["t"] as? Double ?? -1)
                #expect(index % 2 == 0 && index > previous && index < 90, "pose \(index) after \(previous)")
                if (0..<90).contains(index) { #expect(Self.shows(message, Resume.poses[index]), "\(message)") }
                previous = index
            }
            #expect(session.poses.objects().last?["type"] as? String == "summary")
        }
    }

    /// The client's `snapshots` option is its own: a client that turned snapshots off (Resume.start does) gets
    /// none, and its watchers still get one after every pose.
    /// Whether a message's `t` (written to the millisecond) is `timestamp`.
    static func isTime(of message: [String: Any], _ timestamp: Double) -> Bool {
        abs((message["t"] as? Double ?? -1) - timestamp) < 1e-3
    }

    /// A watcher's close 1000 after `stop` says what the client's does: the session is stored. (It used to come with
    /// the summary, before the store wrote it, so a clinician's History link could open a session still `live`.)
    @Test func aWatchersCloseAfterStopComesOnceTheSessionIsStored() async throws {
        let group = try EventLoopGroup(loops: 2)
        defer { group.shutdown() }
        let writes = Observed<[ReportedWrite]>([])
        try await withMotionServer(writes: writes) { address, _, _ in
            let session = try await Self.watchedSession(address, group: group)
            let id = try #require(session.started["session"] as? String)
            for pose in Resume.poses[..<30] { session.socket.send(.text(poseMessage(pose))) }
            session.socket.send(.text(#"{"type":"stop"}"#))
            await session.plain.wait { $0.close != nil }
            let finished = writes.current.contains { write in
                guard write.stored, write.id.description == id, case .finish = write.write else { return false }
                return true
            }
            #expect(finished, "the watcher was closed before the session was stored")
            #expect(session.plain.close?.0 == .normal)
        }
    }

    @Test func watchersGetEverySnapshotWhateverTheClientAskedFor() async throws {
        let group = try EventLoopGroup(loops: 2)
        defer { group.shutdown() }
        try await withMotionServer { address, _, _ in
            let (socket, inbox) = try await Server.connect(address, group: group)
            socket.send(.text(Resume.start))
            await inbox.wait { !$0.messages.isEmpty }
            let id = try #require(inbox.objects().first?["session"] as? String)
            let (_, watcher) = try await Server.connect(address, path: "/v1/sessions/\(id)/watch", group: group)
            await watcher.wait { $0.objects().contains { $0["type"] as? String == "started" } }
            for pose in Resume.poses[..<30] {
                socket.send(.text(poseMessage(pose)))
                // One at a time, so that no snapshot is replaced by the next before it leaves.
                await watcher.wait { inbox in
                    inbox.objects().contains {
                        $0["type"] as? String == "snapshot" && Self.isTime(of: $0, pose.timestamp)
                    }
                }
            }
            socket.send(.text(#"{"type":"stop"}"#))
            await inbox.wait { $0.close != nil }
            await watcher.wait { $0.close != nil }
            #expect(!inbox.objects().contains { $0["type"] as? String == "snapshot" })
            let snapshots = watcher.objects().filter { $0["type"] as? String == "snapshot" }
            #expect(
                Resume.poses[..<30].allSatisfy { pose in snapshots.contains { Self.isTime(of: $0, pose.timestamp) } })
            #expect(watcher.objects().last?["type"] as? String == "summary")
        }
    }

    @Test func posesFollowTheSessionAcrossAResume() async throws {
        let group = try EventLoopGroup(loops: 2)
        defer { group.shutdown() }
        try await withMotionServer { address, _, _ in
            let session = try await Self.watchedSession(address, group: group)
            let id = try #require(session.started["session"] as? String)
            let token = try #require(session.started["resume"] as? String)
            for pose in Resume.poses[..<60] { session.socket.send(.text(poseMessage(pose))) }
            await session.poses.wait {
                Self.poseMessages($0).contains { Self.index(of: $0["t"] as? Double ?? 0) == 58 }
            }
            session.socket.close(code: .normal, reason: "")

            let (socket, inbox, resumed) = try await Resume.resume(address, id: id, token: token, group: group)
            #expect(resumed["type"] as? String == "resumed", "\(resumed)")
            for pose in Resume.poses(after: resumed["t"] as? Double, upTo: 60) { socket.send(.text(poseMessage(pose))) }
            for pose in Resume.poses[60..<120] { socket.send(.text(poseMessage(pose))) }
            socket.send(.text(#"{"type":"stop"}"#))
            await inbox.wait { $0.close != nil }
            for watcher in [session.poses, session.plain] { await watcher.wait { $0.close != nil } }

            #expect(session.poses.close?.0 == .normal)
            #expect(Self.poseMessages(session.plain).isEmpty)
            let after = Self.poseMessages(session.poses).filter { Self.index(of: $0["t"] as? Double ?? 0) >= 60 }
            #expect(!after.isEmpty, "no pose after the resume")
            #expect(after.allSatisfy { Self.shows($0, Resume.poses[Self.index(of: $0["t"] as? Double ?? 0)]) })
        }
    }

    @Test func sessionsDrivenOverHTTPSendPosesToTheWatchersThatAsked() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        try await withMotionServer { address, _, _ in
            let created = try await request(
                address, "POST", "/v1/sessions", body: #"{"exercise":"elbowFlexion","side":"right"}"#)
            let id = try #require(Server.json(created)?["id"] as? String)
            let (_, watcher) = try await Server.connect(
                address, path: "/v1/sessions/\(id)/watch?poses=true", group: group)
            await watcher.wait { $0.objects().contains { $0["type"] as? String == "started" } }
            let frames = Resume.poses[..<30].map { poseMessage($0) }
            let posted = try await request(
                address, "POST", "/v1/sessions/\(id)/poses", body: #"{"frames":[\#(frames.joined(separator: ","))]}"#)
            #expect(posted?.status == 200)
            // A batch is a second of poses at once: its last admitted one (the 29th) is what must arrive.
            await watcher.wait { Self.poseMessages($0).contains { Self.index(of: $0["t"] as? Double ?? 0) == 28 } }
            let poses = Self.poseMessages(watcher)
            #expect(poses.count <= 15)
            #expect(poses.allSatisfy { Self.shows($0, Resume.poses[Self.index(of: $0["t"] as? Double ?? 0)]) })
            #expect(try await request(address, "POST", "/v1/sessions/\(id)/stop")?.status == 200)
            await watcher.wait { $0.close != nil }
        }
    }

    /// `poses` and `motion` (``WatchMotionTests``) read alike; a refusal names the option.
    @Test(arguments: ["poses", "motion"], ["yes", "2", "", "TRUE"])
    func anUnreadableOptionValueIsRefusedWith400(_ option: String, _ value: String) async throws {
        try await withMotionServer { address, _, _ in
            let created = try await request(address, "POST", "/v1/sessions", body: #"{"exercise":"squat"}"#)
            let id = try #require(Server.json(created)?["id"] as? String)
            let refused = try await request(
                address, "GET", "/v1/sessions/\(id)/watch?\(option)=\(value)", headers: Self.upgrade)
            #expect(refused?.status == 400)
            let error = Server.json(refused)?["error"] as? [String: Any]
            #expect(error?["code"] as? String == "invalidQuery")
            #expect((error?["message"] as? String)?.hasPrefix(option) == true, "\(String(describing: error))")
            for accepted in ["1", "true", "0", "false"] {
                let answer = try await request(
                    address, "GET", "/v1/sessions/\(id)/watch?\(option)=\(accepted)", headers: Self.upgrade)
                #expect(answer?.status == 101, "\(option)=\(accepted)")
            }
        }
    }

    // MARK: The throttle alone

    @Test func anExactThirtyHertzStreamSendsEveryOtherPose() {
        var throttle = WatchThrottle.poses
        let admitted = (0..<300).filter { throttle.admits(1_700.25 + Double($0) / 30) }
        #expect(admitted == Array(stride(from: 0, to: 300, by: 2)))
    }

    @Test func aJitteringThirtyHertzStreamSendsFifteenASecondAndNeverMore() {
        var throttle = WatchThrottle.poses
        var random = SeededRandom(seed: 22)
        let times = (0..<3000).map { 50 + Double($0) / 30 + (random.unit() - 0.5) * 0.02 }
        let admitted = times.filter { throttle.admits($0) }
        // 100 s of the session's time.
        #expect(admitted.count >= 1490 && admitted.count <= 1501, "\(admitted.count)")
        for start in stride(from: 50.0, to: 149.0, by: 0.25) {
            let inWindow = admitted.filter { $0 >= start && $0 < start + 1 }.count
            #expect(inWindow <= 16, "\(inWindow) poses in the second from \(start)")
        }
    }

    @Test func aGapOrAStepBackInTimeStartsTheGridAgain() {
        var throttle = WatchThrottle.poses
        // A gap of ten seconds, then a session restored from an earlier checkpoint.
        let times = [10, 10.05, 20, 20.01, 15, 15.03]
        #expect(times.map { throttle.admits($0) } == [true, false, true, false, true, false])
    }

    // MARK: The node-bus messages

    @Test func theWishForPosesAndThePosesThemselvesCrossTheBusIntact() throws {
        let id = SessionID.generate(at: 1_700_000_000_000)
        let messages: [ClusterMessage] = [
            .wish(id, stream: .poses, tenant: "clinic a", wanted: true),
            .wish(id, stream: .poses, tenant: "default", wanted: false),
            .watched(id, kind: .pose, text: #"{"type":"pose","t":1.5,"points":{}}"#),
            .watched(id, kind: .snapshot, text: #"{"type":"snapshot"}"#), .watched(id, kind: .message, text: "{}"),
        ]
        for message in messages { #expect(ClusterMessage(message.text) == message, "\(message.text)") }
        #expect(ClusterMessage.wish(id, stream: .poses, tenant: "t", wanted: true).text == "poses \(id) 1 t")
        #expect(ClusterMessage("poses \(id) yes t") == nil)
        #expect(ClusterMessage("poses \(id) 1") == nil)
        #expect(ClusterMessage("watched \(id) x {}") == nil)
        // A watch without the wish reads as before.
        #expect(ClusterMessage("watch \(id) clinic a") == .watch(id, tenant: "clinic a"))
    }
}
