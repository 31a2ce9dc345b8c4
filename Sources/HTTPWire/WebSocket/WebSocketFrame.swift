/// One WebSocket frame with its payload already unmasked (RFC 6455 §5.2).
///
/// RSV2 and RSV3 are not represented: no negotiated extension uses them, so the decoder rejects them and the encoder
/// always writes zero. RSV1 is the "Per-Message Compressed" bit of permessage-deflate (RFC 7692 §6).
public struct WebSocketFrame: Sendable, Equatable {
    /// Whether this is the final fragment of a message (RFC 6455 §5.4). Control frames always have it set.
    public var fin: Bool
    /// The RSV1 bit; with permessage-deflate it marks the first frame of a compressed message (RFC 7692 §6).
    public var rsv1: Bool
    /// The opcode.
    public var opcode: WebSocketOpcode
    /// The application data (extension data included), unmasked.
    public var payload: [UInt8]

    /// Creates a frame.
    ///
    /// - Parameters:
    ///   - fin: Whether this is the final fragment; defaults to `true`.
    ///   - rsv1: The RSV1 bit; defaults to `false`.
    ///   - opcode: The opcode.
    ///   - payload: The unmasked payload.
    public init(fin: Bool = true, rsv1: Bool = false, opcode: WebSocketOpcode, payload: [UInt8]) {
        self.fin = fin
        self.rsv1 = rsv1
        self.opcode = opcode
        self.payload = payload
    }

    /// The largest payload of a control frame (RFC 6455 §5.5).
    public static let maxControlPayload = 125

    /// The most bytes of reason a close frame carries: the control-frame limit less the 2-byte code.
    public static let maxCloseReasonBytes = maxControlPayload - 2

    /// Builds a close frame (RFC 6455 §5.5.1) with ``closePayload(code:reason:)``.
    /// - Parameters:
    ///   - code: The status code, or `nil` for an empty close frame (then `reason` is ignored).
    ///   - reason: A short human-readable reason.
    /// - Returns: A final close frame.
    public static func close(code: WebSocketCloseCode?, reason: String = "") -> WebSocketFrame {
        WebSocketFrame(opcode: .close, payload: closePayload(code: code, reason: reason))
    }

    /// The payload of a close frame (RFC 6455 §5.5.1): the code, 2 bytes big-endian, then the reason's UTF-8 cut to
    /// ``maxCloseReasonBytes`` (123) so that the frame fits the 125-byte control-frame limit. The cut falls between
    /// characters: one that would straddle it is left out whole, so the reason stays valid UTF-8 (§5.5.1 requires it;
    /// a peer fails the connection otherwise).
    ///
    ///     WebSocketFrame.closePayload(code: .goingAway, reason: "idle")  // [0x03, 0xE9, 0x69, 0x64, 0x6C, 0x65]
    ///
    /// - Parameters:
    ///   - code: The status code, or `nil` for an empty payload (a reason needs a code before it, so `reason` is
    ///     then ignored).
    ///   - reason: A short human-readable reason.
    /// - Returns: 0 or 2…125 bytes.
    public static func closePayload(code: WebSocketCloseCode?, reason: String) -> [UInt8] {
        guard let code else { return [] }
        let utf8 = reason.utf8
        var end = utf8.index(utf8.startIndex, offsetBy: maxCloseReasonBytes, limitedBy: utf8.endIndex) ?? utf8.endIndex
        // A continuation byte (10xxxxxx) just past the cut: back up to the first byte of its character.
        while end != utf8.endIndex, end != utf8.startIndex, utf8[end] & 0xC0 == 0x80 { utf8.formIndex(before: &end) }
        var payload: [UInt8] = [UInt8(code.rawValue >> 8), UInt8(code.rawValue & 0xFF)]
        payload.append(contentsOf: utf8[..<end])
        return payload
    }
}

/// A frame lent by ``WebSocketFrameDecoder/decode(_:_:)``: its payload, unmasked, lies in the bytes being decoded and
/// is valid only during the call that receives the view. ``frame`` copies it out.
public struct WebSocketFrameView {
    /// Whether this is the final fragment of a message.
    public let fin: Bool
    /// The RSV1 bit.
    public let rsv1: Bool
    /// The opcode.
    public let opcode: WebSocketOpcode
    /// The application data, unmasked; valid only during the call that receives the view.
    public let payload: UnsafeRawBufferPointer

    /// Creates a view.
    /// - Parameters:
    ///   - fin: Whether this is the final fragment.
    ///   - rsv1: The RSV1 bit.
    ///   - opcode: The opcode.
    ///   - payload: The unmasked payload.
    public init(fin: Bool, rsv1: Bool, opcode: WebSocketOpcode, payload: UnsafeRawBufferPointer) {
        self.fin = fin
        self.rsv1 = rsv1
        self.opcode = opcode
        self.payload = payload
    }

    /// An owned copy.
    public var frame: WebSocketFrame { WebSocketFrame(fin: fin, rsv1: rsv1, opcode: opcode, payload: Array(payload)) }
}

@available(*, unavailable)
extension WebSocketFrameView: Sendable {}
