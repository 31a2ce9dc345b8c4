import Foundation
import HTTPServer
import HTTPWire
import MotionCore
import MotionServer
import MotionSimulation
import MotionWire
import NetworkTestSupport
import SessionStore
import Testing
import WebSocketClient

/// A session write the server reported once the store had taken it (`stored`) or failed it.
struct ReportedWrite: Sendable {
    var write: SessionWrite
    var id: SessionID
    var stored: Bool

    /// Whether this is the stored final summary of session `id` with `status`.
    func isFinish(of id: String, status: SessionStatus) -> Bool {
        guard stored, self.id.description == id, case .finish(_, let ended, _) = write else { return false }
        return ended == status
    }

    /// Whether this is the stored flag of whether session `id`'s client is `connected`.
    func isConnection(_ connected: Bool, of id: String) -> Bool {
        guard stored, self.id.description == id, case .connection(let flag) = write else { return false }
        return flag == connected
    }

    /// The checkpointed summary, when this is a stored checkpoint of session `id`.
    func checkpoint(of id: String) -> SessionSummary? {
        guard stored, self.id.description == id, case .checkpoint(let summary, _) = write else { return nil }
        return summary
    }

    /// The checkpointed engine state, when this is a stored checkpoint of session `id` that kept one.
    func engineState(of id: String) -> [UInt8]? {
        guard stored, self.id.description == id, case .checkpoint(_, let state) = write else { return nil }
        return state
    }
}

/// A motion-server on a free port with a fresh SQLite file, stopped after `body`.
/// - Parameters:
///   - clock: What its event loops and checkpoint batches run by (a ``ManualClock`` the test moves).
///   - writes: Where the server reports every session write once it is stored, for the test to wait on.
///   - database: The SQLite file to use instead of a fresh one (a server started again on the same data).
///   - configure: Sets what else the test needs (allowed hosts and origins, TLS, a public directory), last.
func withMotionServer(
    tokens: String? = nil, limits: LiveLimits = fastLimits(), exercises: ExerciseLimits = ExerciseLimits(),
    webSocketEcho: Bool = false, clock: LoopClock = .monotonic, writes: Observed<[ReportedWrite]>? = nil,
    database: String? = nil, configure: (inout ServerOptions) -> Void = { _ in },
    _ body: (SocketAddress, MotionServer, String) async throws -> Void
) async throws {
    let directory = NSTemporaryDirectory() + "motion-\(UUID().uuidString)"
    try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(atPath: directory) }
    var options = ServerOptions()
    options.port = 0
    options.threads = 2
    options.database = database ?? directory + "/motion.sqlite"
    options.exercises = exercises
    options.publicDirectory = directory + "/no-public"
    options.logLevel = .error
    if let tokens {
        options.tokensFile = directory + "/tokens"
        try tokens.write(toFile: directory + "/tokens", atomically: true, encoding: .utf8)
    }
    options.limits = limits
    options.webSocketEcho = webSocketEcho
    configure(&options)
    var observer: StoreWriteObserver?
    if let writes {
        observer = { write, id, stored in
            writes.record { $0.append(ReportedWrite(write: write, id: id, stored: stored)) }
        }
    }
    let server = try await MotionServer(options: options, clock: clock, storeObserver: observer)
    let address = try server.start()
    do {
        try await body(address, server, options.database)
    } catch {
        await server.shutdown(gracePeriod: .milliseconds(200))
        throw error
    }
    await server.shutdown(gracePeriod: .seconds(2))
}

/// One request on a fresh connection, read on a thread of its own (``offPool(_:)``): a blocking read on the
/// concurrency pool could starve the server's own tasks in a loaded parallel run.
func request(
    _ address: SocketAddress, _ method: String, _ path: String, token: String? = nil, headers: String = "",
    body: String = ""
) async throws -> TestResponse? {
    try await offPool {
        let client = try TestClient(address)
        let auth = token.map { "Authorization: Bearer \($0)\r\n" } ?? ""
        client.send(
            "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(address.port)\r\n\(auth)\(headers)Content-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
        return client.readResponse(method: method)
    }
}

func fastLimits() -> LiveLimits {
    var limits = LiveLimits()
    limits.framesPerSecond = 100_000
    return limits
}

/// ``fastLimits()`` with checkpoints every 200 ms of the server's clock, gathered for 50 ms: what a test moving a
/// ``ManualClock`` steps through.
func checkpointingLimits() -> LiveLimits {
    var limits = fastLimits()
    limits.checkpointInterval = .milliseconds(200)
    limits.checkpointBatchWindow = .milliseconds(50)
    return limits
}

/// A pose as a `pose` message in the `joints` format.
func poseMessage(_ pose: Pose) -> String {
    var points: [String] = []
    for joint in Joint.allCases {
        guard let point = pose[joint] else { continue }
        points.append("\"\(joint.rawValue)\":[\(point.x),\(point.y)]")
    }
    return
        #"{"type":"pose","t":\#(pose.timestamp),"width":1280,"height":720,"points":{\#(points.joined(separator: ","))}}"#
}

func decode(_ message: WebSocketMessage) -> [String: Any]? {
    guard case .text(let text) = message else { return nil }
    return (try? JSONSerialization.jsonObject(with: Data(text.utf8))) as? [String: Any]
}

extension Inbox {
    func objects() -> [[String: Any]] { messages.compactMap(decode) }
}

@Suite("motion-server in process")
struct MotionServerTests {
    static func connect(
        _ address: SocketAddress, path: String = "/v1/stream", headers: HTTPHeaders = HTTPHeaders(),
        protocols: [String] = [], group: EventLoopGroup
    ) async throws -> (WebSocket, Inbox) {
        var options = WebSocketClient.Options()
        options.headers = headers
        options.protocols = protocols
        let socket = try await WebSocketClient.connect(
            host: "127.0.0.1", port: address.port, path: path, options: options, on: group.next())
        let inbox = Inbox()
        await inbox.attach(to: socket)
        return (socket, inbox)
    }

    static func get(_ address: SocketAddress, _ path: String, token: String? = nil) async throws -> TestResponse? {
        try await request(address, "GET", path, token: token)
    }

    static func json(_ response: TestResponse?) -> [String: Any]? {
        response.flatMap { (try? JSONSerialization.jsonObject(with: Data($0.body))) as? [String: Any] }
    }

    /// The session over REST once its connection's end reached the server and was stored (`writes` is the
    /// server's), which the REST answer must show as `"connected":false`.
    static func sessionOnceDetached(
        _ address: SocketAddress, _ id: String, writes: Observed<[ReportedWrite]>
    ) async throws -> [String: Any]? {
        await writes.wait { $0.contains { $0.isConnection(false, of: id) } }
        let session = json(try await get(address, "/v1/sessions/\(id)"))
        #expect(session?["connected"] as? Bool == false)
        return session
    }

    @Test func liveSessionCountsRepsAndStoresTheSummary() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        try await withMotionServer { address, _, _ in
            let (socket, inbox) = try await Self.connect(address, group: group)
            socket.send(.text(#"{"type":"start","exercise":"elbowFlexion","side":"right","subject":"p-1"}"#))
            var simulation = Simulation(
                exercise: .elbowFlexion, side: .right, reps: [.init(peak: 130), .init(peak: 120), .init(peak: 125)])
            simulation.noise = 1
            let poses = simulation.poses()
            for pose in poses { socket.send(.text(poseMessage(pose))) }
            socket.send(.text(#"{"type":"stop"}"#))
            await inbox.wait { $0.close != nil }
            let objects = inbox.objects()
            #expect(inbox.close?.0 == .normal, "closed with \(String(describing: inbox.close))")
            #expect(objects.first?["type"] as? String == "started")
            let reps = objects.filter { $0["event"] as? String == "repCompleted" }
            #expect(reps.count == 3)
            let snapshots = objects.filter { $0["type"] as? String == "snapshot" }
            #expect(snapshots.count == poses.count, "one snapshot per pose by default")
            let summary = try #require(objects.last { $0["type"] as? String == "summary" })
            #expect(summary["repCount"] as? Int == 3)
            #expect(summary["status"] as? String == "finished")
            #expect(inbox.close?.0 == .normal)
            let id = try #require(summary["id"] as? String)
            let stored = try #require(Self.json(try await Self.get(address, "/v1/sessions/\(id)")))
            #expect(stored["status"] as? String == "finished")
            #expect(stored["repCount"] as? Int == 3)
            #expect(stored["subject"] as? String == "p-1")
            #expect(stored["frames"] as? Int == poses.count)
        }
    }

    @Test func liveSessionsAreCheckpointedTogetherWhileTheyRun() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        // The server's checkpoint timers and batch window run on a clock that moves only when the test moves it.
        let clock = ManualClock()
        let writes = Observed<[ReportedWrite]>([])
        let limits = checkpointingLimits()
        try await withMotionServer(limits: limits, clock: .manual(clock), writes: writes) { address, _, _ in
            var ids: [String] = []
            var sockets: [(WebSocket, Inbox)] = []
            for _ in 0..<3 {
                let (socket, inbox) = try await Self.connect(address, group: group)
                socket.send(.text(#"{"type":"start","exercise":"squat"}"#))
                await inbox.wait { $0.messages.count >= 1 }
                ids.append(try #require(inbox.objects().first?["session"] as? String))
                sockets.append((socket, inbox))
            }
            let poses = Simulation(exercise: .squat, side: .right, reps: [.init(peak: 100), .init(peak: 100)]).poses()
            for pose in poses {
                for (socket, _) in sockets { socket.send(.text(poseMessage(pose))) }
            }
            // Every pose is processed once the snapshot of the last one is back (snapshots coalesce, the last stays).
            let last = try #require(poses.last).timestamp
            for (_, inbox) in sockets {
                await inbox.wait {
                    let snapshot = $0.messages.last {
                        guard case .text(let text) = $0 else { return false }
                        return text.hasPrefix(#"{"type":"snapshot""#)
                    }
                    guard let snapshot, let t = decode(snapshot)?["t"] as? Double else { return false }
                    return abs(t - last) < 1e-6
                }
            }
            let sessions = ids
            let checkpointed: @Sendable ([ReportedWrite]) -> Int = { reported in
                reported.filter { write in sessions.contains { write.checkpoint(of: $0) != nil } }.count
            }
            await clock.advance(by: limits.checkpointInterval - .milliseconds(1))
            await clock.advance(by: .milliseconds(1))
            // The three sessions' timers fired together; their checkpoints gather for the batch window.
            await clock.advance(by: limits.checkpointBatchWindow - .milliseconds(1))
            #expect(checkpointed(writes.current) == 0, "nothing is written before the batch window has passed")
            await clock.advance(by: .milliseconds(1))
            // The sessions stay open; their checkpoints reach the store, in one batch, while they are live.
            await writes.wait { checkpointed($0) == 3 }
            for (id, (_, inbox)) in zip(ids, sockets) {
                let summary = writes.current.lazy.compactMap { $0.checkpoint(of: id) }.first
                #expect(summary?.frames == poses.count, "the checkpoint holds every pose")
                // The engine's state went with it: restored, it is the same session.
                let state = try #require(writes.current.lazy.compactMap { $0.engineState(of: id) }.first)
                let restored = try MotionEngine(
                    configuration: SessionConfiguration(exercise: .squat), restoring: state, series: summary?.series)
                #expect(restored.summary == summary)
                // Once stored, the client is told up to which pose (docs/protocol.md §3.1).
                await inbox.wait { box in
                    box.messages.contains {
                        guard let object = decode($0), object["type"] as? String == "checkpoint" else { return false }
                        return object["t"] as? Double == last && object.count == 2
                    }
                }
                let stored = Self.json(try await Self.get(address, "/v1/sessions/\(id)"))
                #expect(stored?["status"] as? String == "live")
                #expect(stored?["frames"] as? Int == poses.count, "checkpointed: \(String(describing: stored))")
                #expect(stored?["repCount"] as? Int == 2)
            }
            let metrics = try await Self.get(address, "/metrics").map { String(decoding: $0.body, as: UTF8.self) }
            #expect(
                metrics?.contains(#"motion_store_seconds_count{operation="checkpoint"} 1"#) == true,
                "one store call for the three checkpoints")
            for (socket, inbox) in sockets {
                socket.send(.text(#"{"type":"stop"}"#))
                await inbox.wait { $0.close != nil }
            }
            for id in ids {
                #expect(
                    Self.json(try await Self.get(address, "/v1/sessions/\(id)"))?["status"] as? String == "finished")
            }
        }
    }

    @Test func aSessionStreamedAsFastAsPossibleMatchesTheEngineInProcess() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        var simulation = Simulation(
            exercise: .shoulderAbduction, side: .left,
            reps: [.init(peak: 150), .init(peak: 140, faults: [.keepElbowStraight]), .init(peak: 120)])
        simulation.noise = 2
        simulation.dropoutRate = 0.03
        simulation.outOfFrame = [4.0...4.6]
        let poses = simulation.poses()
        // In process: the same poses, as the server will read them back from JSON.
        let decoder = PoseDecoder()
        var engine = try MotionEngine(configuration: SessionConfiguration(exercise: .shoulderAbduction, side: .left))
        var expected: [String] = []
        for pose in poses {
            let decoded = try decoder.decodePose(Array(poseMessage(pose).utf8))
            for event in try engine.process(decoded) {
                var bytes: [UInt8] = []
                WireEncoder.encodeEvent(event, at: decoded.timestamp, into: &bytes)
                expected.append(String(decoding: bytes, as: UTF8.self))
            }
        }
        try await withMotionServer { address, _, _ in
            let (socket, inbox) = try await Self.connect(address, group: group)
            socket.send(
                .text(#"{"type":"start","exercise":"shoulderAbduction","side":"left","options":{"snapshots":"off"}}"#))
            for pose in poses { socket.send(.text(poseMessage(pose))) }
            socket.send(.text(#"{"type":"stop"}"#))
            await inbox.wait { $0.close != nil }
            let received = inbox.messages.compactMap { message -> String? in
                guard case .text(let text) = message, text.hasPrefix(#"{"type":"event""#) else { return nil }
                return text
            }
            #expect(received == expected, "byte-identical events, in order")
            let summary = try #require(inbox.objects().last)
            #expect(summary["repCount"] as? Int == engine.summary.repCount)
            #expect(summary["rejectedCount"] as? Int == engine.summary.rejectedCount)
            #expect(summary["frames"] as? Int == engine.summary.frames)
            #expect(summary["best"] as? Double == engine.summary.best)
        }
    }

    @Test func refusedMessagesAreAnsweredAndTheSessionGoesOn() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        try await withMotionServer { address, _, _ in
            let (socket, inbox) = try await Self.connect(address, group: group)
            let sent: [(String, String)] = [
                (#"{"type":"pose","t":1,"points":{}}"#, "notStarted"),
                (#"{"type":"dance"}"#, "unknownType"),
                (#"{"type":"start","exercise":"juggling"}"#, "unknownExercise"),
                (#"{"type":"start","exercise":"elbowFlexion"}"#, "missingSide"),
                (#"{"type":"start""#, "invalidJSON"),
            ]
            for (message, _) in sent { socket.send(.text(message)) }
            socket.send(.text(#"{"type":"start","exercise":"squat","options":{"snapshots":"off"}}"#))
            let after: [(String, String)] = [
                (#"{"type":"start","exercise":"squat"}"#, "alreadyStarted"),
                (#"{"type":"pose","t":2,"points":{"leftKnee":[1e400,3]}}"#, "invalidPose"),
                (#"{"type":"pose","t":2,"points":{}}"#, ""),
                (#"{"type":"pose","t":1,"points":{}}"#, "nonIncreasingTime"),
            ]
            for (message, _) in after { socket.send(.text(message)) }
            // A binary message is a pose frame (docs/protocol.md §3.2): three bytes are too short for one.
            socket.send(.binary([1, 2, 3]))
            socket.send(.text(#"{"type":"stop"}"#))
            await inbox.wait { $0.close != nil }
            #expect(inbox.close?.0 == .normal, "closed with \(String(describing: inbox.close))")
            let codes = inbox.objects().compactMap { $0["type"] as? String == "error" ? $0["code"] as? String : nil }
            #expect(
                codes == sent.map(\.1) + after.map(\.1).filter { !$0.isEmpty } + ["invalidPose"])
            let summary = try #require(inbox.objects().last)
            #expect(summary["type"] as? String == "summary")
            #expect(summary["frames"] as? Int == 1, "the one valid pose was processed")
        }
    }

    @Test func framesBeyondTheBudgetAreSlowedDownNotRefused() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        var limits = LiveLimits()
        limits.framesPerSecond = 500
        try await withMotionServer(limits: limits) { address, _, _ in
            let (socket, inbox) = try await Self.connect(address, group: group)
            let started = ContinuousClock.now
            socket.send(.text(#"{"type":"start","exercise":"squat","options":{"snapshots":"off"}}"#))
            // 2,000 frames of about 1 KiB: a burst of 1,000, the rest at 500 frames/s; the server reads at most one
            // 64 KiB buffer past its budget before it stops reading.
            let padding = String(repeating: "x", count: 1000)
            for i in 0..<1998 { socket.send(.text(#"{"type":"pose","t":\#(i),"points":{},"pad":"\#(padding)"}"#)) }
            socket.send(.text(#"{"type":"poses","frames":[{"t":1998,"points":{}},{"t":1999,"points":{}}]}"#))
            socket.send(.text(#"{"type":"stop"}"#))
            await inbox.wait { $0.close != nil }
            let objects = inbox.objects()
            #expect(objects.filter { $0["type"] as? String == "error" }.isEmpty, "no frame is refused for speed")
            #expect((objects.last { $0["type"] as? String == "summary" }?["frames"] as? Int) == 2000)
            #expect(ContinuousClock.now - started >= .milliseconds(1500), "the client was slowed down")
        }
    }

    @Test func aBatchIsJudgedFrameByFrameAndAnUnknownJointIsToldOnce() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        try await withMotionServer { address, _, _ in
            let (socket, inbox) = try await Self.connect(address, group: group)
            socket.send(.text(#"{"type":"start","exercise":"squat","options":{"snapshots":"off"}}"#))
            socket.send(
                .text(
                    #"{"type":"poses","frames":[{"t":1,"points":{}},{"t":"x"},{"t":2,"points":{"left_knee_1_joint":[1,2]}},"#
                        + #"{"t":2,"points":{}},{"t":3,"points":{"leftHeel":[1,2]}}]}"#))
            socket.send(.text(#"{"type":"stop"}"#))
            await inbox.wait { $0.close != nil }
            let errors = inbox.objects().filter { $0["type"] as? String == "error" }
            #expect(errors.compactMap { $0["batchIndex"] as? Int } == [1, 3], "the bad frame and the repeated t")
            #expect(
                errors.compactMap { $0["code"] as? String } == ["invalidPose", "nonIncreasingTime", "unknownJoint"])
            #expect((errors.last?["message"] as? String)?.contains("left_knee_1_joint") == true, "the first one only")
            let summary = inbox.objects().last { $0["type"] as? String == "summary" }
            #expect(summary?["frames"] as? Int == 3, "the other frames were processed")
        }
    }

    /// Without a resume window (`--resume-seconds 0`), a dropped connection ends its session at once, as in v1.
    @Test func aVanishedClientsSessionIsStoredAsAbandonedWithoutAResumeWindow() async throws {
        let writes = Observed<[ReportedWrite]>([])
        var limits = fastLimits()
        limits.resumeWindow = .zero
        try await withMotionServer(limits: limits, writes: writes) { address, _, _ in
            let (upgraded, text) = try await offPool {
                let client = try TestClient(address)
                client.send(
                    "GET /v1/stream HTTP/1.1\r\nHost: 127.0.0.1:\(address.port)\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                        + "Sec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n")
                let upgraded = client.readResponse()?.status == 101
                client.send(Self.maskedText(#"{"type":"start","exercise":"squat"}"#))
                var started: [UInt8] = []
                // `started` follows the create's commit, which a loaded machine (this whole suite on two cores) may
                // take more than one read's timeout (15 s) to reach: four are allowed.
                var timeouts = 0
                while !String(decoding: started, as: UTF8.self).contains("started"), timeouts < 4 {
                    let more = client.readSome()
                    if more.isEmpty { timeouts += 1 }
                    started += more
                }
                for i in 0..<5 { client.send(Self.maskedText(#"{"type":"pose","t":\#(i),"points":{}}"#)) }
                _ = client.readSome()
                client.close()
                return (upgraded, String(decoding: started, as: UTF8.self))
            }
            #expect(upgraded)
            let id = try #require(text.range(of: #""session":""#).map { String(text[$0.upperBound...].prefix(26)) })
            // The server notices the dropped connection and stores the session's end.
            await writes.wait { $0.contains { $0.isFinish(of: id, status: .abandoned) } }
            let status = Self.json(try await Self.get(address, "/v1/sessions/\(id)"))?["status"] as? String
            #expect(status == "abandoned")
        }
    }

    /// A silent client's connection is closed as idle; its session then waits for a resume for its window like any
    /// dropped one (docs/protocol.md §3.1), and is stored as abandoned when none came.
    @Test func aSilentLiveSessionIsClosedAsIdleAndAbandonedAfterItsResumeWindow() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        // The idle check runs with every checkpoint timer, on the server's manual clock.
        let clock = ManualClock()
        let writes = Observed<[ReportedWrite]>([])
        var limits = fastLimits()
        limits.checkpointInterval = .seconds(5)
        limits.idleTimeout = .seconds(20)
        limits.resumeWindow = .seconds(30)
        try await withMotionServer(limits: limits, clock: .manual(clock), writes: writes) { address, _, _ in
            let (socket, inbox) = try await Self.connect(address, group: group)
            socket.send(.text(#"{"type":"start","exercise":"squat"}"#))
            await inbox.wait { $0.messages.count >= 1 }
            let id = try #require(inbox.objects().first?["session"] as? String)
            for _ in 0..<3 { await clock.advance(by: limits.checkpointInterval) }
            let metrics = try await Self.get(address, "/metrics").map { String(decoding: $0.body, as: UTF8.self) }
            #expect(metrics?.contains("motion_live_sessions 1\n") == true, "silent for 15 s: still live")
            await clock.advance(by: limits.checkpointInterval)
            // Silent for the idle timeout (20 s): closed with 1001 and stored as abandoned.
            await inbox.wait { $0.close != nil }
            #expect(inbox.close?.0 == .goingAway)
            #expect(inbox.close?.1 == "idle")
            // The server learns of the end when the client's close reply arrives.
            let waiting = try await Self.sessionOnceDetached(address, id, writes: writes)
            #expect(waiting?["status"] as? String == "live")
            // The window runs from the close; one millisecond before it ends the session still waits.
            await clock.advance(by: limits.resumeWindow - .milliseconds(1))
            #expect(!writes.current.contains { $0.isFinish(of: id, status: .abandoned) })
            await clock.advance(by: .milliseconds(1))
            await writes.wait { $0.contains { $0.isFinish(of: id, status: .abandoned) } }
            let ended = Self.json(try await Self.get(address, "/v1/sessions/\(id)"))
            #expect(ended?["status"] as? String == "abandoned")
            #expect(ended?["connected"] is NSNull)
        }
    }

    /// SIGTERM's drain closes live connections with 1001 and checkpoints their sessions, which stay live and
    /// resumable by the next run (docs/protocol.md §3.1).
    @Test func shutdownClosesLiveSessionsWith1001AndCheckpointsThem() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        let directory = NSTemporaryDirectory() + "motion-\(UUID().uuidString)"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        var options = ServerOptions()
        options.port = 0
        options.database = directory + "/motion.sqlite"
        options.publicDirectory = directory
        options.logLevel = .error
        options.limits = fastLimits()
        let server = try await MotionServer(options: options)
        let address = try server.start()
        let (socket, inbox) = try await Self.connect(address, group: group)
        socket.send(.text(#"{"type":"start","exercise":"squat"}"#))
        socket.send(.text(#"{"type":"pose","t":1,"points":{}}"#))
        await inbox.wait { $0.messages.count >= 2 }
        let id = try #require(inbox.objects().first?["session"] as? String)
        await server.shutdown()
        await inbox.wait { $0.close != nil }
        #expect(inbox.close?.0 == .goingAway)
        let store = try await SQLiteSessionStore(path: options.database)
        let point = try await store.resumePoint(id: try #require(SessionID(id)), tenant: "default")
        #expect(point?.session.status == .live)
        #expect(point?.session.summary.frames == 1)
        #expect(point?.engineState?.t == 1)
        #expect(point?.resumption?.tokenDigest.count == 32)
        await store.close()
    }

    @Test func watchersReceiveTheLiveSessionsMessages() async throws {
        let group = try EventLoopGroup(loops: 2)
        defer { group.shutdown() }
        try await withMotionServer { address, _, _ in
            let (socket, inbox) = try await Self.connect(address, group: group)
            socket.send(.text(#"{"type":"start","exercise":"squat"}"#))
            await inbox.wait { !$0.messages.isEmpty }
            let id = try #require(inbox.objects().first?["session"] as? String)
            let (_, watcher) = try await Self.connect(address, path: "/v1/sessions/\(id)/watch", group: group)
            // The watcher is registered once it has its `started` message; poses sent earlier would only show as
            // the current snapshot.
            await watcher.wait { $0.objects().contains { $0["type"] as? String == "started" } }
            for i in 0..<3 { socket.send(.text(#"{"type":"pose","t":\#(i),"points":{}}"#)) }
            // Snapshots coalesce under backpressure, so the last one (t = 2) is what must arrive.
            await watcher.wait {
                $0.objects().contains { $0["type"] as? String == "snapshot" && $0["t"] as? Double == 2 }
            }
            let unknown = try await request(
                address, "GET", "/v1/sessions/01ARZ3NDEKTSV4RRFFQ69G5FAV/watch",
                headers: "Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n"
                    + "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n")
            #expect(unknown?.status == 404)
            socket.send(.text(#"{"type":"stop"}"#))
            await watcher.wait { $0.close != nil }
        }
    }

    @Test func sessionsDrivenOverHTTPCanBeWatched() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        try await withMotionServer { address, _, _ in
            func post(_ path: String, _ body: String) async throws -> TestResponse? {
                try await request(address, "POST", path, body: body)
            }
            let created = try #require(try await post("/v1/sessions", #"{"exercise":"elbowFlexion","side":"right"}"#))
            let id = try #require(Self.json(created)?["id"] as? String)
            let (_, watcher) = try await Self.connect(address, path: "/v1/sessions/\(id)/watch", group: group)
            await watcher.wait { $0.objects().contains { $0["type"] as? String == "started" } }
            let frames = (0..<3).map { #"{"t":\#($0),"points":{"rightShoulder":[600,250],"rightElbow":[600,400]}}"# }
            #expect(
                try await post("/v1/sessions/\(id)/poses", #"{"frames":[\#(frames.joined(separator: ","))]}"#)?.status
                    == 200)
            await watcher.wait {
                $0.objects().contains { $0["type"] as? String == "snapshot" && $0["t"] as? Double == 2 }
            }
            #expect(try await post("/v1/sessions/\(id)/stop", "")?.status == 200)
            await watcher.wait { $0.close != nil }
            #expect(watcher.objects().last?["type"] as? String == "summary")
            #expect(watcher.close?.0 == .normal)
        }
    }

    @Test func tokensSeparateTenantsAndRefuseStrangers() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        let tokens = "# two clinics\naaaaaaaaaaaaaaaa1 clinic-a\nbbbbbbbbbbbbbbbb2 clinic-b\n"
        try await withMotionServer(tokens: tokens) { address, _, _ in
            #expect(try await Self.get(address, "/v1/sessions")?.status == 401)
            #expect(try await Self.get(address, "/v1/sessions", token: "wrong-token-000000")?.status == 401)
            #expect(try await Self.get(address, "/healthz")?.status == 200)
            let (socket, inbox) = try await Self.connect(
                address, protocols: ["bearer.aaaaaaaaaaaaaaaa1"], group: group)
            #expect(socket.subprotocol == "bearer.aaaaaaaaaaaaaaaa1")
            socket.send(.text(#"{"type":"start","exercise":"squat"}"#))
            socket.send(.text(#"{"type":"stop"}"#))
            await inbox.wait { $0.close != nil }
            let id = try #require(inbox.objects().first?["session"] as? String)
            #expect(try await Self.get(address, "/v1/sessions/\(id)", token: "aaaaaaaaaaaaaaaa1")?.status == 200)
            #expect(try await Self.get(address, "/v1/sessions/\(id)", token: "bbbbbbbbbbbbbbbb2")?.status == 404)
            let list = Self.json(try await Self.get(address, "/v1/sessions", token: "bbbbbbbbbbbbbbbb2"))
            #expect((list?["sessions"] as? [Any])?.isEmpty == true)
            let (_, refused) = try await Self.connect(address, protocols: ["bearer.nope-nope-nope-1"], group: group)
            await refused.wait { $0.close != nil }
            #expect(refused.close?.0 == .policyViolation)
        }
    }

    /// A masked text frame (clients must mask, RFC 6455 §5.3).
    static func maskedText(_ text: String) -> [UInt8] {
        var frame: [UInt8] = []
        WebSocketFrameEncoder.encode(
            WebSocketFrame(opcode: .text, payload: Array(text.utf8)), mask: (1, 2, 3, 4), into: &frame)
        return frame
    }
}
