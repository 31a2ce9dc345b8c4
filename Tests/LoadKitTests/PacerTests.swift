import HTTPServer
import LoadKit
import Testing

/// ``Pacer`` on a real event loop. The assertions are about *which* due times fire and in what order, which the
/// pacer computes exactly from the start and the phases, never about when the firings happened to run.
@Suite struct PacerTests {
    static let millisecond: UInt64 = 1_000_000
    static let period = 10 * millisecond

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
    /// fire over ~55 ms: each due time is exactly start + phase + k·period, the members fire in phase order
    /// within every period, and each fires at least five times (k = 0…4 are all due before the end).
    @Test func firesEveryMemberAtItsPhaseEachPeriod() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        let driver = PacerDriver(loop: group.next(), period: Self.period)
        let phases: [UInt64] = [0, 5_000_000, 2_500_000, 7_500_000]
        for (member, phase) in phases.enumerated() { await driver.add(member, phase: phase) }
        let duration = 55 * Self.millisecond
        let start = await driver.startNow(for: duration)
        let end = start + duration

        // Wait (bounded) for every due time up to k = 4 and for the end to pass, then stop on the loop.
        let log = driver.log
        let settled = await eventually { log.firings.count >= 20 && EventLoop.now() > end + 5 * Self.millisecond }
        await driver.stop()
        #expect(settled)
        let firings = log.firings
        #expect(log.offLoop == 0)

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

        // The firings are a prefix of that list (only the last ones near the end may still have been pending).
        #expect(firings.count >= 20 && firings.count <= expected.count)
        #expect(firings == Array(expected.prefix(firings.count)))
        for member in 0..<4 {
            let dues = firings.filter { $0.member == member }.map(\.due)
            #expect(dues.count >= 5 && dues.count <= 6, "member \(member) fired \(dues.count) times")
            for (k, due) in dues.enumerated() {
                #expect(due == start + phases[member] + UInt64(k) * Self.period)
            }
        }
        #expect(firings.allSatisfy { $0.due >= start && $0.due < end })
    }

    /// A member added while the pacer runs joins the schedule at its own phase: its due times are start + phase +
    /// k·period for consecutive k, the first one after the last due time fired before it was added (no catching
    /// up on past periods) and within the next period, and it interleaves with the existing member in due order.
    @Test func memberAddedWhileRunningFiresAtItsOwnPhase() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        let driver = PacerDriver(loop: group.next(), period: Self.period)
        await driver.add(0, phase: 0)
        let start = await driver.startNow(for: 10_000 * Self.millisecond)
        let log = driver.log
        let warmedUp = await eventually { log.firings.count >= 2 }
        let phase: UInt64 = 3 * Self.millisecond
        let lastBeforeAdd = await driver.add(1, phase: phase)
        let joined = await eventually { log.firings.filter { $0.member == 1 }.count >= 4 }
        await driver.stop()
        #expect(warmedUp && joined)
        #expect(log.offLoop == 0)

        let firings = log.firings
        let added = firings.filter { $0.member == 1 }.map(\.due)
        let original = firings.filter { $0.member == 0 }.map(\.due)
        guard let first = added.first, let lastBeforeAdd else {
            Issue.record("no firings: \(firings)")
            return
        }
        #expect((first - start) % Self.period == phase)
        #expect(first > lastBeforeAdd && first < lastBeforeAdd + 2 * Self.period)
        for (k, due) in added.enumerated() { #expect(due == first + UInt64(k) * Self.period) }
        // The original member keeps its own phase throughout.
        for (k, due) in original.enumerated() { #expect(due == start + UInt64(k) * Self.period) }
        // All firings come in strictly increasing due order.
        #expect(zip(firings, firings.dropFirst()).allSatisfy { $0.due < $1.due })
    }

    /// Stopping before the end ends the firing: nothing fires after ``Pacer/stop()`` returned on the loop.
    @Test func stopEndsTheFiring() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        let driver = PacerDriver(loop: group.next(), period: Self.period)
        await driver.add(0, phase: 0)
        _ = await driver.startNow(for: 10_000 * Self.millisecond)
        let log = driver.log
        #expect(await eventually { log.firings.count >= 2 })
        await driver.stop()
        let countAtStop = log.firings.count
        // Give a running pacer time to fire a few more periods; a stopped one must not.
        try await Task.sleep(for: .milliseconds(50))
        #expect(log.firings.count == countAtStop)
    }
}
