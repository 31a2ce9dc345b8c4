import MotionCore
import Testing

@testable import MotionClient

/// The send queue's bookkeeping: order, checkpoints, resends, the bound.
@Suite("outbox")
struct OutboxTests {
    static func pose(_ t: Double) -> Outbox.Item { .pose(Pose(timestamp: t)) }

    @Test func sendsInOrderAndKeepsUntilACheckpoint() {
        var outbox = Outbox(capacity: 10)
        for t in [1.0, 2, 3] { _ = outbox.append(Self.pose(t)) }
        _ = outbox.append(.reset)
        #expect(outbox.takeUnsent() == [Self.pose(1), Self.pose(2), Self.pose(3), .reset])
        #expect(outbox.takeUnsent().isEmpty)
        outbox.acknowledge(through: 2)
        #expect(outbox.entries.map(\.item) == [Self.pose(3), .reset])
        // A drop, and the server holds up to 2: pose 3 and the reset go again.
        #expect(outbox.rewind(after: 2) == 2)
        #expect(outbox.takeUnsent() == [Self.pose(3), .reset])
    }

    @Test func resendsEverythingWhenTheServerHoldsNoPose() {
        var outbox = Outbox(capacity: 10)
        _ = outbox.append(.baseline)
        _ = outbox.append(Self.pose(1))
        _ = outbox.takeUnsent()
        _ = outbox.append(Self.pose(2))
        #expect(outbox.rewind(after: nil) == 2)
        #expect(outbox.takeUnsent() == [.baseline, Self.pose(1), Self.pose(2)])
    }

    static func samples(_ times: Double...) -> [MotionSample] {
        times.map { MotionSample(t: $0, acceleration: MotionVector(x: 0, y: -9.8, z: 0)) }
    }

    @Test func keepsMotionUntilACheckpointCoversEverySample() {
        var outbox = Outbox(capacity: 10)
        _ = outbox.append(Self.pose(1))
        _ = outbox.append(.motion(Self.samples(0.9, 1.1)))
        _ = outbox.append(Self.pose(2))
        #expect(outbox.takeUnsent() == [Self.pose(1), .motion(Self.samples(0.9, 1.1)), Self.pose(2)])
        outbox.acknowledge(through: 1)
        #expect(outbox.entries.map(\.item) == [.motion(Self.samples(0.9, 1.1)), Self.pose(2)], "1.1 is not covered")
        outbox.acknowledge(through: 2)
        #expect(outbox.entries.isEmpty)
    }

    @Test func resendsTheSamplesAfterMotionTAndControlsAtT() {
        var outbox = Outbox(capacity: 10)
        _ = outbox.append(Self.pose(1))
        _ = outbox.append(.motion(Self.samples(0.8, 0.9, 1.0)))
        _ = outbox.append(.reset)
        _ = outbox.append(Self.pose(2))
        _ = outbox.append(.motion(Self.samples(1.9)))
        _ = outbox.takeUnsent()
        // The server holds the pose at 1 and the samples up to 0.9: the sample at 1.0, the reset given at pose 1
        // (it may not have been taken) and everything after go again.
        #expect(outbox.rewind(after: 1, motionAfter: 0.9) == 4)
        #expect(outbox.takeUnsent() == [.motion(Self.samples(1.0)), .reset, Self.pose(2), .motion(Self.samples(1.9))])
        // No motionT: every kept sample goes again.
        #expect(outbox.rewind(after: 2, motionAfter: nil) == 2)
        #expect(outbox.takeUnsent() == [.motion(Self.samples(1.0)), .motion(Self.samples(1.9))])
    }

    @Test func dropsTheOldestWhenFullAndSaysHowMany() {
        var outbox = Outbox(capacity: 3)
        for t in [1.0, 2, 3] { #expect(outbox.append(Self.pose(t)).dropped == 0) }
        let full = outbox.append(Self.pose(4))
        #expect(full.dropped == 1)
        #expect(full.through == 1)
        #expect(outbox.takeUnsent() == [Self.pose(2), Self.pose(3), Self.pose(4)])
        #expect(outbox.lastPoseTime == 4)
    }
}

/// Parsing the server URL.
@Suite("server address")
struct ServerAddressTests {
    @Test func readsWebSocketURLs() throws {
        let plain = try ServerAddress("ws://127.0.0.1:8080")
        #expect(plain == ServerAddress(isSecure: false, host: "127.0.0.1", port: 8080, path: "/v1/stream"))
        let secure = try ServerAddress("wss://[::1]/custom/stream?x=1")
        #expect(secure == ServerAddress(isSecure: true, host: "::1", port: 443, path: "/custom/stream?x=1"))
    }

    @Test(arguments: ["http://a", "ws://", "ws://host:0", "ws://host:99999", "ws://[::1", "ws://[::1]x"])
    func refusesOtherForms(url: String) {
        #expect(throws: RemoteSessionError.invalidServer(url)) { try ServerAddress(url) }
    }
}
