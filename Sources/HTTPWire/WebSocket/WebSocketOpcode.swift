/// The 4-bit opcode of a WebSocket frame (RFC 6455 §5.2, registry in §11.8).
///
/// Any 4-bit value is representable so that a decoder can report reserved opcodes; ``isReserved`` tells them apart.
public struct WebSocketOpcode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The opcode value, `0x0`...`0xF`. Only the low four bits are written on the wire.
    public let rawValue: UInt8

    /// Creates an opcode from its value.
    ///
    /// - Parameter rawValue: The opcode, `0x0`...`0xF`; higher bits are ignored by the encoder.
    public init(rawValue: UInt8) {
        self.rawValue = rawValue
    }

    /// `%x0`: continues a fragmented message (RFC 6455 §5.4).
    public static let continuation = WebSocketOpcode(rawValue: 0x0)
    /// `%x1`: the first frame of a text message (UTF-8 payload, RFC 6455 §5.6).
    public static let text = WebSocketOpcode(rawValue: 0x1)
    /// `%x2`: the first frame of a binary message (RFC 6455 §5.6).
    public static let binary = WebSocketOpcode(rawValue: 0x2)
    /// `%x8`: a close control frame (RFC 6455 §5.5.1).
    public static let close = WebSocketOpcode(rawValue: 0x8)
    /// `%x9`: a ping control frame (RFC 6455 §5.5.2).
    public static let ping = WebSocketOpcode(rawValue: 0x9)
    /// `%xA`: a pong control frame (RFC 6455 §5.5.3).
    public static let pong = WebSocketOpcode(rawValue: 0xA)

    /// Whether this is a control opcode: the most significant opcode bit is set (RFC 6455 §5.5).
    public var isControl: Bool { rawValue & 0x08 != 0 }

    /// Whether this is a data opcode (text, binary or continuation; RFC 6455 §5.6).
    public var isData: Bool { !isControl }

    /// Whether the opcode is reserved for future use: `%x3`–`%x7` and `%xB`–`%xF` (RFC 6455 §5.2).
    public var isReserved: Bool {
        switch rawValue & 0x0F {
        case 0x0, 0x1, 0x2, 0x8, 0x9, 0xA: return rawValue > 0x0F
        default: return true
        }
    }

    /// A readable name, e.g. `"text"` or `"reserved(0x3)"`.
    public var description: String {
        switch self {
        case .continuation: return "continuation"
        case .text: return "text"
        case .binary: return "binary"
        case .close: return "close"
        case .ping: return "ping"
        case .pong: return "pong"
        default: return "reserved(0x\(String(rawValue, radix: 16)))"
        }
    }
}
