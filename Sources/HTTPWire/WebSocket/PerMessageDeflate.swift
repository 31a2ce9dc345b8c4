/// The permessage-deflate extension (RFC 7692): negotiation, and the zlib-backed ``Deflater`` and ``Inflater``.
///
/// A message is compressed as a whole: raw DEFLATE (RFC 1951) flushed with `Z_SYNC_FLUSH`, minus the trailing
/// `00 00 FF FF`, sent with RSV1 set on its first frame (RFC 7692 §7.2.1, §6). Unless "no context takeover" was
/// agreed for a direction, the LZ77 window carries over from one message to the next in that direction.
///
/// Server side: pass the client's `Sec-WebSocket-Extensions` values to ``negotiate(offers:configuration:)`` and
/// answer with the returned response value. Client side: send ``clientOffer(_:)`` and check the server's answer with
/// ``acceptServerResponse(_:offered:)``. Either way, build the codecs with ``Parameters/makeDeflater(for:)`` and
/// ``Parameters/makeInflater(for:)``.
public enum PerMessageDeflate {
    /// The extension token, `permessage-deflate` (RFC 7692 §7).
    public static let extensionName = "permessage-deflate"

    /// The agreed parameters of one connection (RFC 7692 §7.1), the same on both ends.
    public struct Parameters: Equatable, Sendable {
        /// The server resets its compression context after every message (RFC 7692 §7.1.1.1).
        public var serverNoContextTakeover: Bool
        /// The client resets its compression context after every message (RFC 7692 §7.1.1.2).
        public var clientNoContextTakeover: Bool
        /// The base-2 logarithm of the server's LZ77 window, 8...15 (RFC 7692 §7.1.2.1).
        public var serverMaxWindowBits: Int
        /// The base-2 logarithm of the client's LZ77 window, 8...15 (RFC 7692 §7.1.2.2).
        public var clientMaxWindowBits: Int

        /// Creates parameters; the defaults are those of a bare `permessage-deflate` agreement.
        ///
        /// - Parameters:
        ///   - serverNoContextTakeover: Whether the server resets its context per message.
        ///   - clientNoContextTakeover: Whether the client resets its context per message.
        ///   - serverMaxWindowBits: The server's window bits, 8...15.
        ///   - clientMaxWindowBits: The client's window bits, 8...15.
        public init(
            serverNoContextTakeover: Bool = false, clientNoContextTakeover: Bool = false,
            serverMaxWindowBits: Int = 15, clientMaxWindowBits: Int = 15
        ) {
            self.serverNoContextTakeover = serverNoContextTakeover
            self.clientNoContextTakeover = clientNoContextTakeover
            self.serverMaxWindowBits = serverMaxWindowBits
            self.clientMaxWindowBits = clientMaxWindowBits
        }

        /// Creates the compressor for messages this endpoint sends.
        ///
        /// - Parameter role: This endpoint's role.
        /// - Returns: A deflater using this side's window and context-takeover setting.
        public func makeDeflater(for role: WebSocketRole) -> Deflater {
            switch role {
            case .server: Deflater(windowBits: serverMaxWindowBits, noContextTakeover: serverNoContextTakeover)
            case .client: Deflater(windowBits: clientMaxWindowBits, noContextTakeover: clientNoContextTakeover)
            }
        }

        /// Creates the decompressor for messages the peer sends.
        ///
        /// - Parameter role: This endpoint's role.
        /// - Returns: An inflater using the peer's window and context-takeover setting.
        public func makeInflater(for role: WebSocketRole) -> Inflater {
            switch role {
            case .server: Inflater(windowBits: clientMaxWindowBits, noContextTakeover: clientNoContextTakeover)
            case .client: Inflater(windowBits: serverMaxWindowBits, noContextTakeover: serverNoContextTakeover)
            }
        }
    }

    /// What a server accepts and asks for when negotiating.
    public struct ServerConfiguration: Sendable {
        /// Always reset the server's compression context per message (less memory, worse ratio), even when the
        /// client did not ask for it.
        public var serverNoContextTakeover = false
        /// Ask the client to reset its compression context per message.
        public var clientNoContextTakeover = false
        /// The largest window (8...15) the server compresses with and asks the client to use when the client
        /// allows it (`client_max_window_bits` in the offer).
        public var maxWindowBits = 15
        /// Messages shorter than this many bytes are sent uncompressed (compression would not pay off).
        public var compressionThreshold = 64

        /// Creates a configuration.
        ///
        /// - Parameters:
        ///   - serverNoContextTakeover: Whether the server always resets its context per message.
        ///   - clientNoContextTakeover: Whether to ask the client to reset its context per message.
        ///   - maxWindowBits: The largest window bits to use, 8...15 (clamped).
        ///   - compressionThreshold: The smallest message size worth compressing.
        public init(
            serverNoContextTakeover: Bool = false, clientNoContextTakeover: Bool = false, maxWindowBits: Int = 15,
            compressionThreshold: Int = 64
        ) {
            self.serverNoContextTakeover = serverNoContextTakeover
            self.clientNoContextTakeover = clientNoContextTakeover
            self.maxWindowBits = maxWindowBits
            self.compressionThreshold = compressionThreshold
        }
    }

    /// What a client offers.
    public struct ClientConfiguration: Sendable {
        /// Ask the server to reset its compression context per message.
        public var serverNoContextTakeover = false
        /// Announce that the client resets its compression context per message.
        public var clientNoContextTakeover = false
        /// Ask the server to use at most this window (8...15); `nil` leaves it to the server.
        public var serverMaxWindowBits: Int?
        /// Whether to send `client_max_window_bits`, allowing the server to limit the client's window.
        public var offersClientMaxWindowBits = true
        /// A value for `client_max_window_bits` (8...15), or `nil` to send the parameter without a value.
        public var clientMaxWindowBits: Int?
        /// Messages shorter than this many bytes are sent uncompressed.
        public var compressionThreshold = 64

        /// Creates a configuration; the defaults produce `permessage-deflate; client_max_window_bits`.
        ///
        /// - Parameters:
        ///   - serverNoContextTakeover: Whether to ask the server to reset its context per message.
        ///   - clientNoContextTakeover: Whether the client resets its context per message.
        ///   - serverMaxWindowBits: The largest window the server may use, or `nil`.
        ///   - offersClientMaxWindowBits: Whether to send `client_max_window_bits`.
        ///   - clientMaxWindowBits: The value sent with `client_max_window_bits`, or `nil` for none.
        ///   - compressionThreshold: The smallest message size worth compressing.
        public init(
            serverNoContextTakeover: Bool = false, clientNoContextTakeover: Bool = false,
            serverMaxWindowBits: Int? = nil, offersClientMaxWindowBits: Bool = true, clientMaxWindowBits: Int? = nil,
            compressionThreshold: Int = 64
        ) {
            self.serverNoContextTakeover = serverNoContextTakeover
            self.clientNoContextTakeover = clientNoContextTakeover
            self.serverMaxWindowBits = serverMaxWindowBits
            self.offersClientMaxWindowBits = offersClientMaxWindowBits
            self.clientMaxWindowBits = clientMaxWindowBits
            self.compressionThreshold = compressionThreshold
        }
    }

    /// The window sizes RFC 7692 §7.1.2 allows.
    static let windowBitsRange = 8...15

    /// The `windowBits` argument for zlib's raw deflate/inflate (negative = no zlib header).
    ///
    /// zlib (since 1.2.9) refuses a window of 2^8 for raw deflate, so a negotiated 8 uses 9, as other
    /// implementations do. For inflating, a larger window than the peer's is always safe.
    static func zlibWindowBits(_ negotiated: Int) -> Int32 {
        -Int32(min(max(negotiated, 9), 15))
    }
}
