import HTTPServer
import HTTPWire
import MotionWire

/// Building REST responses: JSON bodies and the `{"error":{"code","message"}}` shape (PROTOCOL.md §5).
enum REST {
    static func json(_ bytes: [UInt8], status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", bytes: bytes)
    }

    /// A wire error as a REST error: 413 for oversized input, 400 otherwise.
    static func error(_ error: WireError) -> HTTPResponse {
        var body: [UInt8] = []
        WireEncoder.encodeErrorBody(error, into: &body)
        return json(body, status: error.code == .messageTooBig ? .contentTooLarge : .badRequest)
    }

    static func error(_ status: HTTPStatus, _ code: String, _ message: String) -> HTTPResponse {
        .error(status, code: code, message: message)
    }

    static let notFound = error(.notFound, "notFound", "no such session")
    static let unauthorized: HTTPResponse = {
        var response = error(.unauthorized, "unauthorized", "missing or unknown bearer token")
        response.headers.add(name: "WWW-Authenticate", value: #"Bearer realm="motion-server""#)
        return response
    }()
    static let forbidden = error(.forbidden, "forbidden", "this token may not read server-wide figures")
    static let storeUnavailable: HTTPResponse = {
        var response = error(.serviceUnavailable, "storeUnavailable", "the session store failed; try again")
        response.headers.add(name: "Retry-After", value: "1")
        return response
    }()

    /// Whether the request's body is NDJSON (when allowed) rather than JSON, or the `415` refusing anything else.
    static func bodyFormat(of request: HTTPRequest, allowingNDJSON: Bool) -> (ndjson: Bool, refusal: HTTPResponse?) {
        let type = (request.headers["Content-Type"] ?? "application/json").lowercased()
        let base = type.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        if base == "application/json" || base.hasSuffix("+json") { return (false, nil) }
        if allowingNDJSON && (base == "application/x-ndjson" || base == "application/jsonl") { return (true, nil) }
        let accepted = allowingNDJSON ? "application/json or application/x-ndjson" : "application/json"
        return (false, error(.unsupportedMediaType, "unsupportedMediaType", "send \(accepted), not \(base)"))
    }
}

extension Substring {
    fileprivate enum Whitespace { case whitespaces }

    fileprivate func trimmingCharacters(in _: Whitespace) -> String {
        var slice = self
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
