import MotionCore
import NetworkTestSupport
import SessionStore
import Testing

@testable import MotionServer

/// New sessions written as a group commit does: at once when the store is free, together when they arrive while a
/// batch is being written. No clock is involved: nothing waits for a window.
@Suite("CreateBatcher", .timeLimit(.minutes(1)))
struct CreateBatcherTests {
    static func session(_ number: Int) -> StoredSession {
        StoredSession(
            id: SessionID(time: 1_764_424_800_000, random: UInt128(number)), tenant: "t",
            startedAt: 1_764_424_800_000, summary: SessionSummary(exercise: "squat", frames: number))
    }

    /// A store that records each batch (by the sessions' numbers), holds its first batch until ``release()``, and
    /// refuses the sessions in `refusing`.
    final class Store: Sendable {
        let batches = Observed<[[Int]]>([])
        private let released: Observed<Bool>
        private let refusing: Set<Int>

        init(holdingTheFirstBatch: Bool = false, refusing: Set<Int> = []) {
            released = Observed(!holdingTheFirstBatch)
            self.refusing = refusing
        }

        func release() { released.record { $0 = true } }

        var write: @Sendable ([StoredSession]) async -> Set<SessionID> {
            { [self] batch in
                batches.record { $0.append(batch.map(\.summary.frames)) }
                await released.wait { $0 }
                return Set(batch.filter { refusing.contains($0.summary.frames) }.map(\.id))
            }
        }
    }

    @Test func anIdleCreateIsWrittenAtOnceAndAlone() async {
        let (batcher, store) = (CreateBatcher(), Store())
        #expect(await batcher.create(Self.session(1), write: store.write))
        #expect(await batcher.create(Self.session(2), write: store.write))
        #expect(store.batches.current == [[1], [2]])
    }

    /// Creates session 1 and, while its batch is being written, sessions `others`; then lets the store go on.
    /// - Returns: Whether each was stored: session 1, then `others` in order.
    static func burst(_ batcher: CreateBatcher, _ store: Store, others: ClosedRange<Int>) async -> [Bool] {
        let first = Task { await batcher.create(session(1), write: store.write) }
        await store.batches.wait { $0 == [[1]] }
        let tasks = others.map { number in Task { await batcher.create(session(number), write: store.write) } }
        while batcher.waitingCount < others.count { await Task.yield() }
        store.release()
        var stored = [await first.value]
        for task in tasks { stored.append(await task.value) }
        return stored
    }

    @Test func createsArrivingDuringAWriteGoTogetherInTheNextBatch() async {
        let (batcher, store) = (CreateBatcher(), Store(holdingTheFirstBatch: true))
        #expect(await Self.burst(batcher, store, others: 2...6) == Array(repeating: true, count: 6))
        #expect(store.batches.current.map { $0.sorted() } == [[1], [2, 3, 4, 5, 6]])
    }

    /// The session that leads each batch after the first is one that waited: with batches of 2, five waiting
    /// sessions take three batches, each led in turn, and none is left waiting.
    @Test func aBatchHoldsAtMostItsMaximum() async {
        let (batcher, store) = (CreateBatcher(maximumBatch: 2), Store(holdingTheFirstBatch: true))
        #expect(await Self.burst(batcher, store, others: 2...6) == Array(repeating: true, count: 6))
        #expect(store.batches.current.map(\.count) == [1, 2, 2, 1])
        #expect(store.batches.current.flatMap { $0 }.sorted() == Array(1...6), "each session written once")
        #expect(batcher.waitingCount == 0)
    }

    @Test func aSessionTheStoreRefusesIsToldSoAndTheOthersAreNot() async {
        let (batcher, store) = (CreateBatcher(), Store(holdingTheFirstBatch: true, refusing: [3]))
        #expect(await Self.burst(batcher, store, others: 2...4) == [true, true, false, true])
    }
}
