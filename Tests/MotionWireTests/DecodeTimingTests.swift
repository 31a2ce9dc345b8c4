import MotionCore
import Testing

@testable import MotionWire

/// Rough timings, printed and never asserted: machines differ. For meaningful numbers run in release:
/// `swift test -c release -Xswiftc -enable-testing --filter DecodeTimingTests`.
@Suite struct DecodeTimingTests {
    /// A `pose` message with all 19 joints and their confidences, about 1 KB.
    static func fullPose(t: Double = 12.345) -> [UInt8] {
        var points: [String] = []
        var confidences: [String] = []
        for joint in Joint.allCases {
            let x = 400.0 + Double(joint.index) * 17.37
            let y = 120.0 + Double(joint.index) * 23.91
            points.append(#""\#(joint.rawValue)":[\#(x),\#(y)]"#)
            confidences.append(#""\#(joint.rawValue)":0.9\#(joint.index % 10)"#)
        }
        let json =
            #"{"type":"pose","t":\#(t),"width":1280,"height":720,"points":{"#
            + points.joined(separator: ",") + #"},"confidence":{"# + confidences.joined(separator: ",") + "}}"
        return bytes(json)
    }

    @Test func timesDecodingAFullJointsPose() throws {
        let message = Self.fullPose()
        #expect(message.count > 900 && message.count < 1200)
        let decoder = MessageDecoder()
        guard case .pose(let pose) = try decoder.decode(message) else {
            Issue.record("not a pose")
            return
        }
        #expect(pose.seenJoints.count == 19)
        var seen = 0
        let best = try Self.bestPerIteration(batches: 10, iterations: 2000) {
            if case .pose(let pose) = try decoder.decode(message) { seen += pose.seenJoints.count }
        }
        #expect(seen == 19 * 10 * 2000)
        print("decode \(message.count)-byte joints pose: \(best) per message (best of 10 batches)")
    }

    /// The fastest batch's time per iteration: the least disturbed by other work on the machine.
    static func bestPerIteration(batches: Int, iterations: Int, _ body: () throws -> Void) rethrows -> Duration {
        var best = Duration.seconds(1)
        for _ in 0..<batches {
            let elapsed = try ContinuousClock().measure {
                for _ in 0..<iterations { try body() }
            }
            best = min(best, elapsed / iterations)
        }
        return best
    }

    @Test func timesEncodingASnapshot() {
        var session = try? MotionSession(exercise: .elbowFlexion, side: .right)
        _ = try? session?.process(Pose.make(t: 1, [.rightShoulder: Point(x: 1, y: 1)]))
        guard let snapshot = session?.snapshot else {
            Issue.record("no session")
            return
        }
        session = nil
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1024)
        let best = Self.bestPerIteration(batches: 10, iterations: 2000) {
            buffer.removeAll(keepingCapacity: true)
            WireEncoder.encodeSnapshot(snapshot, into: &buffer)
        }
        #expect(!buffer.isEmpty)
        print("encode snapshot (\(buffer.count) bytes): \(best) per message (best of 10 batches)")
    }
}
