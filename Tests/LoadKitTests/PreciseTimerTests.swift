import Glibc
import HTTPServer
import LoadKit
import Testing

/// ``PreciseTimer`` on the machine's CLOCK_MONOTONIC (the Pacer tests run on a manual clock, which wakes a loop by
/// its own timers): a timerfd armed at an instant becomes readable then, once, and a disarmed one never does.
@Suite struct PreciseTimerTests {
    /// Whether `fd` becomes readable within `milliseconds`.
    static func readable(_ fd: Int32, within milliseconds: Int32) -> Bool {
        var entry = pollfd(fd: fd, events: Int16(POLLIN), revents: 0)
        return poll(&entry, 1, milliseconds) == 1 && entry.revents & Int16(POLLIN) != 0
    }

    @Test func firesOnceAtItsDeadline() throws {
        let fd = try #require(PreciseTimer.make())
        defer { close(fd) }
        #expect(fcntl(fd, F_GETFL) & O_NONBLOCK != 0)
        #expect(fcntl(fd, F_GETFD) & FD_CLOEXEC != 0)
        #expect(!Self.readable(fd, within: 0), "a new timerfd is disarmed")
        let armed = EventLoop.now()
        PreciseTimer.set(fd, at: armed + 2_000_000)
        #expect(Self.readable(fd, within: 2_000))
        #expect(EventLoop.now() >= armed + 2_000_000, "not before its deadline")
        var expirations: UInt64 = 0
        #expect(read(fd, &expirations, 8) == 8)
        #expect(expirations == 1)
        #expect(!Self.readable(fd, within: 20), "it fires once")
    }

    @Test func aDeadlineAlreadyPastFiresAtOnceAndADisarmedTimerNever() throws {
        let fd = try #require(PreciseTimer.make())
        defer { close(fd) }
        PreciseTimer.set(fd, at: 0)
        #expect(Self.readable(fd, within: 1_000), "a deadline of 0 is past, not a disarm")
        var expirations: UInt64 = 0
        #expect(read(fd, &expirations, 8) == 8)
        PreciseTimer.set(fd, at: EventLoop.now() + 50_000_000)
        PreciseTimer.disarm(fd)
        #expect(!Self.readable(fd, within: 150))
    }
}
