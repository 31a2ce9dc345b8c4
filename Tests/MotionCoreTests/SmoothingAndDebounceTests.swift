import MotionSimulation
import Testing

@testable import MotionCore

@Suite("Smoothing and debouncing")
struct SmoothingAndDebounceTests {
    @Suite("One Euro filter")
    struct OneEuroFilterTests {
        private static let rate = 30.0

        private static func variance(_ values: [Double]) -> Double {
            let mean = values.reduce(0, +) / Double(values.count)
            return values.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Double(values.count)
        }

        @Test(arguments: [0.0, 42, -17.5, 180])
        func passesAConstantUnchanged(_ constant: Double) {
            var filter = OneEuroFilter(parameters: Smoothing(), maxGap: 0.5)
            for i in 0..<120 {
                let out = filter.filter(constant, at: Double(i) / Self.rate)
                #expect(abs(out - constant) < 1e-9, "sample \(i): \(out)")
            }
        }

        @Test(arguments: [UInt64(1), 2, 3, 42])
        func reducesTheVarianceOfNoiseAroundAConstant(seed: UInt64) {
            var random = SeededRandom(seed: seed)
            var filter = OneEuroFilter(parameters: Smoothing(), maxGap: 0.5)
            var raw: [Double] = []
            var smoothed: [Double] = []
            for i in 0..<600 {
                let value = 60 + random.gaussian(standardDeviation: 3)
                let out = filter.filter(value, at: Double(i) / Self.rate)
                if i >= 30 {  // after one second of warm-up
                    raw.append(value)
                    smoothed.append(out)
                }
            }
            let ratio = Self.variance(raw) / Self.variance(smoothed)
            #expect(ratio > 3, "variance reduced only by \(ratio)×")
            let mean = smoothed.reduce(0, +) / Double(smoothed.count)
            #expect(abs(mean - 60) < 1, "mean drifted to \(mean)")
        }

        @Test func followsAStepEventually() {
            var filter = OneEuroFilter(parameters: Smoothing(), maxGap: 0.5)
            var t = 0.0
            for _ in 0..<30 {
                _ = filter.filter(0, at: t)
                t += 1 / Self.rate
            }
            let first = filter.filter(100, at: t)
            #expect(first > 0 && first < 100, "the first sample after the step is smoothed: \(first)")
            var previous = first
            var out = first
            for _ in 0..<90 {  // three seconds
                t += 1 / Self.rate
                out = filter.filter(100, at: t)
                #expect(out >= previous - 1e-9, "the output approaches the step monotonically")
                #expect(out <= 100 + 1e-9)
                previous = out
            }
            #expect(abs(out - 100) < 0.5, "after 3 s: \(out)")
        }

        @Test func restartsAfterAGapLongerThanMaxGap() {
            var filter = OneEuroFilter(parameters: Smoothing(), maxGap: 0.5)
            for i in 0..<30 { _ = filter.filter(10, at: Double(i) / Self.rate) }
            let lastTime = 29 / Self.rate
            #expect(filter.filter(90, at: lastTime + 0.75) == 90)
            // Smoothing resumes from the restart value.
            let next = filter.filter(10, at: lastTime + 0.75 + 1 / Self.rate)
            #expect(next > 10 && next < 90)
        }

        @Test func keepsSmoothingAcrossAGapUpToMaxGap() {
            var filter = OneEuroFilter(parameters: Smoothing(), maxGap: 0.5)
            _ = filter.filter(10, at: 1)
            let out = filter.filter(90, at: 1.5)
            #expect(out > 10 && out < 90, "\(out)")
        }

        @Test func resetRestartsAtTheNextSample() {
            var filter = OneEuroFilter(parameters: Smoothing(), maxGap: 0.5)
            _ = filter.filter(10, at: 0)
            _ = filter.filter(10, at: 0.1)
            filter.reset()
            #expect(filter.filter(70, at: 0.2) == 70)
        }

        @Test func aHigherBetaFollowsFastMovesMoreClosely() {
            func lag(beta: Double) -> Double {
                var filter = OneEuroFilter(parameters: Smoothing(beta: beta), maxGap: 0.5)
                var worst = 0.0
                for i in 0..<60 {
                    let value = Double(i) * 5  // 150°/s ramp
                    worst = max(worst, value - filter.filter(value, at: Double(i) / Self.rate))
                }
                return worst
            }
            #expect(lag(beta: 0.1) < lag(beta: 0))
        }
    }

    @Suite("Debouncer")
    struct DebouncerTests {
        @Test func reportsOnlyAfterTheDelay() {
            var debouncer = Debouncer(initial: "a", delay: 0.5)
            #expect(debouncer.update("a", at: 0) == nil)
            #expect(debouncer.update("b", at: 0.25) == nil)
            #expect(debouncer.update("b", at: 0.5) == nil)
            #expect(debouncer.reported == "a")
            #expect(debouncer.update("b", at: 0.75) == "b")
            #expect(debouncer.reported == "b")
            #expect(debouncer.update("b", at: 1.0) == nil, "a change is reported once")
        }

        @Test func resetsWhenTheValueFlipsBack() {
            var debouncer = Debouncer(initial: 0, delay: 0.5)
            #expect(debouncer.update(1, at: 0) == nil)
            #expect(debouncer.update(1, at: 0.25) == nil)
            #expect(debouncer.update(0, at: 0.375) == nil)  // back to the reported value: the candidate is forgotten
            #expect(debouncer.update(1, at: 0.5) == nil)  // would be due if the first candidate had survived
            #expect(debouncer.update(1, at: 0.875) == nil)
            #expect(debouncer.update(1, at: 1.0) == 1)
        }

        @Test func aDifferentCandidateRestartsTheDelay() {
            var debouncer = Debouncer(initial: 0, delay: 0.5)
            #expect(debouncer.update(1, at: 0) == nil)
            #expect(debouncer.update(2, at: 0.25) == nil)
            #expect(debouncer.update(2, at: 0.5) == nil)
            #expect(debouncer.update(2, at: 0.75) == 2)
        }

        @Test func zeroDelayReportsAtOnce() {
            var debouncer = Debouncer(initial: false, delay: 0)
            #expect(debouncer.update(true, at: 0) == true)
            #expect(debouncer.update(true, at: 0.1) == nil)
            #expect(debouncer.update(false, at: 0.2) == false)
            #expect(debouncer.reported == false)
        }

        @Test func forceSetsTheValueWithoutAReport() {
            var debouncer = Debouncer(initial: 0, delay: 0.5)
            _ = debouncer.update(1, at: 0)
            debouncer.force(2)
            #expect(debouncer.reported == 2)
            #expect(debouncer.update(1, at: 0.6) == nil, "the pending candidate was dropped")
        }
    }
}
