extension PerMessageDeflate {
    /// `client_max_window_bits` as it appears in an offer or a response.
    enum WindowBitsParameter: Equatable, Sendable {
        case absent
        case noValue
        case value(Int)
    }

    /// The parameters of one `permessage-deflate` element, syntactically and semantically valid.
    struct ElementParameters: Equatable, Sendable {
        var serverNoContextTakeover = false
        var clientNoContextTakeover = false
        var serverMaxWindowBits: Int?
        var clientMaxWindowBits = WindowBitsParameter.absent

        /// Validates the parameters of an element (RFC 7692 §7.1): known names only, each at most once, the
        /// takeover parameters without a value, window bits 8...15 in decimal without leading zeros.
        ///
        /// - Parameters:
        ///   - parameters: The element's parameters.
        ///   - isResponse: In a response `client_max_window_bits` needs a value (RFC 7692 §7.1.2.2).
        /// - Returns: The parameters, or `nil` when the element must be declined (offer) or rejected (response).
        init?(_ parameters: [(name: String, value: String?)], isResponse: Bool) {
            var seen: Set<String> = []
            for (rawName, value) in parameters {
                let name = String(decoding: rawName.utf8.map(ASCII.lowercased), as: UTF8.self)
                // RFC 7692 §7: an offer or response with a duplicated parameter is invalid.
                guard seen.insert(name).inserted else { return nil }
                switch name {
                case "server_no_context_takeover":
                    guard value == nil else { return nil }
                    serverNoContextTakeover = true
                case "client_no_context_takeover":
                    guard value == nil else { return nil }
                    clientNoContextTakeover = true
                case "server_max_window_bits":
                    guard let value, let bits = Self.windowBits(value) else { return nil }
                    serverMaxWindowBits = bits
                case "client_max_window_bits":
                    if let value {
                        guard let bits = Self.windowBits(value) else { return nil }
                        clientMaxWindowBits = .value(bits)
                    } else {
                        guard !isResponse else { return nil }
                        clientMaxWindowBits = .noValue
                    }
                default:
                    // RFC 7692 §7: an unknown parameter makes the offer (or response) invalid.
                    return nil
                }
            }
        }

        /// Parses a window-bits value: `1*DIGIT` without leading zeros, 8...15 (RFC 7692 §7.1.2.1).
        static func windowBits(_ text: String) -> Int? {
            guard let first = text.utf8.first, first != 0x30, text.utf8.count <= 2,
                case .value(let bits) = ASCII.parseDecimal(text.utf8), windowBitsRange.contains(bits)
            else { return nil }
            return bits
        }
    }

    /// Chooses the first acceptable `permessage-deflate` offer and builds the response (RFC 7692 §5, §7.1).
    ///
    /// Offers that are malformed, use unknown or duplicated parameters, or carry invalid values are skipped
    /// (declined), so a later offer may still be accepted. The answer follows RFC 7692 §7.1:
    /// `server_no_context_takeover` is echoed or added per the configuration; a requested `server_max_window_bits`
    /// is honoured (answered with the same or a smaller value); `client_max_window_bits` is only answered when the
    /// client offered it, with a value no larger than the offered one.
    ///
    /// - Parameters:
    ///   - headerValues: Every `Sec-WebSocket-Extensions` value of the request, in order.
    ///   - configuration: What the server accepts.
    /// - Returns: The `Sec-WebSocket-Extensions` response value and the agreed parameters, or `nil` when no offer is
    ///   acceptable (then the connection runs uncompressed and no extension header is sent).
    public static func negotiate(
        offers headerValues: [String], configuration: ServerConfiguration
    ) -> (response: String, parameters: Parameters)? {
        let ownBits = min(max(configuration.maxWindowBits, windowBitsRange.lowerBound), windowBitsRange.upperBound)
        for case .some(let element) in WebSocketExtensionHeader.parse(headerValues)
        where ASCII.equalsIgnoringCase(element.name.utf8, extensionName.utf8) {
            guard let offer = ElementParameters(element.parameters, isResponse: false) else { continue }
            var parameters = Parameters()
            var response = [extensionName]
            // RFC 7692 §7.1.1.1: a server accepting server_no_context_takeover must include it; it may add it.
            if offer.serverNoContextTakeover || configuration.serverNoContextTakeover {
                parameters.serverNoContextTakeover = true
                response.append("server_no_context_takeover")
            }
            // RFC 7692 §7.1.1.2: the server may ask the client not to take over context, offered or not.
            if offer.clientNoContextTakeover || configuration.clientNoContextTakeover {
                parameters.clientNoContextTakeover = true
                response.append("client_no_context_takeover")
            }
            // RFC 7692 §7.1.2.1: a requested server window must be honoured and echoed with the same or a smaller
            // value; without a request the server may still announce a smaller window.
            if let requested = offer.serverMaxWindowBits {
                parameters.serverMaxWindowBits = min(requested, ownBits)
                response.append("server_max_window_bits=\(parameters.serverMaxWindowBits)")
            } else if ownBits < 15 {
                parameters.serverMaxWindowBits = ownBits
                response.append("server_max_window_bits=\(ownBits)")
            }
            // RFC 7692 §7.1.2.2: client_max_window_bits may only be answered when offered, with a value no larger
            // than an offered one; without it in the offer the client may use a full window.
            switch offer.clientMaxWindowBits {
            case .absent:
                parameters.clientMaxWindowBits = 15
            case .noValue:
                parameters.clientMaxWindowBits = ownBits
                response.append("client_max_window_bits=\(ownBits)")
            case .value(let offered):
                parameters.clientMaxWindowBits = min(offered, ownBits)
                response.append("client_max_window_bits=\(parameters.clientMaxWindowBits)")
            }
            return (response.joined(separator: "; "), parameters)
        }
        return nil
    }

    /// Builds the `Sec-WebSocket-Extensions` offer a client sends (RFC 7692 §7.1).
    ///
    /// - Parameter configuration: What to offer; window values outside 8...15 are clamped.
    /// - Returns: The header value, e.g. `permessage-deflate; client_max_window_bits`.
    public static func clientOffer(_ configuration: ClientConfiguration = ClientConfiguration()) -> String {
        var parts = [extensionName]
        if configuration.serverNoContextTakeover { parts.append("server_no_context_takeover") }
        if configuration.clientNoContextTakeover { parts.append("client_no_context_takeover") }
        if let bits = configuration.serverMaxWindowBits {
            parts.append("server_max_window_bits=\(clampWindowBits(bits))")
        }
        if configuration.offersClientMaxWindowBits {
            if let bits = configuration.clientMaxWindowBits {
                parts.append("client_max_window_bits=\(clampWindowBits(bits))")
            } else {
                parts.append("client_max_window_bits")
            }
        }
        return parts.joined(separator: "; ")
    }

    /// Validates the server's `Sec-WebSocket-Extensions` answer to ``clientOffer(_:)`` (RFC 7692 §7.1).
    ///
    /// The answer must be exactly one valid `permessage-deflate` element; it must include
    /// `server_no_context_takeover` and `server_max_window_bits` (no larger than requested) when the client asked
    /// for them, and may only include `client_max_window_bits` (with a value no larger than offered) when the client
    /// offered it.
    ///
    /// - Parameters:
    ///   - value: The `Sec-WebSocket-Extensions` response value (repeated fields joined with `", "`).
    ///   - offered: The configuration the offer was built from; the default matches ``clientOffer(_:)``'s.
    /// - Returns: The agreed parameters, or `nil` when the answer is invalid and the client must fail the
    ///   connection (RFC 6455 §4.1, RFC 7692 §7.1).
    public static func acceptServerResponse(
        _ value: String, offered: ClientConfiguration = ClientConfiguration()
    ) -> Parameters? {
        let elements = WebSocketExtensionHeader.parse([value])
        guard elements.count == 1, let element = elements[0],
            ASCII.equalsIgnoringCase(element.name.utf8, extensionName.utf8),
            let answer = ElementParameters(element.parameters, isResponse: true)
        else { return nil }
        if offered.serverNoContextTakeover && !answer.serverNoContextTakeover { return nil }
        var parameters = Parameters(
            serverNoContextTakeover: answer.serverNoContextTakeover,
            clientNoContextTakeover: answer.clientNoContextTakeover || offered.clientNoContextTakeover)
        if let requested = offered.serverMaxWindowBits {
            guard let granted = answer.serverMaxWindowBits, granted <= clampWindowBits(requested) else { return nil }
        }
        parameters.serverMaxWindowBits = answer.serverMaxWindowBits ?? 15
        let ownLimit = offered.clientMaxWindowBits.map(clampWindowBits) ?? 15
        switch answer.clientMaxWindowBits {
        case .absent:
            parameters.clientMaxWindowBits = offered.offersClientMaxWindowBits ? ownLimit : 15
        case .value(let bits):
            guard offered.offersClientMaxWindowBits, bits <= ownLimit else { return nil }
            parameters.clientMaxWindowBits = bits
        case .noValue:
            return nil
        }
        return parameters
    }

    private static func clampWindowBits(_ bits: Int) -> Int {
        min(max(bits, windowBitsRange.lowerBound), windowBitsRange.upperBound)
    }
}
