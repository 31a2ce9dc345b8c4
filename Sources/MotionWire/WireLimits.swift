/// Bounds on what the decoders accept, so a hostile or broken client costs bounded time and memory.
///
/// Every field has a safe default; `WireLimits()` is what a server should use unless it has a reason not to.
public struct WireLimits: Sendable, Hashable {
    /// The largest message in bytes. Default 1 MiB. Larger input is refused before it is read, with
    /// ``ErrorCode/messageTooBig`` (WebSocket close code 1009, HTTP 413).
    public var maxMessageBytes: Int
    /// The deepest nesting of objects and arrays. Default 64; a pose message needs 3.
    public var maxDepth: Int
    /// The most frames in one `poses` message or `{"frames":[…]}` body. Default 1000 (about 33 s at 30 fps).
    public var maxFramesPerBatch: Int
    /// The most samples in one `motion` message or `POST /v1/sessions/{id}/motion` body (docs/protocol.md §3.3).
    /// Default 1000 (10 s at 100 samples/s).
    public var maxSamplesPerMessage: Int
    /// The most motion samples in the `motion` array of a `POST /v1/analyze` body. Default 4000 (40 s at
    /// 100 samples/s, beyond the 33 s of a full frame batch at 30 fps).
    public var maxSamplesPerRecording: Int
    /// The most hold attempts in the `holds` of a `summary` a client reads back (``ServerMessage``,
    /// docs/protocol.md §5.4). Default 10,000 (about 500 KB of holds, within the default message size).
    public var maxHoldsPerSummary: Int

    /// Creates limits.
    /// - Parameters:
    ///   - maxMessageBytes: The largest message in bytes.
    ///   - maxDepth: The deepest nesting of objects and arrays.
    ///   - maxFramesPerBatch: The most frames in one batch.
    ///   - maxSamplesPerMessage: The most motion samples in one message.
    ///   - maxSamplesPerRecording: The most motion samples in an analysed recording.
    ///   - maxHoldsPerSummary: The most hold attempts in a summary read back.
    public init(
        maxMessageBytes: Int = 1 << 20, maxDepth: Int = 64, maxFramesPerBatch: Int = 1000,
        maxSamplesPerMessage: Int = 1000, maxSamplesPerRecording: Int = 4000, maxHoldsPerSummary: Int = 10_000
    ) {
        self.maxMessageBytes = maxMessageBytes
        self.maxDepth = maxDepth
        self.maxFramesPerBatch = maxFramesPerBatch
        self.maxSamplesPerMessage = maxSamplesPerMessage
        self.maxSamplesPerRecording = maxSamplesPerRecording
        self.maxHoldsPerSummary = maxHoldsPerSummary
    }
}
