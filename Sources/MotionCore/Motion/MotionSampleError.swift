/// Why a motion sample was refused. A refused sample changes nothing: the analyzer goes on from the samples it had.
public enum MotionSampleError: Error, Sendable, Hashable {
    /// The wire array held this many numbers instead of 4 or 7.
    case wrongCount(Int)
    /// A number was NaN or infinite.
    case nonFinite
    /// `t` was not greater than the previous accepted sample's `t` (docs/protocol.md §3.3: strictly increasing).
    case nonIncreasingTime(previous: Double, t: Double)
}
