import HTTPServer
import LoadKit
import Testing

/// ``Pacer`` on a real event loop whose clock is a ``ManualClock``: the test moves the time, so the firings are
/// exactly the due times the pacer computes from the start and the phases, each one at its time and not before, in
/// no real time.
@Suite struct PacerTests {
    static let millisecond: UInt64 = 1_000_000
    static let period = 10 * millisecond

    /// Moves `clock` to `instant` (a reading of it, in nanoseconds; not before its current reading).
    static func advance(_ clock: ManualClock, to instant: UInt64) async {
        await clock.advance(by: .nanoseconds(Int64(instant - clock.now)))
    }

    /// The radical-inverse phases: 0, ½, ¼, ¾, ⅛, ⅝ of the period.
    @Test func spreadPhaseHalvesTheGaps() throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        let pacer = Pacer(loop: group.next(), period: Self.period, tick: 0) { _, _ in }
        #expect(pacer.spreadPhase(0) == 0)
        #expect(pacer.spreadPhase(1) == 5 * Self.millisecond)
        #expect(pacer.spreadPhase(2) == 2_500_000)
        #expect(pacer.spreadPhase(3) == 7_500_000)
        #expect(pacer.spreadPhase(4) == 1_250_000)
        #expect(pacer.spreadPhase(5) == 6_250_000)
        // Any number of phases stays inside the period and distinct.
        let phases = (0..<64).map { pacer.spreadPhase($0) }
        #expect(phases.allSatisfy { $0 < Self.period })
        #expect(Set(phases).count == 64)
    }

    /// Four members whose phases (from ``Pacer/spreadPhase(_:)``: 0, 5, 2.5 and 7.5 ms, added out of phase order)
    /// fire over 55 ms: each due time is exactly start + phase + k·period, each fires when the clock reaches it and
    /// not a nanosecond before, the members fire in phase order within every period, and nothing fires at or after
    /// the end.
    @Test func firesEveryMemberAtItsPhaseEachPeriod() async throws {
        let clock = ManualClock()
        let group = try EventLoopGroup(loops: 1, clock: .manual(clock))
        defer { group.shutdown() }
        let driver = PacerDriver(loop: group.next(), period: Self.period)
        let phases: [UInt64] = [0, 5_000_000, 2_500_000, 7_500_000]
        for (member, phase) in phases.enumerated() { await driver.add(member, phase: phase) }
        let duration = 55 * Self.millisecond
        let start = await driver.startNow(for: duration)
        let end = start + duration
        let log = driver.log

        // What the schedule says, in due order: period by period, members in phase order.
        var expected: [Firing] = []
        let byPhase = (0..<4).sorted { phases[$0] < phases[$1] }
        #expect(byPhase == [0, 2, 1, 3])
        for k in 0..<10 {
            for member in byPhase {
                let due = start + phases[member] + UInt64(k) * Self.period
                if due < end { expected.append(Firing(member: member, due: due)) }
            }
        }
        #expect(expected.count == 22)  // 0, 2.5, 50 and 52.5 ms fall before the end in the sixth period.

        // The clock stands at the start: the loop runs what is due now.
        await Self.advance(clock, to: start)
        #expect(log.firings == [expected[0]], "the first member is due at the start")
        for (index, firing) in expected.enumerated().dropFirst() {
            await Self.advance(clock, to: firing.due - 1)
            #expect(log.firings == Array(expected.prefix(index)), "nothing fires before \(firing)")
            await Self.advance(clock, to: firing.due)
            #expect(log.firings == Array(expected.prefix(index + 1)), "\(firing) fires at its time")
        }
        // Past the end nothing more fires.
        await Self.advance(clock, to: end + 3 * Self.period)
        await driver.stop()
        #expect(log.firings == expected)
        #expect(log.offLoop == 0)
    }

    /// A member added while the pacer runs joins the schedule at its own phase: its due times are start + phase +
    /// k·period for consecutive k, the first one after the last due time fired before it was added (no catching
    /// up on past periods) and within the next period, and it interleaves with the existing member in due order.
    @Test func memberAddedWhileRunningFiresAtItsOwnPhase() async throws {
        let clock = ManualClock()
        let group = try EventLoopGroup(loops: 1, clock: .manual(clock))
        defer { group.shutdown() }
        let driver = PacerDriver(loop: group.next(), period: Self.period)
        await driver.add(0, phase: 0)
        let start = await driver.startNow(for: 10_000 * Self.millisecond)
        let log = driver.log
        await Self.advance(clock, to: start + Self.period + Self.millisecond)
        #expect(log.firings.count == 2, "warmed up: fired at the start and a period later")
        let phase: UInt64 = 3 * Self.millisecond
        let lastBeforeAdd = await driver.add(1, phase: phase)
        for k in 2..<7 { await Self.advance(clock, to: start + UInt64(k) * Self.period + Self.millisecond) }
        await driver.stop()
        #expect(log.offLoop == 0)

        let firings = log.firings
        let added = firings.filter { $0.member == 1 }.map(\.due)
        let original = firings.filter { $0.member == 0 }.map(\.due)
        #expect(added.count >= 4, "the added member joined: \(firings)")
        guard let first = added.first, let lastBeforeAdd else {
            Issue.record("no firings: \(firings)")
            return
        }
        #expect((first - start) % Self.period == phase)
        #expect(first > lastBeforeAdd && first < lastBeforeAdd + 2 * Self.period)
        for (k, due) in added.enumerated() { #expect(due == first + UInt64(k) * Self.period) }
        // The original member keeps its own phase throughout: once a period, up to the clock's last reading.
        #expect(original == (0..<7).map { start + UInt64($0) * Self.period })
        // All firings come in strictly increasing due order.
        #expect(zip(firings, firings.dropFirst()).allSatisfy { $0.due < $1.due })
    }

    /// Stopping before the end ends the firing: nothing fires after ``Pacer/stop()`` returned on the loop, though
    /// the clock then passes many due times.
    @Test func stopEndsTheFiring() async throws {
        let clock = ManualClock()
        let group = try EventLoopGroup(loops: 1, clock: .manual(clock))
        defer { group.shutdown() }
        let driver = PacerDriver(loop: group.next(), period: Self.period)
        await driver.add(0, phase: 0)
        let start = await driver.startNow(for: 10_000 * Self.millisecond)
        let log = driver.log
        await Self.advance(clock, to: start + Self.period)
        #expect(log.firings.count == 2)
        await driver.stop()
        let countAtStop = log.firings.count
        // Five periods: a running pacer would fire five more times.
        await Self.advance(clock, to: start + 6 * Self.period)
        #expect(log.firings.count == countAtStop)
    }
}
