/// An incremental WebSocket frame parser (RFC 6455 §5.2): feed bytes with `append`, pull frames with ``next()``.
///
/// The decoder validates each header as soon as the relevant bytes are buffered, so a violation is reported
/// without waiting for the rest of the frame. A frame larger than `maxFrameBytes` is refused from its header, before
/// any of its payload is buffered. Consumed bytes are released on the next `append`, so the buffer holds at most one
/// frame plus whatever the caller appends before calling ``next()`` again. After an error the decoder stays failed
/// and drops further input.
///
/// ``decode(_:_:)`` is the zero-copy form for a connection: frames that lie whole in the bytes just received are
/// unmasked in place and lent to the caller; only a frame split across reads is buffered, and lent from the buffer
/// once whole (no array of its own).
///
/// Fragmentation, UTF-8 and close payloads are checked one level up, by ``WebSocketMessageAssembler``.
public struct WebSocketFrameDecoder: Sendable {
    /// What ``WebSocketFrameDecoder/next()`` produced.
    public enum Action: Equatable, Sendable {
        /// The buffered bytes do not complete the next frame.
        case needMoreData
        /// A complete frame, payload unmasked.
        case frame(WebSocketFrame)
        /// The peer violated the framing rules; fail the connection with ``WebSocketError/closeCode``.
        case error(WebSocketError)
    }

    /// A validated frame header whose payload has not fully arrived yet.
    struct Header: Sendable {
        var fin: Bool
        var rsv1: Bool
        var opcode: WebSocketOpcode
        var maskKey: (UInt8, UInt8, UInt8, UInt8)?
        var payloadLength: Int
    }

    /// The parser state.
    enum State: Sendable {
        /// Waiting for (the rest of) a frame header.
        case header
        /// The header was consumed; waiting for `payloadLength` payload bytes.
        case payload(Header)
        /// A violation was found; every further call reports it again.
        case failed(WebSocketError)
    }

    /// Outcome of looking at the buffered header bytes.
    private enum HeaderScan {
        case incomplete
        case header(Header, byteCount: Int)
        case violation(WebSocketError)
    }

    /// Which end of the connection this decoder runs on; decides the masking rule.
    public let role: WebSocketRole
    /// The largest payload accepted for one frame.
    public let maxFrameBytes: Int
    /// Whether RSV1 may be set (permessage-deflate was negotiated, RFC 7692 §6).
    public let allowsRSV1: Bool

    private var buffer = ByteQueue()
    private(set) var state: State = .header

    /// Creates a decoder.
    ///
    /// - Parameters:
    ///   - role: `.server` requires masked frames (from a client), `.client` requires unmasked ones (RFC 6455 §5.1).
    ///   - maxFrameBytes: The largest frame payload accepted; larger frames fail with ``WebSocketError/messageTooBig``.
    ///   - allowsRSV1: Whether an extension that defines RSV1 (permessage-deflate) was negotiated.
    public init(role: WebSocketRole, maxFrameBytes: Int = 1 << 20, allowsRSV1: Bool = false) {
        self.role = role
        self.maxFrameBytes = max(maxFrameBytes, 0)
        self.allowsRSV1 = allowsRSV1
    }

    /// The number of received bytes not yet returned as part of a frame.
    public var bufferedByteCount: Int { buffer.count }

    /// Appends received bytes. Ignored once the decoder has failed.
    ///
    /// - Parameter bytes: Bytes read from the connection.
    public mutating func append(_ bytes: UnsafeRawBufferPointer) {
        if case .failed = state { return }
        buffer.append(bytes)
    }

    /// Appends received bytes. Ignored once the decoder has failed.
    ///
    /// - Parameter bytes: Bytes read from the connection.
    public mutating func append(contentsOf bytes: some Sequence<UInt8>) {
        if case .failed = state { return }
        buffer.append(contentsOf: bytes)
    }

    /// Decodes the buffered bytes followed by `input`, lending each complete frame to `body` (payload unmasked, in
    /// place when the frame lies whole in `input`, else in the buffer). The view is valid only during the call. Bytes
    /// of an incomplete frame are kept for the next call.
    ///
    /// A frame begun in an earlier call is completed in the buffer with only the bytes of `input` it still needs;
    /// the frames after it are read in place again. Nothing is allocated per frame (the buffer keeps its storage up
    /// to 64 KiB).
    ///
    /// - Parameters:
    ///   - input: Bytes just received; the decoder unmasks payloads in them, in place.
    ///   - body: Handles one frame; returns `false` to stop: the bytes after that frame are kept, and the next call
    ///     (with more input, or none) goes on from them — how a connection pauses reading for flow control.
    /// - Returns: The violation that fails the connection, if any (the decoder then stays failed).
    public mutating func decode(
        _ input: UnsafeMutableRawBufferPointer, _ body: (borrowing WebSocketFrameView) -> Bool
    ) -> WebSocketError? {
        if case .failed(let error) = state { return error }
        var offset = 0
        while true {
            if case .header = state {
                if buffer.isEmpty { break }
                let scan = buffer.withUnconsumedBytes {
                    Self.scanHeader($0, role: role, maxFrameBytes: maxFrameBytes, allowsRSV1: allowsRSV1)
                }
                switch scan {
                case .incomplete:
                    guard offset < input.count else { return nil }
                    // An incomplete header is shorter than the longest one: take what may complete it.
                    let take = min(Self.maxHeaderBytes - buffer.count, input.count - offset)
                    buffer.append(UnsafeRawBufferPointer(rebasing: input[offset..<(offset + take)]))
                    offset += take
                    continue
                case .violation(let error):
                    _ = fail(error)
                    return error
                case .header(let header, let byteCount):
                    buffer.advance(by: byteCount)
                    state = .payload(header)
                }
            }
            guard case .payload(let header) = state else { break }
            let missing = header.payloadLength - buffer.count
            if missing > 0 {
                let take = min(missing, input.count - offset)
                buffer.append(UnsafeRawBufferPointer(rebasing: input[offset..<(offset + take)]))
                offset += take
                if take < missing { return nil }
            }
            state = .header
            let proceed = buffer.withUnconsumedMutableBytes { bytes in
                let payload = UnsafeMutableRawBufferPointer(rebasing: bytes[..<header.payloadLength])
                if let key = header.maskKey { WebSocketFrameEncoder.applyMask(key, to: payload) }
                return body(
                    WebSocketFrameView(
                        fin: header.fin, rsv1: header.rsv1, opcode: header.opcode,
                        payload: UnsafeRawBufferPointer(payload)))
            }
            buffer.advance(by: header.payloadLength)
            if !proceed {
                if offset < input.count { buffer.append(UnsafeRawBufferPointer(rebasing: input[offset...])) }
                return nil
            }
        }
        while offset < input.count {
            let rest = UnsafeMutableRawBufferPointer(rebasing: input[offset...])
            switch Self.scanHeader(
                UnsafeRawBufferPointer(rest), role: role, maxFrameBytes: maxFrameBytes, allowsRSV1: allowsRSV1)
            {
            case .incomplete:
                buffer.append(UnsafeRawBufferPointer(rest))
                return nil
            case .violation(let error):
                _ = fail(error)
                return error
            case .header(let header, let byteCount):
                guard rest.count - byteCount >= header.payloadLength else {
                    buffer.append(UnsafeRawBufferPointer(rest))
                    return nil
                }
                let payload = UnsafeMutableRawBufferPointer(
                    rebasing: rest[byteCount..<(byteCount + header.payloadLength)])
                if let key = header.maskKey { WebSocketFrameEncoder.applyMask(key, to: payload) }
                offset += byteCount + header.payloadLength
                let view = WebSocketFrameView(
                    fin: header.fin, rsv1: header.rsv1, opcode: header.opcode, payload: UnsafeRawBufferPointer(payload))
                if !body(view) {
                    if offset < input.count { buffer.append(UnsafeRawBufferPointer(rebasing: input[offset...])) }
                    return nil
                }
            }
        }
        return nil
    }

    /// The longest frame header: 2 bytes, a 64-bit length, a masking key (RFC 6455 §5.2).
    private static let maxHeaderBytes = 14

    /// Returns the next complete frame, `.needMoreData`, or the violation that fails the connection.
    ///
    /// Call it repeatedly after each `append` until it returns `.needMoreData`.
    /// - Returns: The next action.
    public mutating func next() -> Action {
        if case .header = state {
            let scan = buffer.withUnconsumedBytes {
                Self.scanHeader($0, role: role, maxFrameBytes: maxFrameBytes, allowsRSV1: allowsRSV1)
            }
            switch scan {
            case .incomplete:
                return .needMoreData
            case .violation(let error):
                return fail(error)
            case .header(let header, let byteCount):
                buffer.advance(by: byteCount)
                state = .payload(header)
            }
        }
        switch state {
        case .failed(let error):
            return .error(error)
        case .header:
            return .needMoreData
        case .payload(let header):
            guard buffer.count >= header.payloadLength else { return .needMoreData }
            var payload = buffer.read(upTo: header.payloadLength)
            if let key = header.maskKey {
                WebSocketFrameEncoder.applyMask(key, to: &payload)
            }
            state = .header
            return .frame(WebSocketFrame(fin: header.fin, rsv1: header.rsv1, opcode: header.opcode, payload: payload))
        }
    }

    private mutating func fail(_ error: WebSocketError) -> Action {
        state = .failed(error)
        buffer.removeAll()
        return .error(error)
    }

    /// Validates as much of the header at the start of `bytes` as is there, byte by byte, so violations surface early.
    private static func scanHeader(
        _ bytes: UnsafeRawBufferPointer, role: WebSocketRole, maxFrameBytes: Int, allowsRSV1: Bool
    ) -> HeaderScan {
        guard bytes.count >= 1 else { return .incomplete }
        let first = bytes[0]
        let fin = first & 0x80 != 0
        let rsv1 = first & 0x40 != 0
        let opcode = WebSocketOpcode(rawValue: first & 0x0F)
        // RFC 6455 §5.2: "MUST be 0 unless an extension is negotiated that defines meanings for non-zero values".
        if first & 0x30 != 0 { return .violation(.protocolError("RSV2/RSV3 set")) }
        // RFC 6455 §5.2: unknown opcodes fail the connection.
        if opcode.isReserved { return .violation(.protocolError("reserved opcode \(opcode.rawValue)")) }
        // RFC 6455 §5.5: "Control frames MUST NOT be fragmented."
        if opcode.isControl && !fin { return .violation(.protocolError("fragmented control frame")) }
        if rsv1 {
            if !allowsRSV1 { return .violation(.protocolError("RSV1 set without a negotiated extension")) }
            // RFC 7692 §6.1: the compressed bit is only valid on the first frame of a data message.
            if opcode != .text && opcode != .binary {
                return .violation(.protocolError("RSV1 set on a control or continuation frame"))
            }
        }
        guard bytes.count >= 2 else { return .incomplete }
        let second = bytes[1]
        let masked = second & 0x80 != 0
        let shortLength = Int(second & 0x7F)
        // RFC 6455 §5.1: clients mask every frame, servers never do; either violation fails the connection.
        switch role {
        case .server where !masked: return .violation(.protocolError("unmasked frame from client"))
        case .client where masked: return .violation(.protocolError("masked frame from server"))
        default: break
        }
        // RFC 6455 §5.5: "All control frames MUST have a payload length of 125 bytes or less".
        if opcode.isControl && shortLength > WebSocketFrame.maxControlPayload {
            return .violation(.protocolError("control frame payload over 125 bytes"))
        }
        var offset = 2
        let length: Int
        switch scanLength(shortLength, in: bytes, offset: &offset) {
        case .none: return .incomplete
        case .some(.failure(let error)): return .violation(error)
        case .some(.success(let value)): length = value
        }
        // Decided from the header alone, before the payload is buffered.
        if length > maxFrameBytes { return .violation(.messageTooBig) }
        var maskKey: (UInt8, UInt8, UInt8, UInt8)?
        if masked {
            guard bytes.count >= offset + 4 else { return .incomplete }
            maskKey = (bytes[offset], bytes[offset + 1], bytes[offset + 2], bytes[offset + 3])
            offset += 4
        }
        let header = Header(fin: fin, rsv1: rsv1, opcode: opcode, maskKey: maskKey, payloadLength: length)
        return .header(header, byteCount: offset)
    }

    /// Reads the 7-bit, 16-bit or 64-bit payload length (RFC 6455 §5.2); `nil` when more bytes are needed.
    private static func scanLength(
        _ shortLength: Int, in bytes: UnsafeRawBufferPointer, offset: inout Int
    ) -> Result<Int, WebSocketError>? {
        let extendedCount: Int
        switch shortLength {
        case 0...125: return .success(shortLength)
        case 126: extendedCount = 2
        default: extendedCount = 8
        }
        guard bytes.count >= offset + extendedCount else { return nil }
        var value: UInt64 = 0
        for index in 0..<extendedCount {
            value = value << 8 | UInt64(bytes[offset + index])
        }
        offset += extendedCount
        // RFC 6455 §5.2: "the minimal number of bytes MUST be used to encode the length".
        if extendedCount == 2 && value < 126 { return .failure(.protocolError("non-minimal 16-bit length")) }
        if extendedCount == 8 {
            // RFC 6455 §5.2: "the most significant bit MUST be 0".
            if value & (1 << 63) != 0 { return .failure(.protocolError("64-bit length with the high bit set")) }
            if value <= 0xFFFF { return .failure(.protocolError("non-minimal 64-bit length")) }
        }
        guard let length = Int(exactly: value) else { return .failure(.messageTooBig) }
        return .success(length)
    }
}
