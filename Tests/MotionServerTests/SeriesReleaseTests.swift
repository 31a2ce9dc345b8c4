import Foundation
import HTTPServer
import MotionCore
import MotionServer
import MotionSimulation
import MotionWire
import NetworkTestSupport
import SessionStore
import Testing

extension MotionServerTests {
    /// A live session lets go of its series samples once a checkpoint stored them: the next checkpoint carries only
    /// the samples since, and the stored series is still the whole one, as the engine in process records it.
    @Test func aLiveSessionHoldsOnlyTheSeriesSinceItsLastStoredCheckpoint() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        let clock = ManualClock()
        let writes = Observed<[ReportedWrite]>([])
        let limits = checkpointingLimits()
        let poses = Simulation(exercise: .squat, side: .right, reps: [.init(peak: 100), .init(peak: 95)]).poses()
        let decoder = PoseDecoder()
        var engine = try MotionEngine(configuration: SessionConfiguration(exercise: .squat, side: .right))
        for pose in poses { _ = try engine.process(try decoder.decodePose(Array(poseMessage(pose).utf8))) }
        let whole = engine.summary.series
        try await withMotionServer(limits: limits, clock: .manual(clock), writes: writes) { address, _, _ in
            let (socket, inbox) = try await Self.connect(address, group: group)
            socket.send(.text(#"{"type":"start","exercise":"squat","side":"right"}"#))
            await inbox.wait { $0.messages.count >= 1 }
            let id = try #require(inbox.objects().first?["session"] as? String)
            var checkpoints: [SessionSummary] {
                writes.current.compactMap { $0.checkpoint(of: id) }
            }
            for (index, half) in [poses[..<(poses.count / 2)], poses[(poses.count / 2)...]].enumerated() {
                for pose in half { socket.send(.text(poseMessage(pose))) }
                let last = try #require(half.last).timestamp
                await inbox.wait { box in
                    box.messages.contains {
                        guard let object = decode($0), object["type"] as? String == "snapshot" else { return false }
                        return object["t"] as? Double == last
                    }
                }
                await clock.advance(by: limits.checkpointInterval)
                await clock.advance(by: limits.checkpointBatchWindow)
                await writes.wait { $0.compactMap { $0.checkpoint(of: id) }.count == index + 1 }
                // The client hears of the checkpoint after the session released what it stored.
                await inbox.wait { box in
                    box.messages.contains {
                        guard let object = decode($0), object["type"] as? String == "checkpoint" else { return false }
                        return object["t"] as? Double == last
                    }
                }
            }
            let (first, second) = (checkpoints[0].series, checkpoints[1].series)
            #expect(first.heldStart == 0 && first.count > 10)
            #expect(second.heldStart == first.count, "the second checkpoint holds only the samples after the first")
            #expect(second.times.count == second.count - first.count && second.count == whole.count)
            socket.send(.text(#"{"type":"stop"}"#))
            await inbox.wait { $0.close != nil }
            let stored = Self.json(try await Self.get(address, "/v1/sessions/\(id)/series"))
            #expect(stored?["t"] as? [Double] == whole.times, "the stored series is the whole one")
            #expect((stored?["value"] as? [Any])?.count == whole.count)
        }
    }
}
