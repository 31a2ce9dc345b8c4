/// Which of a session's poses go to the watchers that asked for them: at most 15 per second of the session's time
/// (pose `t`, the client's clock: time is an input), the others dropped, never queued.
///
/// The allowance is a grid of slots ``interval`` apart; the first pose at or after a slot takes it. A 30 Hz stream
/// whose timestamps jitter thus still sends 15 poses a second, never more, where a plain "at least ``interval``
/// since the last one" would fall to 10.
struct PoseThrottle: Sendable {
    /// The spacing of the slots, in seconds of the session's time.
    static let interval = 1.0 / 15
    /// Rounding in the clients' timestamps (`10.0667 - 10.0` is a hair under 1/15): a pose this close to its slot
    /// takes it.
    static let tolerance = 1e-6

    /// The next slot; a pose earlier than it is dropped.
    private var due = -Double.infinity

    /// Whether the pose at `t` is sent; if so it takes its slot.
    /// - Parameter t: The pose's timestamp, seconds.
    mutating func admits(_ t: Double) -> Bool {
        // A session restored from an earlier checkpoint goes back in time: the grid starts again there.
        if t < due - 2 * Self.interval { due = -.infinity }
        guard t >= due - Self.tolerance else { return false }
        // Within its slot the grid goes on; after a gap in the stream it starts again at this pose.
        due = t - due < Self.interval ? due + Self.interval : t + Self.interval
        return true
    }
}
