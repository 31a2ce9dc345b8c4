import Foundation
import HTTPServer
import MotionCore
import MotionServer
import MotionSimulation
import MotionWire

/// Tests/HTTPServerTests/Fixtures/tls/`name`: the test certificates (for `localhost`), found from this file's path.
func tlsFixture(_ name: String) -> String {
    var components = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
    components.removeLast(2)
    return components.joined(separator: "/") + "/HTTPServerTests/Fixtures/tls/" + name
}

/// A motion-server on a free loopback port with a fresh SQLite file, shut down after `body`.
/// - Parameters:
///   - tokens: The tokens file's text (`token tenant` lines); nil runs without authentication.
///   - tls: Whether to serve TLS with the `ecdsa` test certificate (the URL is then `wss://localhost:…`).
///   - body: Given the server's `ws://` (or `wss://`) URL.
func withMotionServer(tokens: String? = nil, tls: Bool = false, _ body: (String) async throws -> Void) async throws {
    let directory = NSTemporaryDirectory() + "motion-client-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var options = ServerOptions()
    options.port = 0
    options.threads = 2
    options.database = directory + "/motion.sqlite"
    options.publicDirectory = directory + "/no-public"
    options.logLevel = .error
    options.limits.framesPerSecond = 100_000
    options.limits.motionSamplesPerSecond = 100_000
    if let tokens {
        options.tokensFile = directory + "/tokens"
        try tokens.write(toFile: directory + "/tokens", atomically: true, encoding: .utf8)
    }
    if tls {
        options.tlsCertificate = tlsFixture("ecdsa.pem")
        options.tlsKey = tlsFixture("ecdsa.key")
    }
    let server = try await MotionServer(options: options)
    let address = try server.start()
    do {
        try await body(tls ? "wss://localhost:\(address.port)" : "ws://127.0.0.1:\(address.port)")
    } catch {
        await server.shutdown(gracePeriod: .milliseconds(200))
        throw error
    }
    await server.shutdown(gracePeriod: .seconds(2))
}

/// Simulated poses of `exercise`: three reps, one with a fault when the exercise has form rules.
func simulatedPoses(_ exercise: Exercise, side: BodySide = .right, noise: Double = 0.5) -> [Pose] {
    let peak = exercise.target
    let reps: [SimulatedRep] =
        exercise.kind == .hold
        ? [SimulatedRep(peak: peak, holdFor: exercise.thresholds.holdSeconds + 1)]
        : [SimulatedRep(peak: peak), SimulatedRep(peak: peak * 0.9), SimulatedRep(peak: peak * 0.95)]
    var simulation = Simulation(exercise: exercise, side: side, reps: reps)
    simulation.noise = noise
    return simulation.poses()
}

/// What a local ``MotionSession`` makes of `poses`: its events in order, its last snapshot and its summary as the
/// wire carries it (no value series).
func localRun(_ exercise: Exercise, side: BodySide?, poses: [Pose]) throws -> ([MotionEvent], MotionSummaryView) {
    let session = try MotionSession(exercise: exercise, side: side)
    var events: [MotionEvent] = []
    for pose in poses { events += (try? session.process(pose)) ?? [] }
    session.stop()
    return (events, MotionSummaryView(session.summary, snapshot: session.snapshot))
}

/// The parts of a summary and the last snapshot a remote session can reproduce exactly.
struct MotionSummaryView: Equatable, CustomStringConvertible {
    var summary: SessionSummary
    var snapshot: MotionSnapshot

    init(_ summary: SessionSummary, snapshot: MotionSnapshot) {
        var summary = summary
        summary.series = ValueSeries()
        self.summary = summary
        self.snapshot = snapshot
    }

    var description: String { "\(summary)\n\(snapshot)" }
}

/// The pose as the server reads it from a binary frame (coordinates as `Float`, confidences in 255ths).
func throughBinaryFrame(_ pose: Pose) throws -> Pose {
    var bytes: [UInt8] = []
    BinaryPoseFrame.encode(pose, into: &bytes)
    return try PoseDecoder(StartRequest(exercise: "elbowFlexion")).decodeBinaryPose(bytes)
}
