/// Turns decoded frames into messages (RFC 6455 §5.4–§5.6) and control events, inflating permessage-deflate
/// messages (RFC 7692 §6).
///
/// Enforced rules:
/// - a continuation frame needs an open fragmented message; a new text or binary frame must not arrive while one is
///   open (RFC 6455 §5.4); control frames may be interleaved between fragments;
/// - text is validated as UTF-8 fragment by fragment, failing at the first fragment that makes it invalid, and must
///   end on a character boundary (RFC 6455 §8.1);
/// - the reassembled size is checked before each fragment is appended, and a compressed message is inflated with an
///   output limit of `maxMessageBytes`, so decompression bombs fail with ``WebSocketError/messageTooBig``;
/// - RSV1 is only meaningful on the first frame of a data message and only with an inflater (RFC 7692 §6.1);
/// - close payloads follow RFC 6455 §5.5.1 and §7.1.6.
///
/// After an error the assembler stays failed and reports the same error for every further frame.
///
/// The assembler holds a reference to its inflater: copies of an assembler share the decompression context, so use
/// one assembler per connection.
public struct WebSocketMessageAssembler: Sendable {
    /// What one frame produced.
    public enum Output: Equatable, Sendable {
        /// Nothing yet: a non-final fragment was buffered.
        case none
        /// A complete message.
        case message(WebSocketMessage)
        /// The frame is a whole, uncompressed message by itself (text validated as UTF-8): its payload, in place, is
        /// the message. Only ``WebSocketMessageAssembler/push(_:)-(WebSocketFrameView)`` returns it; the owned form
        /// returns ``message(_:)`` instead.
        case unfragmented(isText: Bool)
        /// A ping with its application data; answer with a pong carrying the same data (RFC 6455 §5.5.2).
        case ping([UInt8])
        /// A pong with its application data (RFC 6455 §5.5.3).
        case pong([UInt8])
        /// A close frame: its status code (`nil` when the payload was empty) and UTF-8 reason (RFC 6455 §5.5.1).
        case close(code: WebSocketCloseCode?, reason: String)
        /// The peer violated the protocol; fail the connection with ``WebSocketError/closeCode``.
        case error(WebSocketError)
    }

    /// A fragmented message being reassembled.
    private struct Partial: Sendable {
        var isText: Bool
        var isCompressed: Bool
        var bytes: [UInt8]
        var validator = UTF8Validator()
    }

    /// The largest message accepted, measured after decompression.
    public let maxMessageBytes: Int
    private let inflater: PerMessageDeflate.Inflater?
    private var partial: Partial?
    private var failure: WebSocketError?

    /// Creates an assembler.
    ///
    /// - Parameters:
    ///   - maxMessageBytes: The largest message accepted (after decompression); larger ones fail with
    ///     ``WebSocketError/messageTooBig``.
    ///   - inflater: The permessage-deflate inflater when the extension was negotiated; without one, RSV1 is a
    ///     protocol error.
    public init(maxMessageBytes: Int = 1 << 20, inflater: PerMessageDeflate.Inflater? = nil) {
        self.maxMessageBytes = max(maxMessageBytes, 0)
        self.inflater = inflater
    }

    /// Whether a fragmented message has started and not yet finished.
    public var isMessageInProgress: Bool { partial != nil }

    /// The largest compressed message accepted: deflate can expand incompressible data slightly (stored blocks add
    /// 5 bytes per block), so the wire size may exceed `maxMessageBytes` by a small margin.
    var maxCompressedBytes: Int {
        ASCII.saturatingAdd(maxMessageBytes, maxMessageBytes / 16 + 1024)
    }

    /// Processes the next frame from the decoder.
    ///
    /// - Parameter frame: A decoded frame.
    /// - Returns: The resulting event, `.none` for a buffered fragment, or the error that fails the connection.
    public mutating func push(_ frame: WebSocketFrame) -> Output {
        let output = frame.payload.withUnsafeBytes { payload in
            push(WebSocketFrameView(fin: frame.fin, rsv1: frame.rsv1, opcode: frame.opcode, payload: payload))
        }
        guard case .unfragmented(let isText) = output else { return output }
        return .message(isText ? .text(String(decoding: frame.payload, as: UTF8.self)) : .binary(frame.payload))
    }

    /// Processes the next frame, lent by the decoder: a frame that is a whole uncompressed message is answered with
    /// ``Output/unfragmented(isText:)`` and not copied; anything kept for later is copied.
    ///
    /// - Parameter frame: A decoded frame.
    /// - Returns: The resulting event, `.none` for a buffered fragment, or the error that fails the connection.
    public mutating func push(_ frame: borrowing WebSocketFrameView) -> Output {
        if let failure { return .error(failure) }
        let output = process(frame)
        if case .error(let error) = output {
            failure = error
            partial = nil
        }
        return output
    }

    private mutating func process(_ frame: borrowing WebSocketFrameView) -> Output {
        if frame.opcode.isControl {
            // RFC 6455 §5.5 (also checked by the decoder, repeated for frames built elsewhere).
            guard frame.fin, frame.payload.count <= WebSocketFrame.maxControlPayload else {
                return .error(.protocolError("fragmented or oversized control frame"))
            }
            guard !frame.rsv1 else { return .error(.protocolError("RSV1 set on a control frame")) }
            switch frame.opcode {
            case .ping: return .ping(Array(frame.payload))
            case .pong: return .pong(Array(frame.payload))
            case .close: return Self.parseClose(Array(frame.payload))
            default: return .error(.protocolError("reserved opcode \(frame.opcode.rawValue)"))
            }
        }
        switch frame.opcode {
        case .text, .binary:
            // RFC 6455 §5.4: fragments of one message are not interleaved with another data message.
            guard partial == nil else { return .error(.protocolError("new message before the previous one ended")) }
            if frame.rsv1 && inflater == nil {
                return .error(.protocolError("RSV1 set without permessage-deflate"))
            }
            var start = Partial(isText: frame.opcode == .text, isCompressed: frame.rsv1, bytes: [])
            return append(frame.payload, fin: frame.fin, to: &start)
        case .continuation:
            // RFC 7692 §6.1: the compressed bit is only set on the first frame.
            guard !frame.rsv1 else { return .error(.protocolError("RSV1 set on a continuation frame")) }
            // `take()` leaves the buffered bytes uniquely referenced, so appending does not copy them.
            guard var current = partial.take() else {
                return .error(.protocolError("continuation without a message"))
            }
            return append(frame.payload, fin: frame.fin, to: &current)
        default:
            return .error(.protocolError("reserved opcode \(frame.opcode.rawValue)"))
        }
    }

    private mutating func append(_ payload: UnsafeRawBufferPointer, fin: Bool, to message: inout Partial) -> Output {
        let limit = message.isCompressed ? maxCompressedBytes : maxMessageBytes
        guard payload.count <= limit - message.bytes.count else { return .error(.messageTooBig) }
        if message.isText && !message.isCompressed && !message.validator.validate(payload) {
            return .error(.invalidUTF8)
        }
        if fin && !message.isCompressed && message.bytes.isEmpty {
            // A whole message in one frame (the common case): used in place, never copied here.
            guard !message.isText || message.validator.isAtCharacterBoundary else { return .error(.invalidUTF8) }
            return .unfragmented(isText: message.isText)
        }
        message.bytes.append(contentsOf: payload)
        guard fin else {
            partial = message
            return .none
        }
        return finish(message)
    }

    private func finish(_ message: Partial) -> Output {
        var bytes = message.bytes
        var validator = message.validator
        if message.isCompressed, let inflater {
            do {
                bytes = try inflater.decompress(bytes, limit: maxMessageBytes)
            } catch {
                return .error(error)
            }
            if message.isText && !validator.validate(bytes) { return .error(.invalidUTF8) }
        }
        guard message.isText else { return .message(.binary(bytes)) }
        // RFC 6455 §8.1: a text message must be complete, valid UTF-8 once all fragments arrived.
        guard validator.isAtCharacterBoundary else { return .error(.invalidUTF8) }
        return .message(.text(String(decoding: bytes, as: UTF8.self)))
    }

    /// Parses a close payload (RFC 6455 §5.5.1): empty, or a 2-byte code followed by a UTF-8 reason.
    static func parseClose(_ payload: [UInt8]) -> Output {
        guard !payload.isEmpty else { return .close(code: nil, reason: "") }
        guard payload.count >= 2 else { return .error(.protocolError("1-byte close payload")) }
        let code = WebSocketCloseCode(rawValue: UInt16(payload[0]) << 8 | UInt16(payload[1]))
        // RFC 6455 §7.4: 1005, 1006, 1015 and unassigned codes must not appear on the wire.
        guard code.isValidOnWire else { return .error(.protocolError("invalid close code \(code.rawValue)")) }
        let reason = payload.dropFirst(2)
        // RFC 6455 §5.5.1 / §8.1: the reason is UTF-8; invalid data fails the connection (§7.1.6 reports it).
        guard UTF8Validator.isValid(reason) else { return .error(.invalidUTF8) }
        return .close(code: code, reason: String(decoding: reason, as: UTF8.self))
    }
}
