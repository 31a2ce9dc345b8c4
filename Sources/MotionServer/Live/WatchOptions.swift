import HTTPServer

/// What a watcher asks for in the query of `GET /v1/sessions/{id}/watch`: `poses=1` (or `true`) adds the patient's
/// poses to the events and snapshots (at most 15 a second, ``WatchThrottle/poses``), `motion=1` (or `true`) the
/// phone's motion samples (at most 30 a second, ``WatchThrottle/motion``, batched); `0`, `false` or no such member
/// leaves them out.
///
/// ```
/// GET /v1/sessions/01JD…/watch?poses=1&motion=1
/// ```
struct WatchOptions: Equatable, Sendable {
    /// Whether the watcher gets `pose` messages.
    var poses = false
    /// Whether the watcher gets `motion` messages.
    var motion = false

    /// Creates options.
    /// - Parameters:
    ///   - poses: Whether the watcher gets `pose` messages.
    ///   - motion: Whether the watcher gets `motion` messages.
    init(poses: Bool = false, motion: Bool = false) {
        self.poses = poses
        self.motion = motion
    }

    /// Reads the options of a watch request.
    /// - Parameter request: The upgrade request.
    /// - Throws: ``RESTError/invalidQuery(_:)`` for a `poses` or `motion` value other than `0`, `1`, `false` or
    ///   `true`.
    init(_ request: HTTPRequest) throws(RESTError) {
        for stream in WatchedStream.allCases { self[stream] = try Self.flag(stream.rawValue, of: request) }
    }

    /// Whether the watcher asked for `stream`.
    subscript(stream: WatchedStream) -> Bool {
        get {
            switch stream {
            case .poses: poses
            case .motion: motion
            }
        }
        set {
            switch stream {
            case .poses: poses = newValue
            case .motion: motion = newValue
            }
        }
    }

    /// The streams asked for.
    var streams: [WatchedStream] { WatchedStream.allCases.filter { self[$0] } }

    private static func flag(_ name: String, of request: HTTPRequest) throws(RESTError) -> Bool {
        switch request.query(name) {
        case nil, "0", "false": false
        case "1", "true": true
        default: throw .invalidQuery("\(name) must be 1, true, 0 or false")
        }
    }
}

/// What a watcher may ask for besides the session's own messages (``WatchOptions``), named as in the watch query and
/// in the node bus's wishes (docs/protocol.md §8).
enum WatchedStream: String, CaseIterable, Sendable {
    /// The patient's poses, as `pose` messages.
    case poses
    /// The phone's motion samples, as `motion` messages.
    case motion
}

extension WebSocket {
    /// The options this watcher's upgrade request asked for (checked before the upgrade: a watcher whose query was
    /// refused never reaches a session).
    var watchOptions: WatchOptions {
        guard let request else { return WatchOptions() }
        return (try? WatchOptions(request)) ?? WatchOptions()
    }
}
