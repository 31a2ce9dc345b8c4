import HTTPServer

/// What a watcher asks for in the query of `GET /v1/sessions/{id}/watch`: `poses=1` (or `true`) adds the patient's
/// poses to the events and snapshots (at most 15 a second, ``PoseThrottle``); `poses=0`, `false` or no `poses`
/// leaves them out.
///
/// ```
/// GET /v1/sessions/01JD…/watch?poses=1
/// ```
struct WatchOptions: Equatable, Sendable {
    /// Whether the watcher gets `pose` messages.
    var poses = false

    /// Creates options.
    /// - Parameter poses: Whether the watcher gets `pose` messages.
    init(poses: Bool = false) { self.poses = poses }

    /// Reads the options of a watch request.
    /// - Parameter request: The upgrade request.
    /// - Throws: ``RESTError/invalidQuery(_:)`` for a `poses` value other than `0`, `1`, `false` or `true`.
    init(_ request: HTTPRequest) throws(RESTError) {
        switch request.query("poses") {
        case nil, "0", "false": poses = false
        case "1", "true": poses = true
        default: throw .invalidQuery("poses must be 1, true, 0 or false")
        }
    }
}

extension WebSocket {
    /// The options this watcher's upgrade request asked for (checked before the upgrade: a watcher whose query was
    /// refused never reaches a session).
    var watchOptions: WatchOptions {
        guard let request else { return WatchOptions() }
        return (try? WatchOptions(request)) ?? WatchOptions()
    }
}
