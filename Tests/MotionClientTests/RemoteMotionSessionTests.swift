import Foundation
import MotionClient
import MotionClientLinux
import MotionCore
import MotionSimulation
import MotionWire
import Synchronization
import Testing

/// A ``RemoteMotionSession`` against the real server, started in process: the same events, snapshot and summary
/// as a local ``MotionSession`` on the same poses.
@Suite("remote motion session", .timeLimit(.minutes(2)))
struct RemoteMotionSessionTests {
    /// Every event of `session` until its streams end, collected by a listener started before the first pose.
    static func collect(_ session: RemoteMotionSession) -> Task<[MotionEvent], Never> {
        let stream = session.events()
        return Task {
            var events: [MotionEvent] = []
            for await event in stream { events.append(event) }
            return events
        }
    }

    /// Sends `poses` through a remote session and answers what it saw.
    static func remoteRun(
        _ url: String, _ exercise: Exercise, side: BodySide?, poses: [Pose],
        configuration: RemoteSessionConfiguration = .init()
    ) async throws -> ([MotionEvent], MotionSummaryView) {
        let session = try RemoteMotionSession(
            server: url, transport: EventLoopTransport(), exercise: exercise, side: side, configuration: configuration)
        let events = collect(session)
        for pose in poses { try session.process(pose) }
        let summary = try await session.stop()
        return (await events.value, MotionSummaryView(summary, snapshot: session.snapshot))
    }

    @Test(arguments: [
        ("elbowFlexion", BodySide.right, true), ("squat", nil, false), ("shoulderAbductionHold", .left, true),
        ("kneeExtension", .left, false),
    ])
    func givesTheEventsAndSummaryOfALocalSession(id: String, side: BodySide?, binary: Bool) async throws {
        let exercise = try #require(Exercise.named(id))
        var poses = simulatedPoses(exercise, side: side ?? .right)
        // Binary frames carry coordinates as Float: the local session gets the poses the server decodes.
        if binary { poses = try poses.map(throughBinaryFrame) }
        let (expectedEvents, expected) = try localRun(exercise, side: side, poses: poses)
        #expect(expected.summary.repCount + expected.summary.rejectedCount > 0 || exercise.kind == .hold)
        #expect(!expectedEvents.isEmpty)
        try await withMotionServer { url in
            var configuration = RemoteSessionConfiguration()
            configuration.binaryFrames = binary
            let (events, got) = try await Self.remoteRun(
                url, exercise, side: side, poses: poses, configuration: configuration)
            #expect(events == expectedEvents)
            #expect(got.summary == expected.summary)
            #expect(got.snapshot == expected.snapshot)
        }
    }

    @Test func deliversEveryEventToEveryListenerInParallel() async throws {
        let exercise = Exercise.elbowFlexion
        let poses = try simulatedPoses(exercise).map(throughBinaryFrame)
        let (expectedEvents, _) = try localRun(exercise, side: .right, poses: poses)
        try await withMotionServer { url in
            let session = try RemoteMotionSession(
                server: url, transport: EventLoopTransport(), exercise: exercise, side: .right)
            let listeners = (0..<4).map { _ in Self.collect(session) }
            let connection = session.connectionEvents()
            try await session.connect()
            // Poses from two tasks would race on time order; one feeder, while four listeners read in parallel.
            let feeder = Task { for pose in poses { try session.process(pose) } }
            try await feeder.value
            let summary = try await session.stop()
            #expect(summary.repCount == 3)
            for listener in listeners { #expect(await listener.value == expectedEvents) }
            var seen: [ConnectionEvent] = []
            for await event in connection { seen.append(event) }
            #expect(seen.count == 1)
            guard case .started = seen.first else { return #expect(Bool(false), "\(seen)") }
        }
    }

    @Test func resumesAfterTheConnectionIsCutMidSetWithAnIdenticalSummary() async throws {
        let exercise = Exercise.elbowFlexion
        let poses = try simulatedPoses(exercise).map(throughBinaryFrame)
        let (expectedEvents, expected) = try localRun(exercise, side: .right, poses: poses)
        try await withMotionServer { url in
            let port = try #require(UInt16(url.split(separator: ":").last ?? ""))
            let relay = try TCPRelay(to: port)
            defer { relay.close() }
            let session = try RemoteMotionSession(
                server: relay.url, transport: EventLoopTransport(), exercise: exercise, side: .right)
            let events = Self.collect(session)
            let connection = session.connectionEvents()
            let seen = Task {
                var seen: [ConnectionEvent] = []
                for await event in connection { seen.append(event) }
                return seen
            }
            // Cut once after the server has analysed a third, and once with frames in flight.
            let third = poses.count / 3
            for pose in poses[..<third] { try session.process(pose) }
            try await waitUntil { session.snapshot.timestamp == poses[third - 1].timestamp }
            relay.cut()
            for pose in poses[third..<(2 * third)] { try session.process(pose) }
            relay.cut()
            for pose in poses[(2 * third)...] { try session.process(pose) }
            let summary = try await session.stop()
            #expect(await events.value == expectedEvents)
            #expect(MotionSummaryView(summary, snapshot: session.snapshot) == expected)
            let connectionEvents = await seen.value
            #expect(connectionEvents.contains { if case .resumed = $0 { true } else { false } }, "\(connectionEvents)")
        }
    }

    @Test func sendsTheBearerToken() async throws {
        try await withMotionServer(tokens: "secret-token-0123456789 clinic\n") { url in
            let refused = try RemoteMotionSession(
                server: url, transport: EventLoopTransport(), exercise: .elbowFlexion, side: .right)
            await #expect(throws: RemoteSessionError.self) { try await refused.connect() }
            let session = try RemoteMotionSession(
                server: url, transport: EventLoopTransport(), exercise: .elbowFlexion, side: .right,
                token: "secret-token-0123456789")
            try await session.connect()
            for pose in simulatedPoses(.elbowFlexion) { try session.process(pose) }
            #expect(try await session.stop().repCount == 3)
        }
    }

    @Test func runsOverTLSAndRefusesAnUntrustedCertificate() async throws {
        try await withMotionServer(tls: true) { url in
            var configuration = RemoteSessionConfiguration()
            configuration.certificateAuthorityFile = tlsFixture("ecdsa.pem")
            let session = try RemoteMotionSession(
                server: url, transport: EventLoopTransport(), exercise: .elbowFlexion, side: .right,
                configuration: configuration)
            for pose in simulatedPoses(.elbowFlexion) { try session.process(pose) }
            #expect(try await session.stop().repCount == 3)
            let untrusted = try RemoteMotionSession(
                server: url, transport: EventLoopTransport(), exercise: .elbowFlexion, side: .right)
            var failure: RemoteSessionError?
            do throws(RemoteSessionError) {
                try await untrusted.connect()
            } catch {
                failure = error
            }
            guard case .connectionFailed(.tlsFailed)? = failure else {
                Issue.record("\(String(describing: failure))")
                return
            }
        }
    }

    @Test func refusesPosesAfterStopAndOutOfOrder() async throws {
        try await withMotionServer { url in
            let session = try RemoteMotionSession(
                server: url, transport: EventLoopTransport(), exercise: .elbowFlexion, side: .right)
            // Code written for the on-device session takes the remote one: the same signature, the same errors.
            let local: (Pose) throws(PoseError) -> [MotionEvent] = try MotionSession(
                exercise: .elbowFlexion, side: .right
            ).process
            let remote: (Pose) throws(PoseError) -> [MotionEvent] = session.process
            #expect(try local(Pose(timestamp: 1)).isEmpty)
            #expect(try remote(Pose(timestamp: 1)).isEmpty)
            #expect(throws: PoseError.nonIncreasingTime(previous: 1, received: 1)) {
                try session.process(Pose(timestamp: 1))
            }
            let summary = try await session.stop()
            #expect(summary.frames == 1)
            #expect(throws: PoseError.notRunning) { try session.process(Pose(timestamp: 2)) }
            #expect(try await session.stop() == summary)
        }
    }

    @Test func forwardsMotionSamplesBesideThePoses() async throws {
        try await withMotionServer { url in
            let session = try RemoteMotionSession(
                server: url, transport: EventLoopTransport(), exercise: .elbowFlexion, side: .right)
            let connection = session.connectionEvents()
            let seen = Task {
                var seen: [ConnectionEvent] = []
                for await event in connection { seen.append(event) }
                return seen
            }
            defer { seen.cancel() }
            let poses = simulatedPoses(.elbowFlexion)
            // Accelerometer samples at 100/s over the same seconds, on the poses' clock, in batches of 50.
            let samples = stride(from: 0.0, through: poses[poses.count - 1].timestamp, by: 0.01).map {
                MotionSample(t: $0, acceleration: MotionVector(x: 0.5 * sin(40 * $0), y: -9.8, z: 0.2))
            }
            for start in stride(from: 0, to: samples.count, by: 50) {
                try session.process(motion: Array(samples[start..<min(samples.count, start + 50)]))
            }
            for pose in poses { try session.process(pose) }
            let summary = try await session.stop()
            let events = await seen.value
            #expect(events.count == 1, "\(events)")
            #expect(summary.repCount == 3)
            #expect(summary.reps.allSatisfy { $0.motion != nil })
            #expect(session.snapshot.motion != nil)
        }
    }

    @Test func resumesWithTheMotionSamplesTheServerDidNotHold() async throws {
        let poses = simulatedPoses(.elbowFlexion)
        // Before each pose, the accelerometer's samples since the previous one, at 100/s.
        let samples = stride(from: 0.0, through: poses[poses.count - 1].timestamp, by: 0.01).map {
            MotionSample(t: $0, acceleration: MotionVector(x: 0.5 * sin(40 * $0), y: -9.8, z: 0.2 + 0.1 * cos(9 * $0)))
        }
        func feed(_ session: RemoteMotionSession, _ range: Range<Int>) throws {
            for index in range {
                let pose = poses[index]
                let previous = index > 0 ? poses[index - 1].timestamp : -1
                let batch = samples.filter { $0.t > previous && $0.t <= pose.timestamp }
                if !batch.isEmpty { try session.process(motion: batch) }
                try session.process(pose)
            }
        }
        try await withMotionServer { url in
            let whole = try RemoteMotionSession(
                server: url, transport: EventLoopTransport(), exercise: .elbowFlexion, side: .right)
            try feed(whole, 0..<poses.count)
            let expected = try await whole.stop()
            #expect(expected.reps.count == 3 && expected.reps.allSatisfy { $0.motion != nil })

            let port = try #require(UInt16(url.split(separator: ":").last ?? ""))
            let relay = try TCPRelay(to: port)
            defer { relay.close() }
            let session = try RemoteMotionSession(
                server: relay.url, transport: EventLoopTransport(), exercise: .elbowFlexion, side: .right)
            let third = poses.count / 3
            try feed(session, 0..<third)
            try await waitUntil { session.snapshot.timestamp == poses[third - 1].timestamp }
            relay.cut()
            try feed(session, third..<(2 * third))
            relay.cut()
            try feed(session, (2 * third)..<poses.count)
            let summary = try await session.stop()
            #expect(summary.reps.map(\.motion) == expected.reps.map(\.motion), "every sample reached the analysis")
        }
    }

    @Test func resetsOnTheServer() async throws {
        try await withMotionServer { url in
            let session = try RemoteMotionSession(
                server: url, transport: EventLoopTransport(), exercise: .elbowFlexion, side: .right)
            let poses = simulatedPoses(.elbowFlexion)
            let cut = poses.count * 2 / 3
            for pose in poses[..<cut] { try session.process(pose) }
            session.reset()
            for pose in poses[cut...] { try session.process(pose) }
            let summary = try await session.stop()
            #expect(summary.repCount == 1)
            #expect(session.snapshot.repCount == 1)
        }
    }
}

/// Waits until `condition` holds, polling, for at most `seconds`; fails the test if it never does.
func waitUntil(seconds: Double = 10, _ condition: () -> Bool) async throws {
    let deadline = Date().addingTimeInterval(seconds)
    while !condition() {
        guard Date() < deadline else {
            Issue.record("condition not met within \(seconds) s")
            return
        }
        try await Task.sleep(for: .milliseconds(5))
    }
}
