import Foundation
import MotionCore
import Testing

/// The accelerometer analysis against answers known analytically, at several phone rates.
///
/// Tolerances across rates (50, 60 Hz and jittered against 100 Hz): SPARC within 0.02, tremor share within 0.03,
/// RMS within 7 % (linear interpolation of an 8 Hz sine sampled at 50 Hz loses about 6 % of its amplitude).
@Suite struct MotionAnalyzerTests {
    private typealias Signal = MotionSignal

    @Test(arguments: [100.0, 60, 50])
    func eightHertzSineIsAllTremorWithRmsOfAmplitudeOverRootTwo(rate: Double) throws {
        let amplitude = 1.5
        let analyzer = try Signal.analyzer(
            Signal.samples(rate: rate, duration: 4, Signal.sine(frequency: 8, amplitude: amplitude)))
        let levelResult = analyzer.recentLevel()
        let level = try #require(levelResult)
        #expect(level.tremor > 0.99)
        #expect(
            abs(level.rms - amplitude / 2.0.squareRoot()) < amplitude / 2.0.squareRoot() * (rate == 100 ? 0.01 : 0.07))
        let repResult = analyzer.rep(from: 1, to: 3)
        let rep = try #require(repResult)
        #expect(rep.tremor > 0.99)
        #expect(abs(rep.covered - 2) < 1e-9)
    }

    @Test(arguments: [100.0, 50])
    func oneHertzSineHasNoTremor(rate: Double) throws {
        let analyzer = try Signal.analyzer(
            Signal.samples(rate: rate, duration: 4, Signal.sine(frequency: 1, amplitude: 1.5)))
        let levelResult = analyzer.recentLevel()
        let level = try #require(levelResult)
        #expect(level.tremor < 0.001)
        #expect(level.rms > 0.9)
    }

    @Test func stillPhoneReadsNoMovement() throws {
        let analyzer = try Signal.analyzer(Signal.samples(rate: 100, duration: 3) { _ in 0 })
        let levelResult = analyzer.recentLevel()
        let level = try #require(levelResult)
        #expect(level.rms < 1e-9)
        #expect(level.tremor == 0)
        let repResult = analyzer.rep(from: 0.5, to: 2.5)
        let rep = try #require(repResult)
        #expect(rep.smoothness == nil)
    }

    @Test func minimumJerkReachIsSmootherThanTheSameReachWithTremor() throws {
        let window = Signal.reachWindow
        let clean = try Signal.analyzer(Signal.samples(rate: 100, duration: 3.5, Signal.reach()))
        let shaky = try Signal.analyzer(Signal.samples(rate: 100, duration: 3.5, Signal.reach(tremor: 2)))
        let smoothResult = clean.rep(from: window.start, to: window.end)
        let smooth = try #require(smoothResult)
        let tremulousResult = shaky.rep(from: window.start, to: window.end)
        let tremulous = try #require(tremulousResult)
        let smoothSPARC = try #require(smooth.smoothness)
        let tremulousSPARC = try #require(tremulous.smoothness)
        // A minimum-jerk speed profile: about −1.40 (Balasubramanian et al. 2015 report about −1.4 to −1.6 for
        // smooth single reaches).
        #expect(abs(smoothSPARC + 1.40) < 0.02)
        #expect(tremulousSPARC < smoothSPARC - 0.3)
        #expect(smooth.tremor < 0.001)
        #expect(tremulous.tremor > 0.7)
        #expect(tremulous.rms > smooth.rms)
    }

    @Test(arguments: [(50.0, 0.0), (60, 0), (60, 0.4), (100, 0.6)])
    func ratesAndJitterGiveTheSameResults(rate: Double, jitter: Double) throws {
        let window = Signal.reachWindow
        for tremor in [0.0, 2.0] {
            let reference = try Signal.analyzer(Signal.samples(rate: 100, duration: 3.5, Signal.reach(tremor: tremor)))
            let other = try Signal.analyzer(
                Signal.samples(rate: rate, duration: 3.5, jitter: jitter, seed: 7, Signal.reach(tremor: tremor)))
            let expectedResult = reference.rep(from: window.start, to: window.end)
            let expected = try #require(expectedResult)
            let measuredResult = other.rep(from: window.start, to: window.end)
            let measured = try #require(measuredResult)
            let expectedSPARC = try #require(expected.smoothness)
            let measuredSPARC = try #require(measured.smoothness)
            #expect(abs(measuredSPARC - expectedSPARC) < 0.02, "tremor \(tremor): \(measuredSPARC) vs \(expectedSPARC)")
            #expect(abs(measured.tremor - expected.tremor) < 0.03)
            #expect(abs(measured.rms - expected.rms) < expected.rms * 0.07)
        }
        // The recent level on a steady mixture: 1 m/s² at 2 Hz and 0.8 m/s² at 7 Hz, so a share of about
        // 0.64 / (0.64 + 1) in the band.
        let mixture: (Double) -> Double = { t in sin(2 * Double.pi * 2 * t) + 0.8 * sin(2 * Double.pi * 7 * t) }
        let reference = try Signal.analyzer(Signal.samples(rate: 100, duration: 4, mixture))
        let other = try Signal.analyzer(Signal.samples(rate: rate, duration: 4, jitter: jitter, seed: 5, mixture))
        let recentExpectedResult = reference.recentLevel()
        let recentExpected = try #require(recentExpectedResult)
        let recentResult = other.recentLevel()
        let recent = try #require(recentResult)
        #expect(abs(recentExpected.tremor - 0.64 / 1.64) < 0.02)
        #expect(abs(recent.tremor - recentExpected.tremor) < 0.03, "\(recent) vs \(recentExpected)")
        #expect(abs(recent.rms - recentExpected.rms) < recentExpected.rms * 0.07)
    }

    /// Measures borrow their scratch from a pool shared by every analyzer (and keep a window length's Hann window
    /// in it): what a measure answers must not depend on which scratch it got or what it measured before, nor on
    /// other threads measuring at the same time.
    @Test func measuresDoNotDependOnTheScratchTheyBorrow() async throws {
        let shaky = try Signal.analyzer(
            Signal.samples(rate: 100, duration: 6, Signal.sine(frequency: 8, amplitude: 1)))
        let slow = try Signal.analyzer(
            Signal.samples(rate: 60, duration: 6, Signal.sine(frequency: 1, amplitude: 2)))
        var configuration = MotionAnalysisConfiguration()
        configuration.rate = 50
        var other = MotionAnalyzer(configuration: configuration)
        for sample in Signal.samples(rate: 50, duration: 6, Signal.sine(frequency: 3, amplitude: 1)) {
            try other.append(sample)
        }
        let level = shaky.recentLevel()
        let rep = shaky.rep(from: 1, to: 4.5)
        // Other window lengths and another configuration in between.
        _ = slow.rep(from: 0.5, to: 5)
        _ = other.recentLevel()
        _ = slow.recentLevel()
        #expect(shaky.recentLevel() == level)
        #expect(shaky.rep(from: 1, to: 4.5) == rep)
        let answers = await withTaskGroup(of: (MotionLevel?, RepMotion?).self) { group in
            for index in 0..<16 {
                group.addTask {
                    index % 2 == 0
                        ? (shaky.recentLevel(), shaky.rep(from: 1, to: 4.5))
                        : (slow.recentLevel(), slow.rep(from: 0.5, to: 5))
                }
            }
            return await group.reduce(into: []) { $0.append($1) }
        }
        let slowAnswers = (slow.recentLevel(), slow.rep(from: 0.5, to: 5))
        #expect(answers.filter { $0 == (level, rep) }.count == 8)
        #expect(answers.filter { $0 == slowAnswers }.count == 8)
    }

    @Test func refusesNonFiniteNumbersAndChangesNothing() throws {
        var analyzer = try Signal.analyzer(
            Signal.samples(rate: 100, duration: 2, Signal.sine(frequency: 8, amplitude: 1)))
        let before = analyzer.recentLevel()
        let last = try #require(analyzer.lastTime)
        let t = last + 0.01
        let bad = [
            MotionSample(t: t, acceleration: MotionVector(x: .nan, y: 0, z: 0)),
            MotionSample(t: .infinity, acceleration: MotionVector(x: 0, y: 0, z: 0)),
            MotionSample(
                t: t, acceleration: MotionVector(x: 0, y: 0, z: 0), rotation: MotionVector(x: 0, y: .infinity, z: 0)),
        ]
        for sample in bad {
            #expect(throws: MotionSampleError.nonFinite) { try analyzer.append(sample) }
        }
        #expect(analyzer.lastTime == last)
        let after = analyzer.recentLevel()
        #expect(after == before)
    }

    @Test func refusesTimeThatDoesNotIncrease() throws {
        var analyzer = try Signal.analyzer(
            Signal.samples(rate: 100, duration: 2, Signal.sine(frequency: 8, amplitude: 1)))
        let before = analyzer.recentLevel()
        let last = try #require(analyzer.lastTime)
        for t in [last, last - 0.005, last - 5] {
            #expect(throws: MotionSampleError.nonIncreasingTime(previous: last, t: t)) {
                try analyzer.append(MotionSample(t: t, acceleration: Signal.gravity))
            }
        }
        #expect(analyzer.lastTime == last)
        let after = analyzer.recentLevel()
        #expect(after == before)
        try analyzer.append(MotionSample(t: last + 0.01, acceleration: Signal.gravity))
        #expect(analyzer.lastTime == last + 0.01)
    }

    @Test func wireArraysOfFourOrSevenNumbersOnly() throws {
        let plain = try MotionSample([12.3, 0.12, -9.71, 0.85])
        #expect(plain == MotionSample(t: 12.3, acceleration: MotionVector(x: 0.12, y: -9.71, z: 0.85)))
        let rotating = try MotionSample([1, 0, -9.8, 0, 10, 20, 30])
        #expect(rotating.rotation == MotionVector(x: 10, y: 20, z: 30))
        #expect(throws: MotionSampleError.wrongCount(5)) { try MotionSample([1, 0, 0, 0, 0]) }
        #expect(throws: MotionSampleError.wrongCount(0)) { try MotionSample([]) }
        #expect(throws: MotionSampleError.nonFinite) { try MotionSample([1, 0, .nan, 0]) }
        #expect(throws: MotionSampleError.nonFinite) { try MotionSample([1, 0, 0, 0, 0, 0, -.infinity]) }
    }

    @Test func aLongGapRestartsTheAnalysis() throws {
        var analyzer = try Signal.analyzer(
            Signal.samples(rate: 100, duration: 3, Signal.sine(frequency: 8, amplitude: 1)))
        let beforeGap = analyzer.recentLevel()
        #expect(beforeGap != nil)
        try analyzer.append(MotionSample(t: 4, acceleration: Signal.gravity))
        let afterGap = analyzer.recentLevel()
        #expect(afterGap == nil)
        let repBeforeGap = analyzer.rep(from: 1, to: 3)
        #expect(repBeforeGap == nil)
        for i in 1...60 { try analyzer.append(MotionSample(t: 4 + Double(i) / 100, acceleration: Signal.gravity)) }
        let levelResult = analyzer.recentLevel()
        let level = try #require(levelResult)
        #expect(level.rms < 1e-9)
    }

    @Test func shortWindowsAreNotJudged() throws {
        let analyzer = try Signal.analyzer(
            Signal.samples(rate: 100, duration: 3, Signal.sine(frequency: 8, amplitude: 1)))
        let tooShort = analyzer.rep(from: 1, to: 1.4)
        #expect(tooShort == nil)
        let backwards = analyzer.rep(from: 2, to: 1)
        #expect(backwards == nil)
        let halfSecond = analyzer.rep(from: 1, to: 1.5)
        #expect(halfSecond != nil)
        let young = try Signal.analyzer(Signal.samples(rate: 100, duration: 0.4) { _ in 0 })
        let youngLevel = young.recentLevel()
        #expect(youngLevel == nil)
    }

    @Test func historyIsBoundedAndRepsAreJudgedOnWhatIsKept() throws {
        var configuration = MotionAnalysisConfiguration()
        configuration.historySeconds = 3
        let analyzer = try Signal.analyzer(
            Signal.samples(rate: 100, duration: 20, Signal.sine(frequency: 8, amplitude: 1)),
            configuration: configuration)
        let repResult = analyzer.rep(from: 5, to: 20)
        let rep = try #require(repResult)
        #expect(rep.covered <= 3 + 1e-9)
        #expect(rep.covered > 2.9)
        #expect(rep.tremor > 0.99)
        #expect(abs(rep.rms - 1 / 2.0.squareRoot()) < 0.01)
        let levelResult = analyzer.recentLevel()
        let level = try #require(levelResult)
        #expect(level.tremor > 0.99)
    }

    @Test func resetForgetsEverySample() throws {
        var analyzer = try Signal.analyzer(
            Signal.samples(rate: 100, duration: 3, Signal.sine(frequency: 8, amplitude: 1)))
        analyzer.reset()
        #expect(analyzer.lastTime == nil)
        let afterReset = analyzer.recentLevel()
        #expect(afterReset == nil)
        try analyzer.append(MotionSample(t: 1, acceleration: Signal.gravity))
        #expect(analyzer.lastTime == 1)
    }

    @Test func configurationIsClampedIntoItsRanges() {
        var configuration = MotionAnalysisConfiguration()
        configuration.rate = .nan
        configuration.historySeconds = 10_000
        configuration.sparcPaddingLevel = 40
        configuration.tremorBand = 4...400
        let clamped = MotionAnalyzer(configuration: configuration).configuration
        #expect(clamped.rate == 100)
        #expect(clamped.historySeconds == 120)
        #expect(clamped.sparcPaddingLevel == 6)
        #expect(clamped.tremorBand == 4...50)
    }
}
