#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func sine(degrees: Double) -> Double { sin(degrees * Double.pi / 180) }
func cosine(degrees: Double) -> Double { cos(degrees * Double.pi / 180) }
func cosine(radians: Double) -> Double { cos(radians) }
/// `atan2(y, x)` in degrees.
func arcTangent(_ y: Double, _ x: Double) -> Double { atan2(y, x) * 180 / Double.pi }
/// `asin(x)` in degrees, `x` clamped to −1…1.
func arcSine(_ x: Double) -> Double { asin(min(1, max(-1, x))) * 180 / Double.pi }
