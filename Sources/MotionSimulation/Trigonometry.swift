#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func sine(degrees: Double) -> Double { sin(degrees * Double.pi / 180) }
func cosine(degrees: Double) -> Double { cos(degrees * Double.pi / 180) }
func cosine(radians: Double) -> Double { cos(radians) }
