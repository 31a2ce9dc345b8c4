import Foundation
import MotionCore
import MotionSimulation

/// Synthetic accelerometer streams whose answers are known: a gravity-free acceleration along the device's x axis,
/// with gravity (9.81 m/s²) along −y and a little along z, sampled as a phone would.
struct MotionSignal {
    /// Gravity on the device's axes while it is held upright and tilted slightly.
    static let gravity = MotionVector(x: 0, y: -9.81, z: 0.3)

    /// Samples of `acceleration` (m/s² along x, gravity added) from t = 0 to `duration` at `rate` Hz. With
    /// `jitter` > 0 each time after the first moves by up to ±`jitter`/2 of a period (seeded), as a phone's do.
    static func samples(
        rate: Double, duration: Double, jitter: Double = 0, seed: UInt64 = 1, _ acceleration: (Double) -> Double
    ) -> [MotionSample] {
        var random = SeededRandom(seed: seed)
        let count = Int((duration * rate).rounded(.down)) + 1
        return (0..<count).map { i in
            let offset = i == 0 ? 0 : jitter * (Double.random(in: 0..<1, using: &random) - 0.5)
            let t = (Double(i) + offset) / rate
            let a = acceleration(t)
            return MotionSample(
                t: t, acceleration: MotionVector(x: gravity.x + a, y: gravity.y, z: gravity.z))
        }
    }

    /// A sine of `frequency` Hz and `amplitude` m/s².
    static func sine(frequency: Double, amplitude: Double) -> (Double) -> Double {
        { t in amplitude * sin(2 * Double.pi * frequency * t) }
    }

    /// The start and end of ``reach(tremor:)``, seconds.
    static let reachWindow = (start: 1.0, end: 2.2)

    /// A minimum-jerk reach of 0.3 m in 1.2 s (Flash and Hogan 1985: x = D(10τ³ − 15τ⁴ + 6τ⁵)) from rest at 1 s to
    /// rest, with a 6 Hz tremor of `tremor` m/s² during it.
    static func reach(tremor: Double = 0) -> (Double) -> Double {
        { t in
            let (start, end) = reachWindow
            let duration = end - start
            let tau = (t - start) / duration
            guard tau >= 0, tau <= 1 else { return 0 }
            let minimumJerk = 0.3 / (duration * duration) * (60 * tau - 180 * tau * tau + 120 * tau * tau * tau)
            return minimumJerk + tremor * sin(2 * Double.pi * 6 * (t - start))
        }
    }

    /// An analyzer with every sample of `samples` appended.
    static func analyzer(
        _ samples: [MotionSample], configuration: MotionAnalysisConfiguration = MotionAnalysisConfiguration()
    ) throws -> MotionAnalyzer {
        var analyzer = MotionAnalyzer(configuration: configuration)
        for sample in samples { try analyzer.append(sample) }
        return analyzer
    }
}
