import CZlib

extension PerMessageDeflate {
    /// Decompresses incoming messages (RFC 7692 §7.2.2): appends `00 00 FF FF` and inflates with a hard output
    /// limit, so a decompression bomb stops once the limit is passed instead of exhausting memory.
    ///
    /// Thread safety: `@unchecked Sendable` because it is owned by one connection and used by one thread at a
    /// time (the connection's event loop); the zlib stream itself is not synchronised, so never call
    /// ``decompress(_:limit:)`` concurrently. After an error the stream is reset; the connection is expected to be
    /// failed anyway.
    public final class Inflater: @unchecked Sendable {
        /// The zlib stream; heap-allocated because zlib keeps a pointer back to it, so it must never move.
        private let stream: UnsafeMutablePointer<z_stream>
        /// Whether the context is reset after every message.
        public let noContextTakeover: Bool
        /// The negotiated window bits of the peer (the zlib window is at least 9, which is always safe to inflate).
        public let windowBits: Int

        /// Reused output buffer, so small messages do not allocate a chunk each time.
        private var chunk = [UInt8](repeating: 0, count: 16 * 1024)

        private static let tail: [UInt8] = [0x00, 0x00, 0xFF, 0xFF]

        /// Creates a decompressor.
        ///
        /// - Parameters:
        ///   - windowBits: The peer's negotiated window bits, 8...15 (clamped).
        ///   - noContextTakeover: Whether the peer resets its context per message, so this side may too.
        public init(windowBits: Int, noContextTakeover: Bool) {
            self.windowBits = windowBits
            self.noContextTakeover = noContextTakeover
            stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
            stream.initialize(to: z_stream())
            let status = inflateInit2_(
                stream, PerMessageDeflate.zlibWindowBits(windowBits), zlibVersion(), Int32(MemoryLayout<z_stream>.size))
            // Only fails for invalid arguments (excluded above) or when out of memory.
            precondition(status == Z_OK, "inflateInit2 failed: \(status)")
        }

        deinit {
            inflateEnd(stream)
            stream.deinitialize(count: 1)
            stream.deallocate()
        }

        /// Decompresses one whole message.
        ///
        /// - Parameters:
        ///   - compressed: The concatenated payloads of the message's frames.
        ///   - limit: The largest decompressed size accepted.
        /// - Returns: The decompressed message.
        /// - Throws: ``WebSocketError/messageTooBig`` when the output would exceed `limit`;
        ///   ``WebSocketError/invalidPayload(_:)`` when the data is not valid DEFLATE.
        public func decompress(_ compressed: [UInt8], limit: Int) throws(WebSocketError) -> [UInt8] {
            var output: [UInt8] = []
            do throws(WebSocketError) {
                var ended = try feed(compressed, into: &output, limit: limit)
                if ended {
                    // RFC 7692 §7.2.3.4: a block with BFINAL set ends the DEFLATE stream; the next message starts a
                    // new one, so nothing but the (still unused) tail may follow.
                    guard stream.pointee.avail_in == 0 else { throw .invalidPayload("data after end") }
                } else {
                    ended = try feed(Self.tail, into: &output, limit: limit)
                }
                if ended || noContextTakeover {
                    inflateReset(stream)
                }
            } catch {
                inflateReset(stream)
                throw error
            }
            stream.pointee.next_in = nil
            stream.pointee.next_out = nil
            return output
        }

        /// Inflates all of `input`; returns whether the DEFLATE stream ended (a final block was completed).
        private func feed(_ input: [UInt8], into output: inout [UInt8], limit: Int) throws(WebSocketError) -> Bool {
            var status: Int32 = Z_OK
            input.withUnsafeBufferPointer { bytes in
                stream.pointee.next_in = UnsafeMutablePointer(mutating: bytes.baseAddress)
                stream.pointee.avail_in = uInt(bytes.count)
                while true {
                    // Never ask for more than one byte past the limit, so a bomb cannot grow memory beyond it.
                    let remaining = limit - output.count
                    let room = remaining < chunk.count ? max(remaining, 0) + 1 : chunk.count
                    let produced = chunk.withUnsafeMutableBufferPointer { out -> Int in
                        stream.pointee.next_out = out.baseAddress
                        stream.pointee.avail_out = uInt(room)
                        status = inflate(stream, Z_SYNC_FLUSH)
                        return room - Int(stream.pointee.avail_out)
                    }
                    output.append(contentsOf: chunk[0..<produced])
                    if output.count > limit || status != Z_OK { return }
                    // Done once all input is consumed and inflate had output space left over.
                    if stream.pointee.avail_in == 0 && stream.pointee.avail_out > 0 { return }
                }
            }
            if output.count > limit { throw .messageTooBig }
            switch status {
            case Z_OK:
                return false
            case Z_STREAM_END:
                return true
            case Z_BUF_ERROR where stream.pointee.avail_in == 0:
                // No progress possible without more input: everything was consumed.
                return false
            default:
                throw .invalidPayload("corrupt deflate data")
            }
        }
    }
}
