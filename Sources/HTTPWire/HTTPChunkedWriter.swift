/// Frames a streamed response body with the chunked transfer coding (RFC 9112 §7.1).
///
/// Send a head with `Transfer-Encoding: chunked` via `HTTPResponseWriter.writeHead(_:date:into:)`, then any
/// number of `writeChunk(_:into:)` calls, then `writeLastChunk(trailers:into:)`.
public enum HTTPChunkedWriter {
    /// Appends one chunk: `chunk-size CRLF chunk-data CRLF`, size in lowercase hex.
    ///
    /// Empty data appends nothing, because a zero-size chunk would end the body.
    /// - Parameters:
    ///   - data: The chunk payload.
    ///   - buffer: The buffer to append to.
    public static func writeChunk(_ data: some Collection<UInt8>, into buffer: inout [UInt8]) {
        let size = data.count
        guard size > 0 else { return }
        buffer.reserveCapacity(buffer.count + size + 20)
        ByteWriting.appendHex(size, to: &buffer)
        buffer.append(contentsOf: ByteWriting.crlf)
        buffer.append(contentsOf: data)
        buffer.append(contentsOf: ByteWriting.crlf)
    }

    /// Appends the end of the body: `last-chunk`, optional trailer fields and the final CRLF (RFC 9112 §7.1.2).
    ///
    /// - Parameters:
    ///   - trailers: Trailer fields; validated like header fields.
    ///   - buffer: The buffer to append to; unchanged when an error is thrown.
    /// - Throws: `HTTPWriteError` when a trailer name or value is invalid.
    public static func writeLastChunk(
        trailers: HTTPHeaders = HTTPHeaders(),
        into buffer: inout [UInt8]
    ) throws(HTTPWriteError) {
        try ByteWriting.validate(trailers)
        buffer.append(0x30)
        buffer.append(contentsOf: ByteWriting.crlf)
        for field in trailers {
            ByteWriting.appendField(name: field.name, value: field.value, to: &buffer)
        }
        buffer.append(contentsOf: ByteWriting.crlf)
    }
}
