#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A small seeded generator (SplitMix64, Steele, Lea and Flood 2014): the same seed gives the same stream on every
/// machine. For simulations and reproducible tests, never for secrets.
public struct SeededRandom: RandomNumberGenerator, Sendable {
    private var state: UInt64

    /// Creates a generator.
    /// - Parameter seed: The seed.
    public init(seed: UInt64) { state = seed }

    /// The next 64 random bits.
    public mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// A uniform value in `0..<1`.
    public mutating func unit() -> Double { Double(next() >> 11) * 0x1.0p-53 }

    /// A normally distributed value (Box–Muller).
    /// - Parameter standardDeviation: The spread.
    public mutating func gaussian(standardDeviation: Double) -> Double {
        guard standardDeviation > 0 else { return 0 }
        let u1 = max(unit(), .leastNonzeroMagnitude)
        let u2 = unit()
        return (-2 * log(u1)).squareRoot() * cos(2 * Double.pi * u2) * standardDeviation
    }
}
