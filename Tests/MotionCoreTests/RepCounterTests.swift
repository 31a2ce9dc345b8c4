import MotionSimulation
import Testing

@testable import MotionCore

@Suite("Rep counter")
struct RepCounterTests {
    private static let rate = 30.0
    private static let thresholds = Thresholds(rest: 30, enter: 60, exit: 40, minAmplitude: 40)
    private static let holdThresholds = Thresholds(
        rest: 30, enter: 90, exit: 60, minAmplitude: 0, holdSeconds: 5, holdTolerance: 7)

    private static func time(_ index: Int) -> Double { Double(index) / rate }

    /// Feeds `values` at 30 Hz from sample `first` on and returns each step with its sample index.
    private static func drive(
        _ counter: inout RepCounter, _ values: [Double], from first: Int = 0, mayStart: Bool = true
    ) -> [(index: Int, step: RepCounter.Step)] {
        values.enumerated().map { offset, value in
            let index = first + offset
            return (index, counter.update(value, at: time(index), mayStart: mayStart))
        }
    }

    private static func steps(_ driven: [(index: Int, step: RepCounter.Step)]) -> [RepCounter.Step] {
        driven.map(\.step).filter { $0 != .none }
    }

    private static func ramp(_ from: Double, _ to: Double, by step: Double) -> [Double] {
        Array(stride(from: from, through: to, by: from <= to ? step : -step))
    }

    private static func repeated(_ value: Double, _ count: Int) -> [Double] { Array(repeating: value, count: count) }

    /// Rest at 20, up to 120 in steps of 5, back down to 20, rest.
    private static let cleanCycle = repeated(20, 10) + ramp(20, 120, by: 5) + ramp(115, 20, by: 5) + repeated(20, 10)

    @Test func oneCleanCycleCompletesExactlyOnce() throws {
        var counter = RepCounter(kind: .rep, direction: .rising, thresholds: Self.thresholds, maxGap: 0.5)
        let values = Self.cleanCycle
        let driven = Self.drive(&counter, values)
        #expect(Self.steps(driven).count == 2)
        let started = driven.filter { $0.step == .repStarted }
        #expect(started.map(\.index) == [try #require(values.firstIndex { $0 >= 60 })])

        // The rep starts when the value last left the exit level and ends when it returns to it.
        let crossing = try #require(values.firstIndex { $0 >= 60 })
        let startIndex = try #require(values[..<crossing].lastIndex { $0 <= 40 })
        let peakIndex = try #require(values.firstIndex(of: 120))
        let endIndex = try #require(values[peakIndex...].firstIndex { $0 <= 40 })
        let completed = driven.filter { if case .completed = $0.step { true } else { false } }
        #expect(completed.map(\.index) == [endIndex])
        #expect(
            completed.first?.step
                == .completed(
                    .init(
                        peak: 120, trough: 20, start: Self.time(startIndex), end: Self.time(endIndex),
                        peakTime: Self.time(peakIndex))))
        #expect(!counter.isInAttempt)
        #expect(counter.hasStarted)
    }

    @Test func reportsTheTroughAndPeakOfTheRep() {
        var thresholds = Self.thresholds
        thresholds.minDuration = 0.2
        var counter = RepCounter(kind: .rep, direction: .rising, thresholds: thresholds, maxGap: 0.5)
        let values = [25, 12, 18, 35, 45, 70, 95, 88, 101, 80, 50, 39, 30]
        let steps = Self.steps(Self.drive(&counter, values.map(Double.init)))
        // The trough is the lowest value at or below exit before the rep; the start is the last such sample (35).
        #expect(
            steps == [
                .repStarted,
                .completed(
                    .init(peak: 101, trough: 12, start: Self.time(3), end: Self.time(11), peakTime: Self.time(8))),
            ])
    }

    @Test(arguments: [60.0, 40.0])
    func jitterAroundAThresholdNeverDoubleCounts(centre: Double) {
        let th = Self.thresholds
        let amplitude = (th.enter - th.exit) / 2.1
        var random = SeededRandom(seed: 7)
        func jitter(_ count: Int) -> [Double] {
            (0..<count).map { i in centre + (i.isMultiple(of: 2) ? amplitude : -amplitude) * random.unit() }
                + [centre + amplitude, centre - amplitude, centre + amplitude, centre - amplitude]
        }
        let values =
            Self.repeated(20, 10) + Self.ramp(20, centre, by: 5) + jitter(60) + Self.ramp(centre, 120, by: 5)
            + Self.ramp(120, centre, by: 5) + jitter(60) + Self.ramp(centre, 20, by: 5) + Self.repeated(20, 10)
        var counter = RepCounter(kind: .rep, direction: .rising, thresholds: th, maxGap: 0.5)
        let steps = Self.steps(Self.drive(&counter, values))
        #expect(steps.count == 2, "\(steps)")
        #expect(steps.first == .repStarted)
        guard case .completed(let done) = steps.last else {
            Issue.record("no completed rep: \(steps)")
            return
        }
        #expect(done.peak == 120)
        #expect(done.trough == 20)
    }

    @Test func tooSmallAnAmplitudeIsDropped() {
        var counter = RepCounter(kind: .rep, direction: .rising, thresholds: Self.thresholds, maxGap: 0.5)
        // Trough 30 (the rest level), peak 65: 35 < minAmplitude 40.
        let values = Self.repeated(30, 10) + Self.ramp(30, 65, by: 1) + Self.ramp(64, 30, by: 1) + Self.repeated(30, 5)
        #expect(Self.steps(Self.drive(&counter, values)) == [.repStarted, .dropped])
    }

    @Test func anAmplitudeOfExactlyMinAmplitudeCounts() {
        var counter = RepCounter(kind: .rep, direction: .rising, thresholds: Self.thresholds, maxGap: 0.5)
        let values = Self.repeated(30, 10) + Self.ramp(30, 70, by: 1) + Self.ramp(69, 30, by: 1)
        let steps = Self.steps(Self.drive(&counter, values))
        #expect(steps.count == 2)
        #expect(steps.last.map { if case .completed = $0 { true } else { false } } == true, "\(steps)")
    }

    @Test func tooShortARepIsDropped() {
        var counter = RepCounter(kind: .rep, direction: .rising, thresholds: Self.thresholds, maxGap: 0.5)
        // From the last 20 to the next 20 is 4 samples: 0.13 s < minDuration 0.5 s.
        let values = Self.repeated(20, 10) + [70, 100, 70] + Self.repeated(20, 10)
        #expect(Self.steps(Self.drive(&counter, values)) == [.repStarted, .dropped])
        // The next proper rep still counts.
        let next = Self.steps(Self.drive(&counter, Self.cleanCycle, from: values.count))
        #expect(next.count == 2)
        #expect(next.last.map { if case .completed = $0 { true } else { false } } == true, "\(next)")
    }

    @Test func tooLongARepIsDroppedAndNeedsARelease() throws {
        var thresholds = Self.thresholds
        thresholds.maxDuration = 2
        var counter = RepCounter(kind: .rep, direction: .rising, thresholds: thresholds, maxGap: 0.5)
        let up = Self.repeated(20, 10) + Self.ramp(20, 100, by: 10) + Self.repeated(100, 90)  // 3 s up
        let driven = Self.drive(&counter, up)
        #expect(Self.steps(driven) == [.repStarted, .dropped])
        let startIndex = 12  // the last sample at or below exit (40)
        let droppedIndex = try #require(driven.first { $0.step == .dropped }?.index)
        #expect(Self.time(droppedIndex) - Self.time(startIndex) > 2)
        #expect(Self.time(droppedIndex - 1) - Self.time(startIndex) <= 2)
        #expect(!counter.isInAttempt)

        // Wandering between exit and enter and back up again does not start or end anything.
        var index = up.count
        let wander = Self.ramp(100, 50, by: 10) + Self.ramp(50, 100, by: 10) + Self.repeated(100, 10)
        #expect(Self.steps(Self.drive(&counter, wander, from: index)).isEmpty)
        index += wander.count

        // Falling to exit releases; the next full cycle counts.
        let release = Self.ramp(100, 20, by: 10) + Self.repeated(20, 10)
        #expect(Self.steps(Self.drive(&counter, release, from: index)).isEmpty)
        index += release.count
        let next = Self.steps(Self.drive(&counter, Self.cleanCycle, from: index))
        #expect(next.count == 2)
        #expect(next.last.map { if case .completed = $0 { true } else { false } } == true, "\(next)")
    }

    @Test func nothingCountsWhileTheStartPositionMayNotBeAccepted() {
        var counter = RepCounter(kind: .rep, direction: .rising, thresholds: Self.thresholds, maxGap: 0.5)
        let blocked = Self.drive(&counter, Self.cleanCycle + Self.cleanCycle, mayStart: false)
        #expect(Self.steps(blocked).isEmpty)
        #expect(!counter.hasStarted)
        let allowed = Self.steps(Self.drive(&counter, Self.cleanCycle, from: 2 * Self.cleanCycle.count))
        #expect(allowed.count == 2)
        #expect(counter.hasStarted)
    }

    @Test func nothingCountsBeforeTheValueReachesRest() {
        var counter = RepCounter(kind: .rep, direction: .rising, thresholds: Self.thresholds, maxGap: 0.5)
        // Cycles between 35 (above rest 30, below exit 40) and 120.
        let cycle = Self.repeated(35, 10) + Self.ramp(35, 120, by: 5) + Self.ramp(115, 35, by: 5)
        #expect(Self.steps(Self.drive(&counter, cycle + cycle + cycle)).isEmpty)
        #expect(!counter.hasStarted)
        // Reaching rest once (30) enables counting.
        let index = 3 * cycle.count
        #expect(Self.steps(Self.drive(&counter, [30], from: index)).isEmpty)
        #expect(counter.hasStarted)
        #expect(Self.steps(Self.drive(&counter, cycle, from: index + 1)).count == 2)
    }

    @Test func resetWaitsForTheStartPositionAgain() {
        var counter = RepCounter(kind: .rep, direction: .rising, thresholds: Self.thresholds, maxGap: 0.5)
        _ = Self.drive(&counter, Self.repeated(20, 5) + [70, 80])
        #expect(counter.isInAttempt)
        counter.reset()
        #expect(!counter.isInAttempt)
        #expect(!counter.hasStarted)
        #expect(Self.steps(Self.drive(&counter, [80, 40, 80], from: 7)).isEmpty)
    }

    // MARK: Holds

    private static let holdUp = repeated(20, 10) + ramp(20, 100, by: 10)

    @Test func aHoldStartsAtEnterAndCompletesAfterHoldSeconds() throws {
        var counter = RepCounter(kind: .hold, direction: .rising, thresholds: Self.holdThresholds, maxGap: 0.5)
        let values = Self.holdUp + Self.repeated(100, 200)
        var progress: [Double] = []
        var steps: [(index: Int, step: RepCounter.Step)] = []
        for (index, value) in values.enumerated() {
            let step = counter.update(value, at: Self.time(index), mayStart: true)
            if step != .none { steps.append((index, step)) }
            if let p = counter.holdProgress { progress.append(p) }
        }
        try #require(steps.count == 2)
        let startIndex = try #require(values.firstIndex { $0 >= 90 })
        #expect(steps[0].step == .holdStarted)
        #expect(steps[0].index == startIndex)
        guard case .completed(let done) = steps[1].step else {
            Issue.record("expected a completed hold, got \(steps[1].step)")
            return
        }
        #expect(done.peak == 100)
        #expect(done.trough == 20)
        #expect(done.start == Self.time(startIndex))
        #expect(done.end - done.start >= 5 - 1e-9)
        #expect(done.end - done.start < 5 + 1.5 / Self.rate)
        #expect(done.end == Self.time(steps[1].index))

        #expect(progress.first == 0)
        #expect(progress.allSatisfy { (0...1).contains($0) })
        #expect(zip(progress, progress.dropFirst()).allSatisfy { $0 <= $1 }, "progress never goes back")
        #expect(progress.count >= steps[1].index - startIndex, "progress is reported while holding only")
        #expect(progress.last == 1, "timed on past the hold time, at full progress")

        // Completed, the hold is still timed (docs/protocol.md §5.4) until the value leaves the tolerance; then no
        // new hold until released below exit.
        #expect(counter.isInAttempt)
        let release = Self.ramp(100, 50, by: 10) + Self.holdUp
        let again = Self.steps(Self.drive(&counter, release, from: values.count))
        #expect(again.count == 2 && again.last == .holdStarted, "\(again)")
        guard case .holdEnded(let end) = again.first else {
            Issue.record("no holdEnded: \(again)")
            return
        }
        #expect(end.completed)
        #expect(end.held > 5, "held past the 5 s it needed: \(end.held)")
    }

    @Test func aDipWithinToleranceKeepsTheHold() {
        var counter = RepCounter(kind: .hold, direction: .rising, thresholds: Self.holdThresholds, maxGap: 0.5)
        // enter − tolerance = 83: not below it.
        let values = Self.holdUp + Self.repeated(100, 30) + Self.repeated(83, 30) + Self.repeated(100, 120)
        let steps = Self.steps(Self.drive(&counter, values))
        #expect(steps.count == 2, "\(steps)")
        #expect(steps.first == .holdStarted)
        #expect(steps.last.map { if case .completed = $0 { true } else { false } } == true, "\(steps)")
    }

    @Test func breakingTheHoldGivesNoRep() {
        var counter = RepCounter(kind: .hold, direction: .rising, thresholds: Self.holdThresholds, maxGap: 0.5)
        let values = Self.holdUp + Self.repeated(100, 60) + [82.9] + Self.repeated(70, 30)
        let driven = Self.drive(&counter, values)
        let steps = Self.steps(driven)
        #expect(steps.count == 2 && steps.first == .holdStarted, "\(steps)")
        let ended = driven.first { if case .holdEnded = $0.step { true } else { false } }
        #expect(ended?.index == Self.holdUp.count + 60)
        if case .holdEnded(let end)? = ended?.step {
            #expect(!end.completed, "broken before the hold time")
            #expect(abs(end.held - 2) < 0.05, "about 2 s held at 30 poses a second: \(end.held)")
        }
        #expect(counter.holdProgress == nil)
        #expect(!counter.isInAttempt)
        // Rising again starts a new hold straight away (no release needed after a break).
        let again = Self.steps(Self.drive(&counter, [95], from: values.count))
        #expect(again == [.holdStarted])
        #expect(counter.holdProgress == 0)
    }

    @Test func holdTimeDoesNotAccrueAcrossAGap() throws {
        var counter = RepCounter(kind: .hold, direction: .rising, thresholds: Self.holdThresholds, maxGap: 0.5)
        let before = Self.holdUp + Self.repeated(100, 60)  // two seconds held
        _ = Self.drive(&counter, before)
        let progressBefore = try #require(counter.holdProgress)
        #expect(abs(progressBefore - 2 / 5) < 1.5 / Self.rate / 5)

        // One second without samples, then the hold goes on.
        let gapStart = before.count - 1 + 30
        #expect(counter.update(100, at: Self.time(gapStart), mayStart: true) == .none)
        #expect(counter.holdProgress == progressBefore)

        // A gap up to maxGap does accrue.
        let shortGapEnd = gapStart + 12  // 0.4 s
        #expect(counter.update(100, at: Self.time(shortGapEnd), mayStart: true) == .none)
        let afterShortGap = try #require(counter.holdProgress)
        #expect(abs(afterShortGap - progressBefore - 0.4 / 5) < 1e-9)

        // The hold completes once 5 s have accrued, one second later than without the gap.
        let rest = Self.drive(&counter, Self.repeated(100, 120), from: shortGapEnd + 1)
        let completion = try #require(rest.first { if case .completed = $0.step { true } else { false } })
        let startIndex = try #require(Self.holdUp.firstIndex { $0 >= 90 })
        let elapsed = Self.time(completion.index) - Self.time(startIndex)
        #expect(elapsed >= 6 - 1e-9)
        #expect(elapsed < 6 + 1.5 / Self.rate)
    }
}
