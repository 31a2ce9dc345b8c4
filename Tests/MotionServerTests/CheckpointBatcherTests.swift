import HTTPServer
import MotionCore
import NetworkTestSupport
import SessionStore
import Testing

@testable import MotionServer

/// Checkpoints of many sessions gathered into one store write per window, each after its session's previous write.
/// The window runs on a ``ManualClock``: a batch is written exactly when the test moves the clock past it, in no
/// real time.
@Suite("CheckpointBatcher")
struct CheckpointBatcherTests {
    /// What the fake store saw, in order: `"batch 1,2"` for a write of the checkpoints of sessions 1 and 2.
    final class Log: Sendable {
        let entries = Observed<[String]>([])
        func append(_ entry: String) { entries.record { $0.append(entry) } }
        var all: [String] { entries.current }
    }

    static func checkpoint(_ session: UInt128) -> SessionCheckpoint {
        SessionCheckpoint(
            id: SessionID(time: 1_764_424_800_000, random: session), tenant: "t",
            summary: SessionSummary(exercise: "squat", frames: Int(session)))
    }

    /// A store that logs each batch and refuses the sessions in `refusing`.
    static func writer(
        _ log: Log, refusing: Set<UInt128> = []
    ) -> @Sendable ([SessionCheckpoint]) async -> Set<SessionID> {
        { batch in
            log.append("batch " + batch.map { "\($0.summary.frames)" }.joined(separator: ","))
            return Set(batch.map(\.id).filter { id in refusing.contains { checkpoint($0).id == id } })
        }
    }

    @Test func gathersTheCheckpointsOfAWindowIntoOneWrite() async {
        let clock = ManualClock()
        let batcher = CheckpointBatcher(window: .milliseconds(100), clock: .manual(clock))
        let (writes, log) = (StoreWrites(), Log())
        let first = batcher.add(Self.checkpoint(1), after: nil, writes: writes, write: Self.writer(log))
        let second = batcher.add(Self.checkpoint(2), after: nil, writes: writes, write: Self.writer(log))
        let third = batcher.add(Self.checkpoint(3), after: nil, writes: writes, write: Self.writer(log))
        #expect(first == second && second == third, "every member chains its next write after the one batch")
        await clock.advance(by: .milliseconds(100) - .nanoseconds(1))
        #expect(log.all.isEmpty, "still gathering until the window (100 ms) has passed")
        await clock.advance(by: .nanoseconds(1))
        await first.value
        #expect(log.all == ["batch 1,2,3"])
    }

    @Test func aCheckpointAfterABatchStartsTheNextOne() async {
        let clock = ManualClock()
        let batcher = CheckpointBatcher(window: .milliseconds(10), clock: .manual(clock))
        let (writes, log) = (StoreWrites(), Log())
        let first = batcher.add(Self.checkpoint(1), after: nil, writes: writes, write: Self.writer(log))
        await clock.advance(by: .milliseconds(10))
        await first.value
        let second = batcher.add(Self.checkpoint(2), after: nil, writes: writes, write: Self.writer(log))
        #expect(first != second)
        await clock.advance(by: .milliseconds(10) - .nanoseconds(1))
        #expect(log.all == ["batch 1"], "the next window runs from the checkpoint that started it")
        await clock.advance(by: .nanoseconds(1))
        await second.value
        #expect(log.all == ["batch 1", "batch 2"])
    }

    @Test func aBatchWaitsForEachMembersPreviousWrite() async {
        let clock = ManualClock()
        let batcher = CheckpointBatcher(window: .milliseconds(10), clock: .manual(clock))
        let (writes, log) = (StoreWrites(), Log())
        // Session 2's creation is still being stored when its first checkpoint is batched, and ends only once the
        // batch waits for it: seen as the creation's priority rising to the batch's (awaiting a task raises it to
        // the waiter's). A batch written without waiting ends it too, after its write, so the order of the log
        // shows it. Where the escalation is not seen (a creation task the pool starts only after it was raised
        // reads its own priority as raised on some runs and not on others), the test releases the creation itself
        // a while after the window: the order still tells a batch that waited from one that did not.
        let release = Observed(false)
        let creation = Task(priority: .background) {
            await withTaskPriorityEscalationHandler {
                if Task.currentPriority > .background { release.record { $0 = true } }
                _ = await release.arrival(within: .seconds(120)) { $0 }
            } onPriorityEscalated: { _, _ in
                release.record { $0 = true }
            }
            log.append("created 2")
        }
        let write: @Sendable ([SessionCheckpoint]) async -> Set<SessionID> = { batch in
            let refused = await Self.writer(log)(batch)
            release.record { $0 = true }
            return refused
        }
        // The batch's task takes the priority of the task that starts it.
        let batch = await Task(priority: .high) {
            let batch = batcher.add(Self.checkpoint(1), after: nil, writes: writes, write: write)
            _ = batcher.add(Self.checkpoint(2), after: creation, writes: writes, write: write)
            return batch
        }.value
        await clock.advance(by: .milliseconds(10))
        if await !log.entries.arrival(within: .seconds(5), until: { !$0.isEmpty }) { release.record { $0 = true } }
        await batch.value
        await creation.value
        #expect(log.all == ["created 2", "batch 1,2"])
    }

    @Test func aSessionCheckpointingTwiceInOneBatchIsWrittenOnceAndDoesNotWaitForItself() async {
        // The session's second checkpoint arrives before the batch is taken, chained after its first one, which is
        // the batch itself: waiting for it would wait forever, and every later write of the session with it.
        let clock = ManualClock()
        let batcher = CheckpointBatcher(window: .milliseconds(100), clock: .manual(clock))
        let (writes, log) = (StoreWrites(), Log())
        let first = batcher.add(Self.checkpoint(1), after: nil, writes: writes, write: Self.writer(log))
        _ = batcher.add(Self.checkpoint(2), after: nil, writes: writes, write: Self.writer(log))
        var newer = Self.checkpoint(1)
        newer.summary.frames = 10
        let second = batcher.add(newer, after: first, writes: writes, write: Self.writer(log))
        #expect(first == second)
        await clock.advance(by: .milliseconds(100))
        // Not `await second.value`: a batch that waits for itself would hang the run instead of failing.
        let finished = await log.entries.arrival(within: .seconds(120)) { !$0.isEmpty }
        #expect(finished, "the batch was written")
        #expect(log.all == ["batch 10,2"], "the session's newest checkpoint, once, in its first place")
    }

    @Test func eachCheckpointLearnsWhetherItWasStoredAfterTheBatch() async {
        let clock = ManualClock()
        let batcher = CheckpointBatcher(window: .milliseconds(20), clock: .manual(clock))
        let (writes, log) = (StoreWrites(), Log())
        let outcomes = Observed<[String]>([])
        let write = Self.writer(log, refusing: [2])
        var batch: Task<Void, Never>?
        for session: UInt128 in [1, 2, 3] {
            batch = batcher.add(
                Self.checkpoint(session), after: nil, writes: writes,
                then: { stored in
                    outcomes.record { $0.append("\(session) \(stored)") }
                }, write: write)
        }
        #expect(outcomes.current.isEmpty, "nothing is told before the batch is written")
        await clock.advance(by: .milliseconds(20))
        await batch?.value
        #expect(log.all == ["batch 1,2,3"])
        #expect(outcomes.current.sorted() == ["1 true", "2 false", "3 true"])
    }

    @Test func shutdownWaitsForAGatheringBatch() async {
        let clock = ManualClock()
        let batcher = CheckpointBatcher(window: .milliseconds(50), clock: .manual(clock))
        let (writes, log) = (StoreWrites(), Log())
        _ = batcher.add(Self.checkpoint(7), after: nil, writes: writes, write: Self.writer(log))
        // Shutdown begins while the batch gathers; the window ends meanwhile.
        let shutdown = Task {
            await writes.waitForAll()
            return log.all
        }
        await clock.advance(by: .milliseconds(50))
        #expect(await shutdown.value == ["batch 7"])
    }
}
