#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// `atan2(y, x)` in degrees.
func atan2Degrees(_ y: Double, _ x: Double) -> Double { atan2(y, x) * 180 / Double.pi }

/// `exp(x)`.
func exponential(_ x: Double) -> Double { exp(x) }
