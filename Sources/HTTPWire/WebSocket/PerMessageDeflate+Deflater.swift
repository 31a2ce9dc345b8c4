import CZlib

extension PerMessageDeflate {
    /// Compresses outgoing messages (RFC 7692 §7.2.1): raw DEFLATE, `Z_SYNC_FLUSH`, trailing `00 00 FF FF` removed.
    ///
    /// Thread safety: `@unchecked Sendable` because it is owned by one connection and used by one thread at a
    /// time (the connection's event loop); the zlib stream itself is not synchronised, so never call
    /// ``compress(_:)`` concurrently.
    public final class Deflater: @unchecked Sendable {
        /// The zlib stream; heap-allocated because zlib keeps a pointer back to it, so it must never move.
        private let stream: UnsafeMutablePointer<z_stream>
        /// Whether the context is reset after every message.
        public let noContextTakeover: Bool
        /// The negotiated window bits (the zlib window is at least 9, see ``PerMessageDeflate``).
        public let windowBits: Int

        /// Creates a compressor.
        ///
        /// A window of 8 bits uses zlib's 9: zlib cannot deflate with a 256-byte window, and its 512-byte window
        /// never emits distances above 250 bytes (window size minus its 262-byte lookahead), so the output stays
        /// decodable by a peer with a 256-byte window.
        /// - Parameters:
        ///   - windowBits: The negotiated window bits, 8...15 (clamped).
        ///   - noContextTakeover: Whether to reset the LZ77 window after each message.
        ///   - level: The zlib compression level, 1 (fastest) ... 9 (smallest); 6 by default.
        public init(windowBits: Int, noContextTakeover: Bool, level: Int32 = 6) {
            self.windowBits = windowBits
            self.noContextTakeover = noContextTakeover
            stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
            stream.initialize(to: z_stream())
            let status = deflateInit2_(
                stream, level, Z_DEFLATED, PerMessageDeflate.zlibWindowBits(windowBits), 8, Z_DEFAULT_STRATEGY,
                zlibVersion(), Int32(MemoryLayout<z_stream>.size))
            // Only fails for invalid arguments (excluded above) or when out of memory.
            precondition(status == Z_OK, "deflateInit2 failed: \(status)")
        }

        deinit {
            deflateEnd(stream)
            stream.deinitialize(count: 1)
            stream.deallocate()
        }

        /// Compresses one whole message.
        ///
        /// - Parameter message: The uncompressed payload.
        /// - Returns: The compressed payload to send with RSV1 set; an empty message becomes `00`
        ///   (RFC 7692 §7.2.3.6).
        public func compress(_ message: [UInt8]) -> [UInt8] {
            // RFC 7692 §7.2.3.6: an empty message is a single 0x00 (with the tail, an empty stored block). zlib would
            // emit nothing for an empty sync flush right after another one, which is not a valid payload.
            guard !message.isEmpty else { return [0x00] }
            var output: [UInt8] = []
            output.reserveCapacity(message.count / 2 + 16)
            var chunk = [UInt8](repeating: 0, count: min(max(message.count + 64, 256), 64 * 1024))
            message.withUnsafeBufferPointer { input in
                stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.pointee.avail_in = uInt(input.count)
                repeat {
                    let produced = chunk.withUnsafeMutableBufferPointer { out -> Int in
                        stream.pointee.next_out = out.baseAddress
                        stream.pointee.avail_out = uInt(out.count)
                        // Z_OK, or Z_BUF_ERROR when a repeated flush has nothing left to do; both are fine here.
                        _ = deflate(stream, Z_SYNC_FLUSH)
                        return out.count - Int(stream.pointee.avail_out)
                    }
                    output.append(contentsOf: chunk[0..<produced])
                    // The flush is complete once deflate leaves output space unused (zlib manual, deflate()).
                } while stream.pointee.avail_out == 0
            }
            stream.pointee.next_in = nil
            stream.pointee.next_out = nil
            // RFC 7692 §7.2.1: remove the 4 octets 0x00 0x00 0xff 0xff that end the sync flush.
            if output.count >= 4 && output.suffix(4).elementsEqual([0x00, 0x00, 0xFF, 0xFF]) {
                output.removeLast(4)
            }
            if noContextTakeover {
                deflateReset(stream)
            }
            return output
        }
    }
}
