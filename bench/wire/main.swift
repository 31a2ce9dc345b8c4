import Basics
import Foundation
import MotionCore
import MotionSimulation
import MotionWire

/// MotionWire against Foundation on the same pose frames: µs per frame to decode a ~1 KB `pose` message (with the
/// pose decoder alone, and through `MessageDecoder` as a live session does: `type` first, then the pose), and to
/// encode a snapshot (afresh, and with a session's cache as the live path does); and µs per `motion` message of 10
/// samples (docs/protocol.md §3.3) through `MessageDecoder`. Usage:
/// `wire-bench [--runs N] [--frames N]`.
struct PoseMessage: Decodable {
    var type: String
    var t: Double
    var width: Double?
    var height: Double?
    var points: [String: [Double]]
    var confidence: [String: Double]?
}

func message(_ pose: Pose) -> [UInt8] {
    var points: [String] = []
    var confidences: [String] = []
    for joint in Joint.allCases {
        guard let point = pose[joint] else { continue }
        // Detectors' output as clients send it: pixels to 0.01, confidences to 0.001.
        points.append("\"\(joint.rawValue)\":[\(fixed(point.x)),\(fixed(point.y))]")
        if let value = pose.confidence(of: joint) {
            confidences.append("\"\(joint.rawValue)\":\(String(format: "%.3f", value))")
        }
    }
    let points2 = points.joined(separator: ",")
    let confidence = confidences.joined(separator: ",")
    return Array(
        #"{"type":"pose","t":\#(String(format: "%.4f", pose.timestamp)),"width":1280,"height":720,"points":{\#(points2)},"confidence":{\#(confidence)}}"#
            .utf8)
}

func measure(_ frames: [[UInt8]], runs: Int, _ body: ([UInt8]) -> Void) -> [Double] {
    let clock = ContinuousClock()
    return (0..<runs).map { _ in
        let elapsed = clock.measure { for frame in frames { body(frame) } }
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return seconds * 1e6 / Double(frames.count)
    }
}

func median(_ values: [Double]) -> Double { values.sorted()[values.count / 2] }
func fixed(_ value: Double) -> String { String(format: "%.2f", value) }

func main() throws {
    var runs = 5
    var count = 3000
    do throws(FlagError) {
        let parsed = try CommandLineFlags([.value("runs"), .value("frames")]).parse(
            Array(CommandLine.arguments.dropFirst()))
        guard !parsed.wantsHelp else {
            Console.line("usage: wire-bench [--runs N] [--frames N]")
            return
        }
        for flag in parsed.flags {
            if flag.name == "runs" {
                runs = try flag.integer(in: 1...Int.max)
            } else {
                count = try flag.integer(in: 1...Int.max)
            }
        }
    } catch {
        Console.error("wire-bench: \(error.message)")
        exit(2)
    }
    var simulation = Simulation(exercise: .squat, side: .right, reps: (0..<40).map { _ in .init(peak: 100) })
    simulation.noise = 1.5
    let poses = Array(simulation.poses().prefix(count))
    let frames = poses.map(message)
    let bytes = frames.map(\.count).reduce(0, +) / frames.count
    let decoder = PoseDecoder()
    let json = JSONDecoder()
    var sink = 0.0
    let ours = measure(frames, runs: runs) { frame in
        if let pose = try? decoder.decodePose(frame) { sink += pose.timestamp }
    }
    let messages = MessageDecoder()
    let message = measure(frames, runs: runs) { frame in
        if case .pose(let pose)? = try? messages.decode(frame) { sink += pose.timestamp }
    }
    let foundation = measure(frames, runs: runs) { frame in
        if let pose = try? json.decode(PoseMessage.self, from: Data(frame)) { sink += pose.t }
    }
    let serialization = measure(frames, runs: runs) { frame in
        if let object = try? JSONSerialization.jsonObject(with: Data(frame)) as? [String: Any] {
            sink += object["t"] as? Double ?? 0
        }
    }
    // A phone's motion message as it streams them: 10 samples of 100 Hz accelerometer (about 0.1 s), each with its
    // rotation rate, numbers as a browser's JSON.stringify writes DeviceMotionEvent values (3 to 4 decimals).
    let motionFrames: [[UInt8]] = (0..<count).map { index in
        let samples = (0..<10).map { step in
            let t = Double(index * 10 + step) / 100
            let a = (sin(t * 7), cos(t * 5) - 9.81, sin(t * 3) * 0.5)
            let r = (sin(t) * 20, cos(t) * 15, sin(t * 2) * 5)
            return String(
                format: "[%.3f,%.4f,%.4f,%.4f,%.3f,%.3f,%.3f]", 12 + t, a.0, a.1, a.2, r.0, r.1, r.2)
        }
        return Array(#"{"type":"motion","samples":[\#(samples.joined(separator: ","))]}"#.utf8)
    }
    let motionBytes = motionFrames.map(\.count).reduce(0, +) / motionFrames.count
    let motion = measure(motionFrames, runs: runs) { frame in
        if case .motion(let samples)? = try? messages.decode(frame), case .success(let sample)? = samples.last {
            sink += sample.t
        }
    }
    var engine = try MotionEngine(configuration: SessionConfiguration(exercise: .squat))
    for pose in poses.prefix(100) { _ = try engine.process(pose) }
    let snapshot = engine.snapshot()
    var buffer: [UInt8] = []
    let encode = measure(Array(frames.prefix(1000)), runs: runs) { _ in
        buffer.removeAll(keepingCapacity: true)
        WireEncoder.encodeSnapshot(snapshot, into: &buffer)
    }
    // The live path: a session's cache keeps its last rep encoded from one snapshot to the next.
    var cache = SnapshotCache()
    let cached = measure(Array(frames.prefix(1000)), runs: runs) { _ in
        buffer.removeAll(keepingCapacity: true)
        WireEncoder.encodeSnapshot(snapshot, cache: &cache, into: &buffer)
    }
    print("frames: \(frames.count) pose messages of \(bytes) bytes on average (19 joints with confidence)")
    print("snapshot: \(buffer.count) bytes, lastRep \(snapshot.lastRep == nil ? "null" : "present")")
    print("motion: \(motionFrames.count) motion messages of 10 samples with rotation, \(motionBytes) bytes on average")
    print("| what | µs per frame, median of \(runs) (min–max) |")
    print("| --- | --- |")
    for (name, values) in [
        ("MotionWire PoseDecoder", ours), ("MotionWire MessageDecoder (live path)", message),
        ("Foundation JSONDecoder (Codable struct)", foundation),
        ("Foundation JSONSerialization", serialization), ("MotionWire encode snapshot", encode),
        ("MotionWire encode snapshot (session cache)", cached),
        ("MotionWire MessageDecoder, motion message of 10 samples (live path)", motion),
    ] {
        print("| \(name) | \(fixed(median(values))) (\(fixed(values.min() ?? 0))–\(fixed(values.max() ?? 0))) |")
    }
    print("ratio JSONDecoder / MotionWire: \(fixed(median(foundation) / median(ours)))×; checksum \(Int(sink) % 10)")
}

try main()
