/// Which of a session's poses or motion samples go to the watchers that asked for them: at most one per
/// ``interval`` of the session's time (the client's clock, pose `t` or sample `t`: time is an input), the others
/// dropped, never queued. Poses go at most 15 a second (``poses``), motion samples at most 30 (``motion``).
///
/// The allowance is a grid of slots ``interval`` apart; the first item at or after a slot takes it. A 30 Hz stream
/// of poses whose timestamps jitter thus still sends 15 poses a second, never more, where a plain "at least
/// ``interval`` since the last one" would fall to 10.
struct WatchThrottle: Sendable {
    /// The spacing of the slots, in seconds of the session's time.
    let interval: Double
    /// Rounding in the clients' timestamps (`10.0667 - 10.0` is a hair under 1/15): an item this close to its slot
    /// takes it.
    static let tolerance = 1e-6

    /// The next slot; an item earlier than it is dropped.
    private var due = -Double.infinity

    /// A throttle of one item per `interval` seconds.
    /// - Parameter interval: The spacing of the slots, seconds (> 0).
    init(interval: Double) { self.interval = interval }

    /// Poses to watchers: at most 15 per second of the session's time.
    static var poses: WatchThrottle { WatchThrottle(interval: 1.0 / 15) }
    /// Motion samples to watchers: at most 30 per second of the session's time, enough for a chart of the phone's
    /// acceleration (the phone sends up to 100).
    static var motion: WatchThrottle { WatchThrottle(interval: 1.0 / 30) }

    /// Whether the item at `t` is sent; if so it takes its slot.
    /// - Parameter t: The item's timestamp, seconds.
    mutating func admits(_ t: Double) -> Bool {
        // A session restored from an earlier checkpoint goes back in time: the grid starts again there.
        if t < due - 2 * interval { due = -.infinity }
        guard t >= due - Self.tolerance else { return false }
        // Within its slot the grid goes on; after a gap in the stream it starts again at this item.
        due = t - due < interval ? due + interval : t + interval
        return true
    }
}
