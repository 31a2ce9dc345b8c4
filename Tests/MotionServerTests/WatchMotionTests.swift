import Basics
import Foundation
import HTTPServer
import HTTPWire
import MotionCore
import NetworkTestSupport
import SessionStore
import Testing

@testable import MotionServer

/// The phone's motion samples on the watch stream (`GET /v1/sessions/{id}/watch?motion=1`): only to the watchers
/// that asked, at most 30 per second of the session's time, one `motion` message per message of the client's, live
/// or driven over HTTP; a watcher that does not read holds nothing up.
@Suite("watching the phone's motion")
struct WatchMotionTests {
    typealias Server = MotionServerTests
    typealias Motion = MotionStreamTests

    /// ``fastLimits()`` with room for motion samples sent as fast as the socket takes them.
    static func limits() -> LiveLimits {
        var limits = fastLimits()
        limits.motionSamplesPerSecond = 100_000
        return limits
    }

    /// The `motion` messages a watcher received, in order.
    static func motionMessages(_ inbox: Inbox) -> [[String: Any]] {
        inbox.objects().filter { $0["type"] as? String == "motion" }
    }

    /// The samples of every `motion` message a watcher received, in order.
    static func samples(_ inbox: Inbox) -> [[Double]] {
        motionMessages(inbox).flatMap { $0["samples"] as? [[Double]] ?? [] }
    }

    /// `seconds` of 100 Hz samples from `start` (``MotionStreamTests/tremorSamples(_:)``), as `motion` messages of
    /// ten samples each, and the samples themselves.
    static func stream(from start: Double, seconds: Double) -> (messages: [String], samples: [[Double]]) {
        let samples = Motion.tremorSamples(stride(from: start, to: start + seconds - 1e-9, by: 0.01))
        let messages = stride(from: 0, to: samples.count, by: 10).map {
            Motion.motionMessage(Array(samples[$0..<min($0 + 10, samples.count)]))
        }
        return (messages, samples.map { [$0.0, $0.1, $0.2, $0.3] })
    }

    /// Starts a live session and opens a watcher with motion and one without.
    static func watchedSession(
        _ address: SocketAddress, group: EventLoopGroup
    ) async throws -> (socket: WebSocket, inbox: Inbox, id: String, motion: Inbox, plain: Inbox) {
        let (socket, inbox) = try await Server.connect(address, group: group)
        socket.send(.text(#"{"type":"start","exercise":"squat","options":{"snapshots":"off"}}"#))
        await inbox.wait { !$0.messages.isEmpty }
        let id = try #require(inbox.objects().first?["session"] as? String)
        let (_, motion) = try await Server.connect(address, path: "/v1/sessions/\(id)/watch?motion=1", group: group)
        let (_, plain) = try await Server.connect(address, path: "/v1/sessions/\(id)/watch", group: group)
        for watcher in [motion, plain] {
            await watcher.wait { $0.objects().contains { $0["type"] as? String == "started" } }
        }
        return (socket, inbox, id, motion, plain)
    }

    /// Whether every sample a watcher got is one that was sent, unchanged, in increasing time.
    static func areSent(_ got: [[Double]], of sent: [[Double]]) -> Bool {
        var previous = -Double.infinity
        for sample in got {
            guard let t = sample.first, t > previous,
                let original = sent.first(where: { abs($0[0] - t) < 1e-9 }), original.count == sample.count,
                zip(original, sample).allSatisfy({ abs($0 - $1) < 1e-9 })
            else { return false }
            previous = t
        }
        return true
    }

    @Test func aWatcherThatAskedGetsThePhonesMotionAtMostThirtyASecondAndOneThatDidNotGetsNone() async throws {
        let group = try EventLoopGroup(loops: 2)
        defer { group.shutdown() }
        try await withMotionServer(limits: Self.limits()) { address, _, _ in
            let session = try await Self.watchedSession(address, group: group)
            let (messages, sent) = Self.stream(from: 5, seconds: 10)
            for message in messages { session.socket.send(.text(message)) }
            session.socket.send(.text(#"{"type":"stop"}"#))
            for watcher in [session.motion, session.plain] { await watcher.wait { $0.close != nil } }

            #expect(session.inbox.close?.0 == .normal)
            #expect(Self.motionMessages(session.plain).isEmpty)
            // The plain watcher gets what it got before motion could be watched: nothing but these.
            let kinds = Set(session.plain.objects().compactMap { $0["type"] as? String })
            #expect(kinds.isSubset(of: ["started", "snapshot", "event", "summary"]), "\(kinds)")

            let got = Self.samples(session.motion)
            #expect(Self.areSent(got, of: sent), "samples changed, repeated or out of order")
            // 10 s of the session's time: at most 30 a second, one more for the slot at the start. Messages that a
            // slow reader had not taken yet may have been replaced by newer ones, so fewer may arrive.
            #expect(got.count <= 301 && !got.isEmpty, "\(got.count)")
            let times = got.map { $0[0] }
            for start in stride(from: 5.0, to: 14.0, by: 0.25) {
                let inWindow = times.filter { $0 >= start && $0 < start + 1 }.count
                #expect(inWindow <= 31, "\(inWindow) samples in the second from \(start)")
            }
            // Batched: never more messages than the client sent, never more samples in one than its message had.
            let batches = Self.motionMessages(session.motion).map { ($0["samples"] as? [[Double]] ?? []).count }
            #expect(batches.count <= messages.count && batches.allSatisfy { (1...10).contains($0) }, "\(batches)")
            #expect(session.motion.objects().last?["type"] as? String == "summary")
        }
    }

    /// A watcher that reads the stream at its own pace gets nearly all of the thinned samples, 30 a second, spread
    /// evenly: the chart it draws has no holes.
    @Test func aWatcherThatKeepsUpGetsThirtyEvenlySpacedSamplesASecond() async throws {
        let group = try EventLoopGroup(loops: 2)
        defer { group.shutdown() }
        try await withMotionServer(limits: Self.limits()) { address, _, _ in
            let session = try await Self.watchedSession(address, group: group)
            let (messages, sent) = Self.stream(from: 0, seconds: 3)
            for (index, message) in messages.enumerated() {
                session.socket.send(.text(message))
                // One message at a time, so that none is replaced before it leaves: each tenth of a second holds
                // samples that pass the throttle.
                await session.motion.wait { Self.motionMessages($0).count > index }
            }
            session.socket.send(.text(#"{"type":"stop"}"#))
            await session.motion.wait { $0.close != nil }
            let times = Self.samples(session.motion).map { $0[0] }
            #expect(Self.areSent(Self.samples(session.motion), of: sent))
            #expect(times.count >= 85 && times.count <= 91, "\(times.count) samples in 3 s")
            let gaps = zip(times.dropFirst(), times).map { $0 - $1 }
            #expect(gaps.allSatisfy { $0 > 0.025 && $0 < 0.045 }, "\(gaps)")
        }
    }

    /// A watcher that reads nothing does not hold up the patient's session: the client gets every answer, its
    /// summary and its close while the watcher sleeps; the watcher, once it reads again, gets the rest of the
    /// session, the newest motion rather than all of it, and the same close.
    @Test func aWatcherThatDoesNotReadHoldsNothingUp() async throws {
        let group = try EventLoopGroup(loops: 2)
        defer { group.shutdown() }
        try await withMotionServer(limits: Self.limits()) { address, _, _ in
            let session = try await Self.watchedSession(address, group: group)
            let (sleeper, sleeping) = try await Server.connect(
                address, path: "/v1/sessions/\(session.id)/watch?motion=1&poses=1", group: group)
            await sleeping.wait { $0.objects().contains { $0["type"] as? String == "started" } }
            await withCheckedContinuation { (done: CheckedContinuation<Void, Never>) in
                sleeper.loop.execute {
                    sleeper.pauseReading()
                    done.resume()
                }
            }
            let before = sleeping.messages.count
            // A minute of the phone's motion beside poses.
            let (messages, sent) = Self.stream(from: 1, seconds: 60)
            for (index, message) in messages.enumerated() {
                session.socket.send(.text(message))
                if index % 3 == 0 { session.socket.send(.text(poseMessage(ResumeTests.poses[index / 3 % 300]))) }
            }
            session.socket.send(.text(#"{"type":"stop"}"#))
            await session.inbox.wait { $0.close != nil }
            #expect(session.inbox.close?.0 == .normal)
            #expect(session.inbox.objects().contains { $0["type"] as? String == "summary" })
            #expect(sleeping.messages.count == before, "the sleeping watcher read")
            let stored = try #require(Server.json(try await Server.get(address, "/v1/sessions/\(session.id)/motion")))
            #expect((stored["t"] as? [Double])?.isEmpty == false)

            sleeper.loop.execute { sleeper.resumeReading() }
            await sleeping.wait { $0.close != nil }
            #expect(sleeping.close?.0 == .normal, "the sleeping watcher was dropped")
            #expect(sleeping.objects().last?["type"] as? String == "summary")
            let got = Self.samples(sleeping)
            #expect(Self.areSent(got, of: sent))
            #expect(got.count <= 1801)
        }
    }

    @Test func sessionsDrivenOverHTTPSendMotionToTheWatchersThatAsked() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        try await withMotionServer(limits: Self.limits()) { address, _, _ in
            let created = try await request(
                address, "POST", "/v1/sessions", body: #"{"exercise":"elbowFlexion","side":"right"}"#)
            let id = try #require(Server.json(created)?["id"] as? String)
            let (_, watcher) = try await Server.connect(
                address, path: "/v1/sessions/\(id)/watch?motion=true", group: group)
            let (_, plain) = try await Server.connect(address, path: "/v1/sessions/\(id)/watch?poses=1", group: group)
            for inbox in [watcher, plain] {
                await inbox.wait { $0.objects().contains { $0["type"] as? String == "started" } }
            }
            let samples = Motion.tremorSamples(stride(from: 2.0, to: 3.0 - 1e-9, by: 0.01))
            let body = Motion.motionMessage(samples)
            let posted = try await request(address, "POST", "/v1/sessions/\(id)/motion", body: body)
            #expect(posted?.status == 200)
            // A second of samples at once: one message of the 30 that pass the throttle.
            await watcher.wait { !Self.motionMessages($0).isEmpty }
            let got = Self.samples(watcher)
            #expect(got.count == 30, "\(got.count)")
            #expect(Self.areSent(got, of: samples.map { [$0.0, $0.1, $0.2, $0.3] }))
            #expect(try await request(address, "POST", "/v1/sessions/\(id)/stop")?.status == 200)
            for inbox in [watcher, plain] { await inbox.wait { $0.close != nil } }
            #expect(Self.motionMessages(plain).isEmpty)
            #expect(Self.motionMessages(watcher).count == 1)
        }
    }

    // MARK: The throttle alone

    @Test func aHundredHertzStreamSendsThirtySamplesASecond() {
        var throttle = WatchThrottle.motion
        let admitted = (0..<1000).map { 3.5 + Double($0) / 100 }.filter { throttle.admits($0) }
        #expect(admitted.count >= 299 && admitted.count <= 301, "\(admitted.count)")
        let gaps = zip(admitted.dropFirst(), admitted).map { $0 - $1 }
        #expect(gaps.allSatisfy { $0 > 0.025 && $0 < 0.045 }, "\(gaps)")
    }

    @Test func aStreamSlowerThanThirtyHertzIsNotThinned() {
        var throttle = WatchThrottle.motion
        let times = (0..<200).map { 1 + Double($0) / 25 }
        #expect(times.allSatisfy { throttle.admits($0) })
    }

    // MARK: The node-bus messages

    @Test func theWishForMotionAndTheSamplesThemselvesCrossTheBusIntact() throws {
        let id = SessionID.generate(at: 1_700_000_000_000)
        let messages: [ClusterMessage] = [
            .wish(id, stream: .motion, tenant: "clinic a", wanted: true),
            .wish(id, stream: .motion, tenant: "default", wanted: false),
            .watched(id, kind: .motion, text: #"{"type":"motion","samples":[[1.5,0.1,-9.8,0.2]]}"#),
        ]
        for message in messages { #expect(ClusterMessage(message.text) == message, "\(message.text)") }
        #expect(ClusterMessage.wish(id, stream: .motion, tenant: "t", wanted: false).text == "motion \(id) 0 t")
        #expect(ClusterMessage("motion \(id) yes t") == nil)
        #expect(ClusterMessage("motion \(id) 1") == nil)
        #expect(WatchedKind(replacing: "motion") == .motion && WatchedKind.motion.stream == .motion)
        #expect(WatchedKind.snapshot.stream == nil && WatchedKind.pose.stream == .poses)
    }
}
