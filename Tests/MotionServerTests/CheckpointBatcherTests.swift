import HTTPServer
import MotionCore
import SessionStore
import Testing

@testable import MotionServer

/// Checkpoints of many sessions gathered into one store write per window, each after its session's previous write.
@Suite("CheckpointBatcher")
struct CheckpointBatcherTests {
    /// What the fake store saw, in order: `"batch 1,2"` for a write of the checkpoints of sessions 1 and 2.
    final class Log: Sendable {
        let entries = Locked<[String]>([])
        func append(_ entry: String) { entries.withLock { $0.append(entry) } }
        var all: [String] { entries.withLock { $0 } }
    }

    static func checkpoint(_ session: UInt128) -> SessionCheckpoint {
        SessionCheckpoint(
            id: SessionID(time: 1_764_424_800_000, random: session), tenant: "t",
            summary: SessionSummary(exercise: "squat", frames: Int(session)))
    }

    static func writer(_ log: Log) -> @Sendable ([SessionCheckpoint]) async -> Void {
        { batch in log.append("batch " + batch.map { "\($0.summary.frames)" }.joined(separator: ",")) }
    }

    @Test func gathersTheCheckpointsOfAWindowIntoOneWrite() async {
        let (batcher, writes, log) = (CheckpointBatcher(window: .milliseconds(100)), StoreWrites(), Log())
        let first = batcher.add(Self.checkpoint(1), after: nil, writes: writes, write: Self.writer(log))
        let second = batcher.add(Self.checkpoint(2), after: nil, writes: writes, write: Self.writer(log))
        let third = batcher.add(Self.checkpoint(3), after: nil, writes: writes, write: Self.writer(log))
        #expect(first == second && second == third, "every member chains its next write after the one batch")
        await first.value
        #expect(log.all == ["batch 1,2,3"])
    }

    @Test func aCheckpointAfterABatchStartsTheNextOne() async {
        let (batcher, writes, log) = (CheckpointBatcher(window: .milliseconds(10)), StoreWrites(), Log())
        let first = batcher.add(Self.checkpoint(1), after: nil, writes: writes, write: Self.writer(log))
        await first.value
        let second = batcher.add(Self.checkpoint(2), after: nil, writes: writes, write: Self.writer(log))
        #expect(first != second)
        await second.value
        #expect(log.all == ["batch 1", "batch 2"])
    }

    @Test func aBatchWaitsForEachMembersPreviousWrite() async {
        let (batcher, writes, log) = (CheckpointBatcher(window: .zero), StoreWrites(), Log())
        // Session 2's creation is still being stored, slowly, when its first checkpoint is batched.
        let creation = Task {
            try? await Task.sleep(for: .milliseconds(100))
            log.append("created 2")
        }
        let batch = batcher.add(Self.checkpoint(1), after: nil, writes: writes, write: Self.writer(log))
        _ = batcher.add(Self.checkpoint(2), after: creation, writes: writes, write: Self.writer(log))
        await batch.value
        #expect(log.all == ["created 2", "batch 1,2"])
    }

    @Test func aSessionCheckpointingTwiceInOneBatchIsWrittenOnceAndDoesNotWaitForItself() async {
        // The session's second checkpoint arrives before the batch is taken, chained after its first one, which is
        // the batch itself: waiting for it would wait forever, and every later write of the session with it.
        let (batcher, writes, log) = (CheckpointBatcher(window: .milliseconds(100)), StoreWrites(), Log())
        let first = batcher.add(Self.checkpoint(1), after: nil, writes: writes, write: Self.writer(log))
        _ = batcher.add(Self.checkpoint(2), after: nil, writes: writes, write: Self.writer(log))
        var newer = Self.checkpoint(1)
        newer.summary.frames = 10
        let second = batcher.add(newer, after: first, writes: writes, write: Self.writer(log))
        #expect(first == second)
        // Not `await second.value`: a batch that waits for itself would hang the run instead of failing.
        let deadline = ContinuousClock.now + .seconds(120)
        while log.all.isEmpty && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(5)) }
        let finished = !log.all.isEmpty
        #expect(finished, "the batch was written")
        #expect(log.all == ["batch 10,2"], "the session's newest checkpoint, once, in its first place")
    }

    @Test func shutdownWaitsForAGatheringBatch() async {
        let (batcher, writes, log) = (CheckpointBatcher(window: .milliseconds(50)), StoreWrites(), Log())
        _ = batcher.add(Self.checkpoint(7), after: nil, writes: writes, write: Self.writer(log))
        await writes.waitForAll()
        #expect(log.all == ["batch 7"])
    }
}
