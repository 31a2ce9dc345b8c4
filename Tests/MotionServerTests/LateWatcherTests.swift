import Basics
import Foundation
import HTTPServer
import MotionCore
import MotionWire
import NetworkTestSupport
import SessionStore
import Testing
import WebSocketClient

@testable import MotionServer

/// A watcher that reaches a session just after it ended (one handed back as the session moved between nodes and
/// connections, one asking as the client stopped) is told how it ended, as the others were, and closed as they were:
/// never a bare close that leaves a clinician without the summary.
@Suite struct LateWatcherTests {
    /// A server-side WebSocket from a plain test server, with the client's inbox.
    static func watcherSocket(
        _ address: SocketAddress, accepted: Observed<[WebSocket]>, group: EventLoopGroup
    ) async throws -> (WebSocket, Inbox) {
        let client = try await WebSocketClient.connect(
            host: "127.0.0.1", port: address.port, path: "/watch", on: group.next())
        let inbox = Inbox()
        await inbox.attach(to: client)
        await accepted.wait { !$0.isEmpty }
        var socket: WebSocket?
        accepted.record { socket = $0.popLast() }
        return (try #require(socket), inbox)
    }

    static func withWatcherServer(
        _ body: (SocketAddress, Observed<[WebSocket]>, EventLoopGroup) async throws -> Void
    ) async throws {
        let accepted = Observed<[WebSocket]>([])
        var router = Router()
        router.webSocket("/watch") { socket in accepted.record { $0.append(socket) } }
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        try await withTestServer(router: router) { address, _ in try await body(address, accepted, group) }
    }

    static func core() throws -> SessionCore {
        try SessionCore(
            id: SessionID.generate(at: 0), tenant: "t", start: StartRequest(exercise: "squat", side: .right),
            exercise: .squat, startedAt: 0, tokenDigest: nil, restoring: nil, series: ValueSeries())
    }

    @Test func aWatcherAfterStopGetsTheSummaryTheOthersGotAndA1000() async throws {
        try await Self.withWatcherServer { address, accepted, group in
            let core = try Self.core()
            var watchers = SessionWatchers()
            let (early, earlyInbox) = try await Self.watcherSocket(address, accepted: accepted, group: group)
            watchers.add(early, session: core)
            var summary: [UInt8] = []
            WireEncoder.encodeSummary(
                core.engine.summary, metadata: core.metadata(status: .finished, endedAt: 1000), includeType: true,
                into: &summary)
            watchers.send(summary, replacing: nil)
            watchers.closeAll(status: .finished, summary: summary)

            let (late, lateInbox) = try await Self.watcherSocket(address, accepted: accepted, group: group)
            watchers.add(late, session: core)
            for inbox in [earlyInbox, lateInbox] { await inbox.wait { $0.close != nil } }
            let types = lateInbox.objects().map { $0["type"] as? String }
            #expect(types == ["started", "snapshot", "summary"])
            #expect(lateInbox.close?.0 == .normal)
            // The very summary the others got.
            #expect(lateInbox.messages.last == earlyInbox.messages.last)
            #expect(watchers.isEmpty)
        }
    }

    @Test func aWatcherAfterTheSessionWasAbandonedIsClosedWith1001() async throws {
        try await Self.withWatcherServer { address, accepted, group in
            let core = try Self.core()
            var watchers = SessionWatchers()
            watchers.closeAll(status: .abandoned, summary: nil)
            let (late, inbox) = try await Self.watcherSocket(address, accepted: accepted, group: group)
            watchers.add(late, session: core)
            await inbox.wait { $0.close != nil }
            #expect(inbox.objects().map { $0["type"] as? String } == ["started", "snapshot"])
            #expect(inbox.close?.0 == .goingAway)
        }
    }
}
