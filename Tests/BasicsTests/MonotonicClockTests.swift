import Basics
import Testing

@Suite struct MonotonicClockTests {
    @Test func neverGoesBackAndAgreesWithTheStandardClock() {
        let standard = ContinuousClock()
        let start = standard.now
        let first = MonotonicClock.nanoseconds()
        var previous = first
        for _ in 0..<10_000 {
            let now = MonotonicClock.nanoseconds()
            #expect(now >= previous)
            previous = now
        }
        let elapsed = standard.now - start
        let measured = Duration.nanoseconds(Int64(previous - first))
        #expect(measured <= elapsed, "read inside the standard clock's interval")
    }
}
