import HTTPServer
import HTTPWire
import MotionWire

/// Building REST responses: JSON bodies and the `{"error":{"code","message"}}` shape (docs/protocol.md §5).
enum REST {
    static func json(_ bytes: [UInt8], status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, contentType: "application/json", bytes: bytes)
    }

    /// An error body, ``WireEncoder/encodeErrorBody(_:into:)``, with `status`.
    static func error(_ status: HTTPStatus, _ error: WireError) -> HTTPResponse {
        var body: [UInt8] = []
        WireEncoder.encodeErrorBody(error, into: &body)
        return json(body, status: status)
    }

    /// The errors the HTTP layer answers by itself (`404`, `405`, malformed requests, `500`) in the REST shape.
    static let errorRenderer = HTTPErrorRenderer { error in
        REST.error(error.status, WireError(code: ErrorCode(rawValue: error.code), message: error.message))
    }

    /// Whether the request's body is NDJSON (when allowed) rather than JSON.
    /// - Throws: ``RESTError/unsupportedMediaType(accepted:received:)`` for anything else.
    static func bodyIsNDJSON(_ request: HTTPRequest, allowingNDJSON: Bool) throws(RESTError) -> Bool {
        let type = (request.headers["Content-Type"] ?? "application/json").lowercased()
        let base = type.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces) } ?? ""
        if base == "application/json" || base.hasSuffix("+json") { return false }
        if allowingNDJSON && (base == "application/x-ndjson" || base == "application/jsonl") { return true }
        let accepted = allowingNDJSON ? "application/json or application/x-ndjson" : "application/json"
        throw .unsupportedMediaType(accepted: accepted, received: base)
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
