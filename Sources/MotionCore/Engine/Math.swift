// MotionCore's one door to the C math library: every other file calls these functions, none imports it.
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

/// `cos(x)`, `x` in radians.
func cosine(_ x: Double) -> Double { cos(x) }

/// `sin(x)`, `x` in radians.
func sine(_ x: Double) -> Double { sin(x) }

/// `tan(x)`, `x` in radians.
func tangent(_ x: Double) -> Double { tan(x) }
