import Basics
import Testing

@Suite struct WallClockTests {
    @Test func readsUnixTime() {
        let seconds = WallClock.seconds()
        let milliseconds = WallClock.milliseconds()
        #expect(seconds > 1_700_000_000, "after November 2023")
        #expect(abs(milliseconds / 1000 - Int64(seconds)) <= 1)
        #expect(WallClock.milliseconds() >= milliseconds)
    }
}
