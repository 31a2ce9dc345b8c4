import Foundation
import MotionCore
import MotionWire
import SessionStore
import Testing

@testable import MotionServer

/// `snapshot.motion` is computed again at most every ``SessionCore/motionLevelInterval`` of sample time: a 30 Hz pose
/// stream beside a 60 Hz phone does not pay for three FFTs with every snapshot.
@Suite struct SessionCoreMotionTests {
    @Test func theMotionLevelIsComputedTwiceASecondOfSampleTime() throws {
        var core = try SessionCore(
            id: SessionID.generate(at: 0), tenant: "t", start: StartRequest(exercise: "elbowFlexion", side: .right),
            exercise: .elbowFlexion, startedAt: 0, tokenDigest: nil, restoring: nil, series: ValueSeries())
        var levels: [(t: Double, level: MotionLevel)] = []
        var sample = 0
        for frame in 0..<240 {
            let t = Double(frame) / 30
            // The phone's samples up to the pose, at 60 Hz, swinging harder as time goes on.
            while Double(sample) / 60 <= t {
                let time = Double(sample) / 60
                let x = (1 + time) * sin(2 * Double.pi * 3 * time)
                try core.process(MotionSample(t: time, acceleration: MotionVector(x: x, y: -9.81, z: 0)))
                sample += 1
            }
            var events: [MotionEvent] = []
            try core.process(Pose(timestamp: t), into: &events)
            if let level = core.currentSnapshot().motion { levels.append((t, level)) }
        }
        let changes = zip(levels, levels.dropFirst()).filter { $0.level != $1.level }.map { $1.t }
        // Eight seconds of samples with the swing growing: the level changes, but never twice within 0.5 s of
        // sample time.
        #expect(changes.count >= 10, "\(changes)")
        for (earlier, later) in zip(changes, changes.dropFirst()) {
            #expect(later - earlier >= SessionCore.motionLevelInterval - 1e-9, "\(earlier) → \(later)")
        }
    }
}
