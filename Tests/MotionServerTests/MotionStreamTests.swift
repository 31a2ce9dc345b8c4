import Foundation
import HTTPServer
import MotionCore
import MotionServer
import MotionSimulation
import NetworkTestSupport
import Testing

/// `motion` messages on a live session (docs/protocol.md §3.3): samples judged one by one, `snapshot.motion`, each rep's
/// `smoothness` and `tremor`, and flow control for a fast sender.
@Suite("motion samples on /v1/stream")
struct MotionStreamTests {
    /// A `motion` message of samples `[t, ax, ay, az]`.
    static func motionMessage(_ samples: [(Double, Double, Double, Double)]) -> String {
        let items = samples.map { "[\($0.0),\($0.1),\($0.2),\($0.3)]" }
        return #"{"type":"motion","samples":["# + items.joined(separator: ",") + "]}"
    }

    /// 100 Hz samples in `times`: an 8 Hz sine of 1.5 m/s² on x, gravity on y.
    static func tremorSamples(_ times: StrideTo<Double>) -> [(Double, Double, Double, Double)] {
        times.map { t in (t, 1.5 * sin(2 * .pi * 8 * t), -9.81, 0) }
    }

    /// A sample at `t` of a slow 0.5 Hz movement, gravity on y.
    static func slowSample(_ t: Double) -> (Double, Double, Double, Double) {
        let phase = 2 * Double.pi * 0.5 * t
        return (t, sin(phase), -9.81 + 0.5 * cos(phase), 0)
    }

    static func errors(_ inbox: Inbox) -> [[String: Any]] {
        inbox.objects().filter { $0["type"] as? String == "error" }
    }

    @Test func refusesMotionBeforeStart() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        try await withMotionServer { address, _, _ in
            let (socket, inbox) = try await MotionServerTests.connect(address, group: group)
            socket.send(.text(Self.motionMessage([(1, 0, -9.81, 0)])))
            await inbox.wait { !$0.messages.isEmpty }
            #expect(Self.errors(inbox).first?["code"] as? String == "notStarted")
        }
    }

    @Test func judgesSamplesOneByOneAndKeepsTheStreamOrdered() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        try await withMotionServer { address, _, _ in
            let (socket, inbox) = try await MotionServerTests.connect(address, group: group)
            socket.send(.text(#"{"type":"start","exercise":"squat","options":{"snapshots":"off"}}"#))
            socket.send(
                .text(
                    #"{"type":"motion","samples":[[1,0,-9.81,0],[1.01,0,0],[1,0,-9.81,0],[1.02,0,-9.81,0,1,2,3],"#
                        + #"[1.03,1e400,0,0],[1.04,0,-9.81,0]]}"#))
            // The stream goes on across messages: a t not after the last accepted sample's is refused.
            socket.send(.text(Self.motionMessage([(1.04, 0, -9.81, 0), (1.05, 0, -9.81, 0)])))
            socket.send(.text(#"{"type":"motion","samples":[[1.06,0,-9.81,0]"#))
            socket.send(.text(#"{"type":"stop"}"#))
            await inbox.wait { $0.close != nil }
            let errors = Self.errors(inbox)
            #expect(errors.compactMap { $0["batchIndex"] as? Int } == [1, 2, 4, 0])
            #expect(
                errors.compactMap { $0["code"] as? String } == [
                    "invalidMessage", "nonIncreasingTime", "invalidMessage", "nonIncreasingTime", "invalidJSON",
                ])
            #expect(errors.compactMap { $0["frame"] as? Int } == [2, 2, 2, 3, 4])
            #expect(inbox.close?.0 == .normal, "bad samples never end the session")
        }
    }

    /// docs/protocol.md §3: a batch counts as refused only when none of its elements was accepted, and refused messages
    /// in a row past the limit end the session (1008, stored as abandoned); one accepted element starts the count over.
    @Test func batchesWithNothingAcceptedCountTowardTheAbuseLimit() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        var limits = fastLimits()
        limits.maxConsecutiveErrors = 3
        try await withMotionServer(limits: limits) { address, _, _ in
            let (socket, inbox) = try await MotionServerTests.connect(address, group: group)
            socket.send(.text(#"{"type":"start","exercise":"squat","options":{"snapshots":"off"}}"#))
            let refused = #"{"type":"motion","samples":[[1,0,0]]}"#
            socket.send(.text(refused))
            socket.send(.text(refused))
            // One sample of this batch is taken: the count starts over, so two more refusals are not yet three.
            socket.send(.text(#"{"type":"motion","samples":[[1,0,-9.81,0],[0]]}"#))
            socket.send(.text(refused))
            socket.send(.text(refused))
            socket.send(.text(#"{"type":"pose","t":0,"points":{}}"#))
            socket.send(.text(refused))
            socket.send(.text(refused))
            socket.send(.text(refused))
            await inbox.wait { $0.close != nil }
            #expect(inbox.close?.0 == .policyViolation)
            #expect(Self.errors(inbox).count == 8, "every refused element is answered, the last batch too")
        }
    }

    @Test func snapshotsCarryTheMotionLevelOnlyOnceSamplesCame() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        try await withMotionServer { address, _, _ in
            let (socket, inbox) = try await MotionServerTests.connect(address, group: group)
            socket.send(.text(#"{"type":"start","exercise":"squat"}"#))
            socket.send(.text(#"{"type":"pose","t":0,"points":{}}"#))
            socket.send(.text(Self.motionMessage(Self.tremorSamples(stride(from: 0.01, to: 3.0, by: 0.01)))))
            socket.send(.text(#"{"type":"pose","t":3,"points":{}}"#))
            socket.send(.text(#"{"type":"stop"}"#))
            await inbox.wait { $0.close != nil }
            let snapshots = inbox.objects().filter { $0["type"] as? String == "snapshot" }
            #expect(snapshots.count == 2)
            #expect(snapshots.first?["motion"] == nil, "absent without motion samples")
            let motion = try #require(snapshots.last?["motion"] as? [String: Double])
            #expect(try #require(motion["tremor"]) > 0.99)
            #expect(abs(try #require(motion["rms"]) - 1.5 / 2.0.squareRoot()) < 0.02)
        }
    }

    @Test func repsCarrySmoothnessAndTremorInEventsAndSummary() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        let poses = Simulation(exercise: .squat, side: .right, reps: [.init(peak: 100), .init(peak: 100)]).poses()
        try await withMotionServer { address, _, _ in
            for withMotion in [true, false] {
                let (socket, inbox) = try await MotionServerTests.connect(address, group: group)
                socket.send(.text(#"{"type":"start","exercise":"squat","options":{"snapshots":"off"}}"#))
                var next = try #require(poses.first).timestamp - 0.5
                for pose in poses {
                    if withMotion {
                        // The phone's samples up to the pose's time go first, as a phone streaming both does.
                        let samples = stride(from: next, through: pose.timestamp, by: 0.01).map(Self.slowSample)
                        if let last = samples.last { next = last.0 + 0.01 }
                        if !samples.isEmpty { socket.send(.text(Self.motionMessage(samples))) }
                    }
                    socket.send(.text(poseMessage(pose)))
                }
                socket.send(.text(#"{"type":"stop"}"#))
                await inbox.wait { $0.close != nil }
                #expect(Self.errors(inbox).isEmpty)
                let reps = inbox.objects().compactMap { $0["event"] as? String == "repCompleted" ? $0["rep"] : nil }
                    .compactMap { $0 as? [String: Any] }
                #expect(reps.count == 2)
                let summary = try #require(inbox.objects().last { $0["type"] as? String == "summary" })
                let stored = try #require(summary["reps"] as? [[String: Any]])
                #expect(stored.count == 2)
                // Over REST too: the stored summary's reps, and the CSV's motion columns (before `held`).
                let id = try #require(inbox.objects().first?["session"] as? String)
                let body = try #require(try await MotionServerTests.get(address, "/v1/sessions/\(id)")).body
                let rest = try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
                let restReps = try #require(rest["reps"] as? [[String: Any]])
                #expect(restReps.count == 2)
                let csv = try #require(try await MotionServerTests.get(address, "/v1/sessions/\(id)?format=csv")).body
                let lines = String(decoding: csv, as: UTF8.self).split(separator: "\r\n")
                #expect(lines.first?.hasSuffix(",side,smoothness,tremor,held") == true)
                #expect(lines.count == 3)
                for line in lines.dropFirst() {
                    let fields = line.split(separator: ",", omittingEmptySubsequences: false)
                    #expect(fields.dropLast().suffix(2).allSatisfy { !$0.isEmpty } == withMotion)
                    #expect(fields.last == "", "not a hold")
                }
                for rep in reps + stored + restReps {
                    if withMotion {
                        let smoothness = try #require(rep["smoothness"] as? Double)
                        let tremor = try #require(rep["tremor"] as? Double)
                        #expect(smoothness < 0 && smoothness > -10)
                        #expect(tremor >= 0 && tremor < 0.1, "a slow movement has no tremor")
                    } else {
                        #expect(rep["smoothness"] == nil && rep["tremor"] == nil, "absent without motion samples")
                    }
                }
            }
        }
    }

    @Test func slowsAFastMotionSenderWithoutLosingSamples() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        var limits = fastLimits()
        limits.motionSamplesPerSecond = 1000
        try await withMotionServer(limits: limits) { address, _, _ in
            let (socket, inbox) = try await MotionServerTests.connect(address, group: group)
            socket.send(.text(#"{"type":"start","exercise":"squat","options":{"snapshots":"off"}}"#))
            // 3,000 samples against a burst of 2,000: the socket is paused, nothing is refused.
            for second in 0..<3 {
                let start = Double(second) * 10
                socket.send(
                    .text(Self.motionMessage(Self.tremorSamples(stride(from: start, to: start + 10, by: 0.01)))))
            }
            // Proof that every sample before it was taken: the last one's t is refused as not increasing.
            socket.send(.text(Self.motionMessage([(29.99, 0, -9.81, 0)])))
            socket.send(.text(#"{"type":"stop"}"#))
            await inbox.wait { $0.close != nil }
            let errors = Self.errors(inbox)
            #expect(errors.count == 1)
            #expect(errors.first?["code"] as? String == "nonIncreasingTime")
            let metrics = try await MotionServerTests.get(address, "/metrics").map {
                String(decoding: $0.body, as: UTF8.self)
            }
            let pauses = metrics?.split(separator: "\n").first { $0.hasPrefix("motion_flow_pauses_total ") }
            #expect(pauses != nil && pauses != "motion_flow_pauses_total 0", "the sender was slowed down")
        }
    }
}
