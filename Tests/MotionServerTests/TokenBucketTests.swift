import Testing

@testable import MotionServer

/// The frame budget of a live session (flow control, docs/protocol.md §3): refill, burst cap, debt and the time to wait.
@Suite("TokenBucket")
struct TokenBucketTests {
    static let second: UInt64 = 1_000_000_000

    @Test func startsFullAndGoesIntoDebt() {
        var bucket = TokenBucket(rate: 10, burst: 20)
        #expect(bucket.tokens == 20)
        let toZero = bucket.spend(20, now: 0)
        #expect(toZero, "spending to exactly zero stays within budget")
        #expect(bucket.tokens == 0)
        let intoDebt = bucket.spend(1, now: 0)
        #expect(!intoDebt)
        #expect(bucket.tokens == -1)
    }

    @Test func refillsAtItsRateUpToTheBurst() {
        var bucket = TokenBucket(rate: 10, burst: 20)
        _ = bucket.spend(20, now: 0)
        let afterHalfASecond = bucket.spend(5, now: Self.second / 2)
        #expect(afterHalfASecond, "half a second at 10/s refills 5")
        #expect(bucket.tokens == 0)
        _ = bucket.spend(0, now: 1_000 * Self.second)
        #expect(bucket.tokens == 20, "idle time never fills past the burst")
    }

    @Test func theFirstSpendRefillsNothing() {
        var bucket = TokenBucket(rate: 10, burst: 20)
        _ = bucket.spend(20, now: 50 * Self.second)
        #expect(bucket.tokens == 0)
    }

    @Test func aClockThatStandsStillOrGoesBackRefillsNothing() {
        var bucket = TokenBucket(rate: 10, burst: 20)
        _ = bucket.spend(20, now: 10 * Self.second)
        _ = bucket.spend(1, now: 10 * Self.second)
        _ = bucket.spend(1, now: 5 * Self.second)
        #expect(bucket.tokens == -2)
    }

    @Test func saysHowLongUntilALevelIsBack() {
        var bucket = TokenBucket(rate: 240, burst: 480)
        #expect(bucket.time(toReach: 120) == .zero)
        _ = bucket.spend(600, now: 0)
        #expect(bucket.tokens == -120)
        #expect(bucket.time(toReach: 120) == .seconds(1))
        #expect(bucket.time(toReach: 0) == .milliseconds(500))
        #expect(bucket.time(toReach: -120) == .zero)
    }

    @Test func roundsTheWaitUpSoATimerNeverFiresEarly() {
        var bucket = TokenBucket(rate: 3, burst: 3)
        _ = bucket.spend(4, now: 0)
        #expect(bucket.time(toReach: 0) == .nanoseconds(333_333_334))
    }

    @Test func aHugeDebtAtTheLowestRateWaitsLongWithoutOverflowing() {
        // Twenty million frames owed at the lowest rate the flags allow (1/s): a wait of months, not a trap.
        var bucket = TokenBucket(rate: 1, burst: 2)
        _ = bucket.spend(20_000_000, now: 0)
        #expect(bucket.time(toReach: 0) == .seconds(19_999_998))
    }
}
