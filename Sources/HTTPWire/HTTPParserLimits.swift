/// Size limits that bound the parser's memory and reject abusive requests early.
///
/// Every limit is enforced as soon as it is exceeded, without waiting for the rest of the element. Negative values
/// behave like zero.
public struct HTTPParserLimits: Sendable, Equatable {
    /// Maximum request-line length in bytes, excluding CRLF (method, target and version). Default 8 KiB.
    /// Exceeding it yields `.uriTooLong` (414).
    public var maxRequestLineBytes: Int
    /// Maximum size of the header section in bytes, counting every field line with its CRLF and the final empty
    /// line. Default 16 KiB. Exceeding it yields `.headersTooLarge` (431).
    public var maxHeaderBytes: Int
    /// Maximum number of header fields (also applied to trailer fields). Default 100. Exceeding it yields
    /// `.tooManyHeaders` (431).
    public var maxHeaderCount: Int
    /// Maximum body size in bytes, checked against Content-Length before reading and against the running total of
    /// chunk sizes. Default 1 MiB. Exceeding it yields `.bodyTooLarge` (413).
    public var maxBodyBytes: Int
    /// Maximum chunk-size line length in bytes (size and extensions, excluding CRLF). Default 1 KiB. Exceeding it
    /// yields `.chunkSizeLineTooLong` (400).
    public var maxChunkSizeLineBytes: Int
    /// Maximum size of the trailer section in bytes, counted like `maxHeaderBytes`. Default 4 KiB. Exceeding it
    /// yields `.trailersTooLarge` (431).
    public var maxTrailerBytes: Int
    /// Maximum number of empty lines ignored before a request-line (RFC 9112 §2.2). Default 8. Exceeding it yields
    /// `.invalidRequestLine` (400).
    public var maxLeadingEmptyLines: Int

    /// Creates limits; every parameter has the documented default.
    ///
    /// - Parameters:
    ///   - maxRequestLineBytes: Request-line limit in bytes (414).
    ///   - maxHeaderBytes: Header-section limit in bytes (431).
    ///   - maxHeaderCount: Header field-count limit (431).
    ///   - maxBodyBytes: Body limit in bytes (413).
    ///   - maxChunkSizeLineBytes: Chunk-size line limit in bytes (400).
    ///   - maxTrailerBytes: Trailer-section limit in bytes (431).
    ///   - maxLeadingEmptyLines: Empty lines tolerated before a request-line (400).
    public init(
        maxRequestLineBytes: Int = 8 * 1024,
        maxHeaderBytes: Int = 16 * 1024,
        maxHeaderCount: Int = 100,
        maxBodyBytes: Int = 1024 * 1024,
        maxChunkSizeLineBytes: Int = 1024,
        maxTrailerBytes: Int = 4 * 1024,
        maxLeadingEmptyLines: Int = 8
    ) {
        self.maxRequestLineBytes = maxRequestLineBytes
        self.maxHeaderBytes = maxHeaderBytes
        self.maxHeaderCount = maxHeaderCount
        self.maxBodyBytes = maxBodyBytes
        self.maxChunkSizeLineBytes = maxChunkSizeLineBytes
        self.maxTrailerBytes = maxTrailerBytes
        self.maxLeadingEmptyLines = maxLeadingEmptyLines
    }
}
