import Glibc
import MotionCore
import MotionSimulation
import MotionWire

/// The poses every session streams, encoded once: each `pose` message split around its timestamp, so a send only
/// writes the prefix, the session's own `t` and the rest. Sessions start at different offsets and loop over it.
struct PoseScript: Sendable {
    /// `{"type":"pose","t":`
    static let prefix: [UInt8] = Array(#"{"type":"pose","t":"#.utf8)
    /// What follows the timestamp in each message: `,"width":…}`.
    let frames: [[UInt8]]
    /// The same poses as binary frames (docs/protocol.md §3.2), `t` 0: a send writes its own `t` at ``binaryTimeOffset``.
    let binaryFrames: [[UInt8]]
    /// Where a binary frame's `t` lies.
    static let binaryTimeOffset = 8
    /// Where the script came from, for the report.
    let source: String
    /// Motion samples (`--motion`) at ``motionRate`` per second, each as what follows its `t`: `,ax,ay,az]`. A
    /// simulated script's phone is on the moving limb (`Simulation.motionSamples`); a recorded one's lies still.
    let motionSamples: [[UInt8]]
    /// Motion samples per second.
    static let motionRate = 60.0

    /// The mean message size in bytes (with a typical timestamp).
    var meanMessageBytes: Int {
        frames.isEmpty ? 0 : Self.prefix.count + 9 + frames.map(\.count).reduce(0, +) / frames.count
    }

    /// The mean binary frame size in bytes.
    var meanBinaryBytes: Int { binaryFrames.isEmpty ? 0 : binaryFrames.map(\.count).reduce(0, +) / binaryFrames.count }

    /// Why a script could not be made.
    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// A simulated session of `exercise` at `rate` frames/s: ten reps (or holds), some with the exercise's first
    /// fault, with detector-like noise and coordinates to 0.01 px — about 30 seconds before it loops.
    static func simulated(exercise: Exercise, side: BodySide, rate: Double) throws(Failure) -> PoseScript {
        let peak = Scenario.typicalPeak(for: exercise)
        let fault = exercise.possibleFaults.first
        let step = 0.04 * (peak - exercise.thresholds.rest)
        let reps = (0..<10).map { index in
            SimulatedRep(
                peak: peak - Double(index % 3) * step, faults: index % 4 == 3 ? (fault.map { [$0] } ?? []) : [])
        }
        var simulation = Simulation(exercise: exercise, side: side, reps: reps)
        simulation.frameRate = rate
        simulation.noise = 1.0
        simulation.seed = 17
        let phone = simulation.motionSamples(SimulatedPhone(rate: motionRate))
        return try PoseScript(
            poses: simulation.poses(), source: "simulated \(exercise.id) (\(side.rawValue))",
            motion: phone.map(\.acceleration))
    }

    /// A recorded session: NDJSON poses, one per line, or `{"frames":[…]}`, in the `joints` format. The
    /// recording's timestamps are replaced by the sending schedule's.
    static func recorded(path: String) throws(Failure) -> PoseScript {
        let bytes: [UInt8]
        switch readFile(path, limit: maxRecordingBytes) {
        case .success(let read): bytes = read
        case .failure(let failure): throw failure
        }
        let decoder = PoseDecoder(
            limits: WireLimits(maxMessageBytes: max(bytes.count, 1 << 20), maxFramesPerBatch: .max))
        var poses: [Pose] = []
        do throws(WireError) {
            let isBatch =
                bytes.first { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 } == UInt8(ascii: "{")
                && bytes.firstRange(of: Array(#""frames""#.utf8)) != nil
            // A recording is replayed whole or not at all: a frame the decoder refuses refuses it.
            for frame in isBatch ? try decoder.decodeFrames(bytes) : try decoder.decodeNDJSON(bytes) {
                poses.append(try frame.get())
            }
        } catch {
            throw Failure(description: "\(path): \(error.message)")
        }
        return try PoseScript(poses: poses, source: "recorded \(path)")
    }

    private init(
        poses: [Pose], source: String, motion: [MotionVector] = [MotionVector(x: 0, y: 9.81, z: 0)]
    ) throws(Failure) {
        guard !poses.isEmpty else { throw Failure(description: "\(source): no poses") }
        var buffer: [UInt8] = []
        frames = poses.map { pose in
            buffer.removeAll(keepingCapacity: true)
            WireEncoder.encodePose(pose, decimals: 2, into: &buffer)
            // The message starts with the prefix and a number without commas; keep what follows the number.
            let rest = buffer[Self.prefix.count...]
            let comma = rest.firstIndex(of: UInt8(ascii: ",")) ?? buffer.endIndex
            return Array(buffer[comma...])
        }
        binaryFrames = poses.map { pose in
            var untimed = pose
            untimed.timestamp = 0
            buffer.removeAll(keepingCapacity: true)
            BinaryPoseFrame.encode(untimed, into: &buffer)
            return buffer
        }
        self.source = source
        motionSamples = motion.map { a in
            func text(_ value: Double) -> String { String(Double((value * 1000).rounded()) / 1000) }
            return Array(",\(text(a.x)),\(text(a.y)),\(text(a.z))]".utf8)
        }
    }

    /// The largest recording read (it is held in memory, encoded once more for sending).
    static let maxRecordingBytes = 256 << 20

    private static func readFile(_ path: String, limit: Int) -> Result<[UInt8], Failure> {
        func failure(_ what: String) -> Result<[UInt8], Failure> {
            .failure(Failure(description: "cannot read \(path): \(what)"))
        }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return failure(String(cString: strerror(errno))) }
        defer { close(fd) }
        var status = stat()
        guard fstat(fd, &status) == 0 else { return failure(String(cString: strerror(errno))) }
        guard status.st_size <= limit else { return failure("\(status.st_size) bytes, more than \(limit)") }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            guard count >= 0 else { return failure(String(cString: strerror(errno))) }
            if count == 0 { return .success(bytes) }
            guard bytes.count + count <= limit else { return failure("more than \(limit) bytes") }
            bytes += chunk[0..<count]
        }
    }
}

/// Writing a session's timestamps: frame k of a session at R frames/s has `t` = k/R seconds, written with
/// microsecond precision by integer arithmetic (no allocation); the server echoes it in the snapshot, and
/// round(t·R) recovers k.
enum Timestamp {
    /// Frame `k`'s timestamp as a number: the value its decimal text (``append(frame:microsecondsPerFrame:to:)``)
    /// reads back as.
    static func seconds(frame k: Int, microsecondsPerFrame: Double) -> Double {
        Double(UInt64((Double(k) * microsecondsPerFrame).rounded())) / 1_000_000
    }

    /// Appends frame `k`'s timestamp.
    static func append(frame k: Int, microsecondsPerFrame: Double, to buffer: inout [UInt8]) {
        let micros = UInt64((Double(k) * microsecondsPerFrame).rounded())
        appendDecimal(micros / 1_000_000, to: &buffer)
        buffer.append(UInt8(ascii: "."))
        var fraction = micros % 1_000_000
        var digits: (UInt8, UInt8, UInt8, UInt8, UInt8, UInt8) = (0, 0, 0, 0, 0, 0)
        withUnsafeMutableBytes(of: &digits) { bytes in
            for index in stride(from: 5, through: 0, by: -1) {
                bytes[index] = UInt8(ascii: "0") + UInt8(fraction % 10)
                fraction /= 10
            }
            buffer.append(contentsOf: bytes)
        }
    }

    private static func appendDecimal(_ value: UInt64, to buffer: inout [UInt8]) {
        var divisor: UInt64 = 1
        while value / divisor >= 10 { divisor *= 10 }
        while divisor > 0 {
            buffer.append(UInt8(ascii: "0") + UInt8(value / divisor % 10))
            divisor /= 10
        }
    }

    /// The frame number a snapshot's `t` (the bytes of a JSON number) answers, or nil when it is no number.
    /// - Parameter atOrBefore: Whether to take the last frame at or before the time (for a time between frames,
    ///   as `resumed.motionT` may be) rather than the nearest.
    static func frame(
        of number: UnsafeRawBufferPointer, framesPerSecond: Double, atOrBefore: Bool = false
    ) -> Int? {
        guard !number.isEmpty, number.count < 40 else { return nil }
        let value = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 41) { text -> Double? in
            for index in 0..<number.count { text[index] = CChar(bitPattern: number[index]) }
            text[number.count] = 0
            guard let base = text.baseAddress else { return nil }
            var end: UnsafeMutablePointer<CChar>?
            let value = strtod(base, &end)
            return end == base + number.count ? value : nil
        }
        guard let value, value.isFinite, value >= 0 else { return nil }
        // A microsecond of slack: a time written for frame k reads back within it of k / rate.
        if atOrBefore { return Int((value * framesPerSecond + 1e-6 * framesPerSecond).rounded(.down)) }
        return Int((value * framesPerSecond).rounded())
    }
}
