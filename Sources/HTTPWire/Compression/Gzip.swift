import CZlib

/// One-shot gzip (RFC 1952) over zlib, for `Content-Encoding: gzip`.
public enum Gzip {
    /// Why gzip data could not be inflated.
    public enum Error: Swift.Error, Equatable, Sendable {
        /// The data is not valid gzip, or is truncated.
        case invalidData
        /// The inflated data would exceed the limit (a decompression bomb, or simply too large).
        case tooLarge(limit: Int)
    }

    /// Compresses `bytes` into a gzip member.
    /// - Parameters:
    ///   - bytes: The data.
    ///   - level: zlib level 1 (fastest) … 9 (smallest); 6 is zlib's default balance.
    /// - Returns: The gzip data.
    public static func compress(_ bytes: [UInt8], level: Int32 = 6) -> [UInt8] {
        var stream = z_stream()
        // windowBits 15 + 16 asks zlib for a gzip header and trailer.
        let status = deflateInit2_(
            &stream, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
            Int32(MemoryLayout<z_stream>.size))
        precondition(status == Z_OK, "deflateInit2 failed: \(status)")
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(bytes.count))))
        let produced: Int = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = uInt(out.count)
                let result = deflate(&stream, Z_FINISH)
                precondition(result == Z_STREAM_END, "deflate did not finish within deflateBound: \(result)")
                return out.count - Int(stream.avail_out)
            }
        }
        output.removeLast(output.count - produced)
        return output
    }

    /// Inflates a gzip member, refusing to produce more than `limit` bytes.
    /// - Parameters:
    ///   - bytes: The gzip data.
    ///   - limit: The most bytes the result may have.
    /// - Returns: The original data.
    /// - Throws: ``Error/invalidData`` or ``Error/tooLarge(limit:)``.
    public static func decompress(_ bytes: [UInt8], limit: Int) throws(Error) -> [UInt8] {
        var stream = z_stream()
        guard inflateInit2_(&stream, 15 + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size)) == Z_OK else {
            throw .invalidData
        }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        var result: Int32 = Z_OK
        bytes.withUnsafeBufferPointer { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = uInt(input.count)
            repeat {
                let produced: Int = chunk.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    result = inflate(&stream, Z_NO_FLUSH)
                    return out.count - Int(stream.avail_out)
                }
                output.append(contentsOf: chunk[0..<produced])
            } while result == Z_OK && output.count <= limit && (stream.avail_in > 0 || stream.avail_out == 0)
        }
        if output.count > limit { throw .tooLarge(limit: limit) }
        guard result == Z_STREAM_END else { throw .invalidData }
        return output
    }
}
