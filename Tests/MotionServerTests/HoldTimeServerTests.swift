import Foundation
import HTTPServer
import MotionCore
import MotionServer
import MotionSimulation
import NetworkTestSupport
import Testing

/// Holds report the time held (docs/protocol.md §5.4) through the real server: a plank held past its 10 s and
/// still held when the session ends is closed with the time held up to the last pose, told as `holdEnded` before
/// the summary, and kept in the summary's `holds` and `bestHold`, stored and served over REST.
@Suite("Hold time through the server")
struct HoldTimeServerTests {
    /// A plank held for a minute, of which the poses up to `last` seconds: still held at the last one.
    static func plank(upTo last: Double) -> [Pose] {
        Simulation(exercise: .plankHold, side: .right, reps: [SimulatedRep(peak: 0.3, holdFor: 60)]).poses()
            .filter { $0.timestamp <= last }
    }

    static let last = 20.0

    /// The `holdStarted` event's `t` among `objects`: when the hold began.
    static func holdStart(_ objects: [[String: Any]]) throws -> Double {
        try #require(objects.first { $0["event"] as? String == "holdStarted" }?["t"] as? Double)
    }

    /// Checks a `holdEnded` message and a summary's `holds` and `bestHold` against a hold begun at `start` and held
    /// until the last pose.
    static func expectHold(
        ended: [String: Any], summary: [String: Any], start: Double, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let held = try #require(ended["held"] as? Double, sourceLocation: sourceLocation)
        #expect(
            abs(held - (last - start)) < 1e-6, "held from \(start) to \(last): \(held)", sourceLocation: sourceLocation)
        #expect(held > 10, "past the prescribed 10 s", sourceLocation: sourceLocation)
        #expect(ended["completed"] as? Bool == true, sourceLocation: sourceLocation)
        #expect(ended["start"] as? Double == start, sourceLocation: sourceLocation)
        #expect(ended["t"] as? Double == last, "told at the last pose's t", sourceLocation: sourceLocation)
        let holds = try #require(summary["holds"] as? [[String: Any]], sourceLocation: sourceLocation)
        #expect(holds.count == 1, sourceLocation: sourceLocation)
        #expect(holds.first?["start"] as? Double == start, sourceLocation: sourceLocation)
        #expect(holds.first?["held"] as? Double == held, sourceLocation: sourceLocation)
        #expect(holds.first?["completed"] as? Bool == true, sourceLocation: sourceLocation)
        #expect(summary["bestHold"] as? Double == held, sourceLocation: sourceLocation)
        #expect(summary["repCount"] as? Int == 1, "counted once, at 10 s", sourceLocation: sourceLocation)
    }

    @Test func stoppingALiveSessionMidHoldTellsTheTimeHeldBeforeTheSummary() async throws {
        let group = try EventLoopGroup(loops: 2)
        defer { group.shutdown() }
        try await withMotionServer { address, _, _ in
            let (socket, inbox) = try await MotionServerTests.connect(address, group: group)
            socket.send(.text(#"{"type":"start","exercise":"plankHold","options":{"snapshots":"off"}}"#))
            await inbox.wait { !$0.messages.isEmpty }
            let id = try #require(inbox.objects().first?["session"] as? String)
            let (_, watcher) = try await MotionServerTests.connect(
                address, path: "/v1/sessions/\(id)/watch", group: group)
            await watcher.wait { $0.objects().contains { $0["type"] as? String == "started" } }
            for pose in Self.plank(upTo: Self.last) { socket.send(.text(poseMessage(pose))) }
            socket.send(.text(#"{"type":"stop"}"#))
            await inbox.wait { $0.close != nil }
            #expect(inbox.close?.0 == .normal)
            let objects = inbox.objects()
            let start = try Self.holdStart(objects)
            let ends = objects.filter { $0["event"] as? String == "holdEnded" }
            #expect(ends.count == 1, "held until the stop: ended once, by it")
            let summaryAt = try #require(objects.lastIndex { $0["type"] as? String == "summary" })
            let endedAt = try #require(objects.firstIndex { $0["event"] as? String == "holdEnded" })
            #expect(endedAt == summaryAt - 1, "holdEnded right before the summary")
            try Self.expectHold(ended: objects[endedAt], summary: objects[summaryAt], start: start)

            // The watcher is told the same, and REST serves the stored summary with it.
            await watcher.wait { $0.close != nil }
            let watched = watcher.objects()
            let watchedEnd = try #require(watched.first { $0["event"] as? String == "holdEnded" })
            try Self.expectHold(
                ended: watchedEnd, summary: try #require(watched.last { $0["type"] as? String == "summary" }),
                start: start)
            let stored = try #require(
                MotionServerTests.json(try await MotionServerTests.get(address, "/v1/sessions/\(id)")))
            try Self.expectHold(ended: objects[endedAt], summary: stored, start: start)
            let listed = try #require(MotionServerTests.json(try await MotionServerTests.get(address, "/v1/sessions")))
            let entry = try #require((listed["sessions"] as? [[String: Any]])?.first { $0["id"] as? String == id })
            try Self.expectHold(ended: objects[endedAt], summary: entry, start: start)

            // The CSV's rep is the hold that counted, its `held` the whole time kept.
            let csv = try #require(try await MotionServerTests.get(address, "/v1/sessions/\(id)?format=csv")).text
            let lines = csv.split(separator: "\r\n")
            #expect(lines.first?.hasSuffix(",held") == true)
            #expect(lines.count == 2)
            let fields = lines.last?.split(separator: ",", omittingEmptySubsequences: false) ?? []
            #expect(fields.last.flatMap { Double($0) } == objects[endedAt]["held"] as? Double)
            #expect(fields.count > 5 && Double(fields[5]).map { abs($0 - 10) < 0.05 } == true, "duration: 10 s")
        }
    }

    @Test func stoppingAnHTTPSessionMidHoldStoresTheTimeHeld() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        try await withMotionServer { address, _, _ in
            let created = try await PrescriptionTests.post(address, "/v1/sessions", #"{"exercise":"plankHold"}"#)
            #expect(created.status == 201)
            let id = try #require(created.json?["id"] as? String)
            let (_, watcher) = try await MotionServerTests.connect(
                address, path: "/v1/sessions/\(id)/watch", group: group)
            await watcher.wait { $0.objects().contains { $0["type"] as? String == "started" } }
            var events: [[String: Any]] = []
            let poses = Self.plank(upTo: Self.last)
            for batch in stride(from: 0, to: poses.count, by: 100) {
                let frames = poses[batch..<min(batch + 100, poses.count)].map(poseMessage)
                let answer = try await PrescriptionTests.post(
                    address, "/v1/sessions/\(id)/poses", #"{"frames":[\#(frames.joined(separator: ","))]}"#)
                #expect(answer.status == 200)
                events += answer.json?["events"] as? [[String: Any]] ?? []
            }
            let start = try Self.holdStart(events)
            #expect(!events.contains { $0["event"] as? String == "holdEnded" }, "still held at the last pose")
            let stopped = try await PrescriptionTests.post(address, "/v1/sessions/\(id)/stop", "")
            #expect(stopped.status == 200)
            let summary = try #require(stopped.json)
            await watcher.wait { $0.close != nil }
            let watched = watcher.objects()
            let ended = try #require(watched.first { $0["event"] as? String == "holdEnded" })
            #expect(
                watched.firstIndex { $0["event"] as? String == "holdEnded" }
                    == watched.lastIndex { $0["type"] as? String == "summary" }.map { $0 - 1 },
                "holdEnded right before the summary")
            try Self.expectHold(ended: ended, summary: summary, start: start)
            let stored = try #require(
                MotionServerTests.json(try await MotionServerTests.get(address, "/v1/sessions/\(id)")))
            try Self.expectHold(ended: ended, summary: stored, start: start)
        }
    }

    @Test func anAnalysedRecordingEndsTheHoldAtItsLastPose() async throws {
        try await withMotionServer { address, _, _ in
            let analysed = try await PrescriptionTests.post(
                address, "/v1/analyze",
                PrescriptionTests.analyzeBody(exercise: "plankHold", side: nil, poses: Self.plank(upTo: Self.last)))
            #expect(analysed.status == 200)
            let events = try #require(analysed.json?["events"] as? [[String: Any]])
            let summary = try #require(analysed.json?["summary"] as? [String: Any])
            #expect(events.last?["event"] as? String == "holdEnded", "the last event")
            try Self.expectHold(ended: try #require(events.last), summary: summary, start: try Self.holdStart(events))
        }
    }

    /// A client that vanishes mid-hold, without a resume window: the session is stored abandoned with the hold
    /// ended at the last pose.
    @Test func anAbandonedSessionKeepsTheHoldUnderWay() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        let writes = Observed<[ReportedWrite]>([])
        var limits = fastLimits()
        limits.resumeWindow = .zero
        try await withMotionServer(limits: limits, writes: writes) { address, _, _ in
            let (socket, inbox) = try await MotionServerTests.connect(address, group: group)
            socket.send(.text(#"{"type":"start","exercise":"plankHold","options":{"snapshots":"off"}}"#))
            await inbox.wait { !$0.messages.isEmpty }
            let id = try #require(inbox.objects().first?["session"] as? String)
            for pose in Self.plank(upTo: Self.last) { socket.send(.text(poseMessage(pose))) }
            await inbox.wait { $0.objects().contains { $0["event"] as? String == "repCompleted" } }
            let start = try Self.holdStart(inbox.objects())
            socket.close()
            await writes.wait { $0.contains { $0.isFinish(of: id, status: .abandoned) } }
            let stored = try #require(
                MotionServerTests.json(try await MotionServerTests.get(address, "/v1/sessions/\(id)")))
            #expect(stored["status"] as? String == "abandoned")
            let holds = try #require(stored["holds"] as? [[String: Any]])
            #expect(holds.count == 1)
            #expect(holds.first?["start"] as? Double == start)
            #expect(holds.first?["completed"] as? Bool == true)
            let held = try #require(holds.first?["held"] as? Double)
            #expect(held > 10 && held <= Self.last - start + 1e-6, "\(held)")
            #expect(stored["bestHold"] as? Double == held)
        }
    }
}
