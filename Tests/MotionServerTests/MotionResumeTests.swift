import Foundation
import HTTPServer
import MotionCore
import MotionServer
import NetworkTestSupport
import Testing

/// A session with motion samples cut and resumed mid-stream (docs/protocol.md §3.1, §3.3): its reps keep exactly the
/// smoothness and tremor, and its stored motion series exactly the samples, of the same stream over one connection.
@Suite("resumable sessions with motion samples")
struct MotionResumeTests {
    typealias Server = MotionServerTests

    /// The `motion` message that goes before `pose`: its one sample, 5 ms earlier.
    static func motion(before pose: Pose) -> String {
        MotionStreamTests.motionMessage([MotionSeriesRESTTests.sample(before: pose)])
    }

    static func send(_ poses: some Sequence<Pose>, on socket: WebSocket) {
        for pose in poses {
            socket.send(.text(motion(before: pose)))
            socket.send(.text(poseMessage(pose)))
        }
    }

    /// The summary and stored motion series of the whole stream over one connection.
    static func reference(
        _ address: SocketAddress, group: EventLoopGroup
    ) async throws -> (summary: [String: Any], motion: NSDictionary) {
        let (socket, inbox) = try await Server.connect(address, group: group)
        socket.send(.text(ResumeTests.start))
        send(ResumeTests.poses, on: socket)
        socket.send(.text(#"{"type":"stop"}"#))
        await inbox.wait { $0.close != nil }
        let summary = try #require(inbox.objects().last { $0["type"] as? String == "summary" })
        let id = try #require(summary["id"] as? String)
        let motion = try await MotionSeriesRESTTests.get(address, "/v1/sessions/\(id)/motion")
        return (summary, try #require(motion.json) as NSDictionary)
    }

    @Test func aSessionResumedMidStreamKeepsItsRepsMotionValues() async throws {
        let group = try EventLoopGroup(loops: 2)
        defer { group.shutdown() }
        try await withMotionServer { address, _, _ in
            let expected = try await Self.reference(address, group: group)
            let reps = try #require(expected.summary["reps"] as? [[String: Any]])
            #expect(reps.count == 3 && reps.allSatisfy { $0["smoothness"] is Double && $0["tremor"] is Double })

            var (socket, inbox) = try await Server.connect(address, group: group)
            socket.send(.text(ResumeTests.start))
            await inbox.wait { !$0.messages.isEmpty }
            let started = try #require(inbox.objects().first)
            let id = try #require(started["session"] as? String)
            let token = try #require(started["resume"] as? String)
            var sent = 0
            // Cuts inside the first rep, between reps and inside the last one.
            for cut in [60, 170, 171, 300] {
                Self.send(ResumeTests.poses[sent..<cut], on: socket)
                sent = cut
                socket.close(code: .normal, reason: "")
                await inbox.wait { $0.close != nil }
                let resumed: [String: Any]
                (socket, inbox, resumed) = try await ResumeTests.resume(address, id: id, token: token, group: group)
                #expect(resumed["type"] as? String == "resumed", "\(resumed)")
                // The session held in memory has every sample sent: the last one's time comes back as motionT.
                let lastSample = MotionSeriesRESTTests.sample(before: ResumeTests.poses[sent - 1]).0
                #expect(resumed["motionT"] as? Double == lastSample, "\(resumed)")
                // The client re-sends its poses after `t`, each with the motion samples before it.
                Self.send(ResumeTests.poses(after: resumed["t"] as? Double, upTo: sent), on: socket)
            }
            Self.send(ResumeTests.poses[sent...], on: socket)
            socket.send(.text(#"{"type":"stop"}"#))
            await inbox.wait { $0.close != nil }
            let summary = try #require(inbox.objects().last { $0["type"] as? String == "summary" })
            #expect(summary["id"] as? String == id)
            #expect(ResumeTests.comparable(summary) == ResumeTests.comparable(expected.summary))
            let motion = try await MotionSeriesRESTTests.get(address, "/v1/sessions/\(id)/motion")
            #expect(try #require(motion.json) as NSDictionary == expected.motion)
        }
    }
}
