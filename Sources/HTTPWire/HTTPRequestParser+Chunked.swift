/// Chunked transfer coding (RFC 9112 §7.1).
extension HTTPRequestParser {
    mutating func stepChunkSize() -> Action? {
        let scan = buffer.scanLine(room: ASCII.saturatingAdd(limits.maxChunkSizeLineBytes, 2))
        guard case .line(let range) = scan else {
            return lineError(scan, tooLong: .chunkSizeLineTooLong).map { fail($0) } ?? .needMoreData
        }
        let size: Int
        do throws(HTTPParseError) {
            size = try Self.parseChunkSize(buffer.storage[range])
        } catch {
            return fail(error)
        }
        if size == 0 {
            // last-chunk: the trailer section follows (RFC 9112 §7.1.2).
            fields = HTTPHeaders()
            fieldBytes = 0
            state = .trailers
            return nil
        }
        guard size <= limits.maxBodyBytes - chunkedBodyBytes else { return fail(.bodyTooLarge) }
        chunkedBodyBytes += size
        state = .chunkData(remaining: size)
        return nil
    }

    mutating func stepChunkData(remaining: Int) -> Action? {
        guard !buffer.isEmpty else { return .needMoreData }
        let bytes = buffer.read(upTo: remaining)
        let left = remaining - bytes.count
        state = left == 0 ? .chunkDataEnd : .chunkData(remaining: left)
        return .body(bytes)
    }

    mutating func stepChunkDataEnd() -> Action? {
        // chunk = chunk-size [ chunk-ext ] CRLF chunk-data CRLF
        if let first = buffer.peek(at: 0), first != ASCII.carriageReturn {
            return fail(.invalidChunkTerminator)
        }
        guard let second = buffer.peek(at: 1) else { return .needMoreData }
        guard second == ASCII.lineFeed else { return fail(.invalidChunkTerminator) }
        buffer.advance(by: 2)
        state = .chunkSize
        return nil
    }

    mutating func stepTrailerField() -> Action? {
        let scan = buffer.scanLine(room: limits.maxTrailerBytes - fieldBytes)
        guard case .line(let range) = scan else {
            return lineError(scan, tooLong: .trailersTooLarge).map { fail($0) } ?? .needMoreData
        }
        fieldBytes += range.count + 2
        if range.isEmpty {
            state = .messageEnd
            let trailers = fields
            fields = HTTPHeaders()
            return trailers.isEmpty ? nil : .trailers(trailers)
        }
        do throws(HTTPParseError) {
            // Trailer fields follow the field-line grammar (RFC 9112 §7.1.2).
            let field = try FieldLineParser.parse(buffer.storage[range])
            guard fields.count < limits.maxHeaderCount else { throw .trailersTooLarge }
            fields.add(name: field.name, value: field.value)
        } catch {
            return fail(error)
        }
        return nil
    }

    /// Parses `chunk-size [ chunk-ext ]`; extensions are validated loosely and ignored (RFC 9112 §7.1.1).
    ///
    /// - Parameter line: The chunk-size line without CRLF.
    /// - Returns: The chunk size.
    /// - Throws: `.invalidChunkSize`, or `.bodyTooLarge` when the size overflows `Int`.
    static func parseChunkSize(_ line: ArraySlice<UInt8>) throws(HTTPParseError) -> Int {
        var index = line.startIndex
        var size = 0
        while index < line.endIndex, let digit = ASCII.hexValue(line[index]) {
            let (shifted, overflow1) = size.multipliedReportingOverflow(by: 16)
            let (sum, overflow2) = shifted.addingReportingOverflow(Int(digit))
            guard !overflow1 && !overflow2 else { throw .bodyTooLarge }
            size = sum
            index += 1
        }
        guard index > line.startIndex else { throw .invalidChunkSize }
        guard index < line.endIndex else { return size }
        // chunk-ext = *( BWS ";" BWS chunk-ext-name [ BWS "=" BWS chunk-ext-val ] )
        while index < line.endIndex, ASCII.isWhitespace(line[index]) {
            index += 1
        }
        guard index < line.endIndex, line[index] == ASCII.semicolon else { throw .invalidChunkSize }
        guard line[index...].allSatisfy(ASCII.isFieldValueChar) else { throw .invalidChunkSize }
        return size
    }
}
