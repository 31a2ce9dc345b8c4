/// How a ``RemoteMotionSession`` talks to the server: limits and timers, each with a safe default.
public struct RemoteSessionConfiguration: Sendable {
    /// Send poses as binary frames (docs/protocol.md §3.2) when the server offers them: a v2 server, recognised by the
    /// `resume` token in `started`, takes them in `joints` sessions. Binary frames carry coordinates as 32-bit
    /// floats (about a fifth of the JSON's bytes). Default true.
    public var binaryFrames = true
    /// The most entries (poses, motion batches, `reset`, `baseline`) kept until the server confirms them with a
    /// `checkpoint`, sent or not. When full, the oldest entries are dropped to keep the newest and a
    /// ``ConnectionEvent/framesDropped(count:through:)`` says so. Default 3,600 (two minutes at 30 poses/s; a
    /// server checkpoints at least every 5 s while poses arrive).
    public var maxQueuedEntries = 3_600
    /// The longest the TCP connection and the TLS and WebSocket handshakes may take. Default 10 s.
    public var connectTimeout: Duration = .seconds(10)
    /// The longest the server may take to answer `start` or `resume`. Default 10 s.
    public var answerTimeout: Duration = .seconds(10)
    /// The longest ``RemoteMotionSession/stop()`` waits for the summary. Default 30 s.
    public var stopTimeout: Duration = .seconds(30)
    /// How many times in a row a dropped connection is opened again before the session fails. Default 8.
    public var maxReconnectAttempts = 8
    /// The wait before the first reconnection, doubled after each failed attempt up to ``maxReconnectDelay``.
    /// Default 0.1 s.
    public var reconnectDelay: Duration = .milliseconds(100)
    /// The longest wait between reconnections. Default 5 s.
    public var maxReconnectDelay: Duration = .seconds(5)
    /// PEM certificate authorities to verify a `wss://` server with; nil uses the system's. Handed to the transport
    /// in each ``TransportRequest``.
    public var certificateAuthorityFile: String?
    /// Whether to verify a `wss://` server's certificate and name (handed to the transport). Default true.
    public var verifiesPeer = true
    /// Whether ``RemoteMotionSession/snapshot`` changes (and its observers hear of them) on the main actor, as a
    /// SwiftUI view needs; otherwise on the connection's thread. Default false.
    public var updatesSnapshotOnMainActor = false
    /// The opaque client id sent in `start` (at most 128 characters and 256 bytes of UTF-8), to query history later.
    public var subject: String?
    /// Whether the camera image is mirrored (front camera): the server swaps left and right (docs/protocol.md §4).
    public var mirrored = false

    /// Creates the defaults.
    public init() {}
}
