/// An incremental HTTP/1.1 request parser (RFC 9112).
///
/// Append bytes as they arrive, then call `next()` until it returns `.needMoreData`:
///
/// ```swift
/// parser.append(bytesFromSocket)
/// loop: while true {
///     switch parser.next() {
///     case .needMoreData: break loop
///     case .head(let head): ...
///     case .body(let bytes): ...
///     case .trailers(let fields): ...
///     case .end: ...            // request complete; the next pipelined request follows
///     case .error(let error): ... // answer error.status and close
///     }
/// }
/// ```
///
/// Each request yields `.head`, zero or more `.body`, an optional `.trailers` (chunked only) and `.end`. Pipelined
/// requests come out in order. Body bytes are handed out as soon as they arrive, so after `next()` returns
/// `.needMoreData` the buffer holds at most one incomplete line, bounded by the limits. After an error the parser
/// stays failed and discards input. Bare LF line endings are rejected (strict RFC 9112 §2.2).
///
/// The parser is a plain value with no shared state, so it is `Sendable`; it is meant to be owned by one
/// connection.
public struct HTTPRequestParser: Sendable {
    /// Where the parser is in the message grammar.
    public enum State: Sendable, Equatable {
        /// Waiting for a request-line (between messages).
        case requestLine
        /// Reading header field lines.
        case headerFields
        /// Reading a Content-Length body; `remaining` bytes still to come.
        case body(remaining: Int)
        /// Waiting for a chunk-size line.
        case chunkSize
        /// Reading chunk data; `remaining` bytes of the current chunk still to come.
        case chunkData(remaining: Int)
        /// Waiting for the CRLF that ends chunk data.
        case chunkDataEnd
        /// Reading the trailer section after the last chunk.
        case trailers
        /// The message is complete; the next `next()` returns `.end`.
        case messageEnd
        /// Parsing failed; the parser discards further input.
        case failed(HTTPParseError)
    }

    /// What `next()` produced.
    public enum Action: Sendable, Equatable {
        /// The buffered bytes do not complete the next element; append more.
        case needMoreData
        /// A complete request head.
        case head(HTTPRequestHead)
        /// A non-empty piece of the request body (decoded from chunked framing if needed).
        case body([UInt8])
        /// The non-empty trailer section of a chunked body, before `.end`.
        case trailers(HTTPHeaders)
        /// The current request is complete.
        case end
        /// The request is invalid; respond with `error.status` and close the connection.
        case error(HTTPParseError)
    }

    /// The limits in force.
    public let limits: HTTPParserLimits
    /// The current state.
    public internal(set) var state: State = .requestLine

    var buffer = ByteQueue()
    var requestLine: RequestLine?
    var fields = HTTPHeaders()
    var fieldBytes = 0
    var emptyLinesSkipped = 0
    var chunkedBodyBytes = 0

    /// Creates a parser.
    ///
    /// - Parameter limits: The limits to enforce; defaults to `HTTPParserLimits()`.
    public init(limits: HTTPParserLimits = HTTPParserLimits()) {
        self.limits = limits
    }

    /// The number of appended bytes not yet consumed by `next()`.
    public var bufferedByteCount: Int { buffer.count }

    /// Whether the parser is between requests with nothing buffered: a clean place to close the connection.
    public var isIdle: Bool { state == .requestLine && buffer.isEmpty && requestLine == nil }

    /// Appends received bytes. Ignored after an error.
    ///
    /// - Parameter bytes: The bytes read from the connection.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        guard !isFailed else { return }
        buffer.append(bytes)
    }

    /// Appends received bytes. Ignored after an error.
    ///
    /// - Parameter bytes: The bytes read from the connection.
    public mutating func append(contentsOf bytes: some Sequence<UInt8>) {
        guard !isFailed else { return }
        buffer.append(contentsOf: bytes)
    }

    /// Removes and returns every buffered, unparsed byte, e.g. the first bytes of the new protocol after answering
    /// an upgrade request with 101.
    ///
    /// - Returns: The unparsed bytes.
    public mutating func takeBufferedBytes() -> [UInt8] {
        buffer.readAll()
    }

    /// Parses as far as the buffered bytes allow and returns the next action.
    ///
    /// - Returns: The next element of the request stream, `.needMoreData`, or `.error`.
    public mutating func next() -> Action {
        while true {
            let action: Action?
            switch state {
            case .failed(let error):
                return .error(error)
            case .requestLine:
                action = stepRequestLine()
            case .headerFields:
                action = stepHeaderField()
            case .body(let remaining):
                action = stepBody(remaining: remaining)
            case .chunkSize:
                action = stepChunkSize()
            case .chunkData(let remaining):
                action = stepChunkData(remaining: remaining)
            case .chunkDataEnd:
                action = stepChunkDataEnd()
            case .trailers:
                action = stepTrailerField()
            case .messageEnd:
                state = .requestLine
                return .end
            }
            if let action {
                return action
            }
        }
    }

    private var isFailed: Bool {
        if case .failed = state { return true }
        return false
    }

    /// Enters the failed state and drops buffered input.
    mutating func fail(_ error: HTTPParseError) -> Action {
        state = .failed(error)
        buffer.removeAll()
        requestLine = nil
        fields = HTTPHeaders()
        return .error(error)
    }

    /// Maps a failed line scan to its error.
    func lineError(_ scan: ByteQueue.LineScan, tooLong: HTTPParseError) -> HTTPParseError? {
        switch scan {
        case .tooLong: tooLong
        case .bareLineFeed: .bareLineFeed
        case .bareCarriageReturn: .bareCarriageReturn
        case .line, .incomplete: nil
        }
    }

    private mutating func stepRequestLine() -> Action? {
        let scan = buffer.scanLine(room: ASCII.saturatingAdd(limits.maxRequestLineBytes, 2))
        guard case .line(let range) = scan else {
            return lineError(scan, tooLong: .uriTooLong).map { fail($0) } ?? .needMoreData
        }
        if range.isEmpty {
            // RFC 9112 §2.2: ignore (a bounded number of) empty lines before a request-line.
            emptyLinesSkipped += 1
            return emptyLinesSkipped > limits.maxLeadingEmptyLines ? fail(.invalidRequestLine) : nil
        }
        do throws(HTTPParseError) {
            requestLine = try RequestLineParser.parse(buffer.storage[range])
        } catch {
            return fail(error)
        }
        emptyLinesSkipped = 0
        // One allocation for the fields of most requests, instead of one each time the list doubles.
        fields = HTTPHeaders(minimumCapacity: Self.typicalFieldCount)
        fieldBytes = 0
        state = .headerFields
        return nil
    }

    /// The fields a request head has room for before its list grows (command-line clients send 2–4, browsers 8–16).
    static let typicalFieldCount = 8

    private mutating func stepHeaderField() -> Action? {
        let scan = buffer.scanLine(room: limits.maxHeaderBytes - fieldBytes)
        guard case .line(let range) = scan else {
            return lineError(scan, tooLong: .headersTooLarge).map { fail($0) } ?? .needMoreData
        }
        fieldBytes += range.count + 2
        guard !range.isEmpty else { return finishHead() }
        do throws(HTTPParseError) {
            let field = try FieldLineParser.parse(buffer.storage[range])
            guard fields.count < limits.maxHeaderCount else { throw .tooManyHeaders }
            fields.add(name: field.name, value: field.value)
        } catch {
            return fail(error)
        }
        return nil
    }

    private mutating func finishHead() -> Action? {
        guard let line = requestLine else { return fail(.invalidRequestLine) }
        let head: HTTPRequestHead
        do throws(HTTPParseError) {
            head = try RequestHeadBuilder.build(line: line, headers: fields, limits: limits)
        } catch {
            return fail(error)
        }
        requestLine = nil
        fields = HTTPHeaders()
        switch head.bodyFraming {
        case .noBody, .contentLength(0):
            state = .messageEnd
        case .contentLength(let length):
            state = .body(remaining: length)
        case .chunked:
            chunkedBodyBytes = 0
            state = .chunkSize
        }
        return .head(head)
    }

    private mutating func stepBody(remaining: Int) -> Action? {
        guard !buffer.isEmpty else { return .needMoreData }
        let bytes = buffer.read(upTo: remaining)
        let left = remaining - bytes.count
        state = left == 0 ? .messageEnd : .body(remaining: left)
        return .body(bytes)
    }
}
