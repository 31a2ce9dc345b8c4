import HTTPServer
import HTTPWire

/// Resolves the tenant of every request (PROTOCOL.md §6) and refuses unauthenticated ones with 401.
///
/// `/healthz`, `/readyz` and static files need no token. WebSocket upgrades pass through: their routes accept the
/// token as a `bearer.<token>` subprotocol too, and refuse with close code 1008 rather than an HTTP status.
struct Authentication: HTTPMiddleware {
    let context: AppContext

    func respond(to request: HTTPRequest, next: Router.Handler) async -> HTTPResponse {
        var request = request
        guard Self.isProtected(request.path) else { return await next(request) }
        if let tenant = context.tenant(forToken: Self.bearerToken(request.headers)) {
            request.attributes["tenant"] = tenant
        } else if !request.head.isUpgrade {
            return REST.unauthorized
        }
        return await next(request)
    }

    static func isProtected(_ path: String) -> Bool {
        path.hasPrefix("/v1/") || path == "/metrics" || path == "/openapi.json"
    }

    /// The token of an `Authorization: Bearer …` header.
    static func bearerToken(_ headers: HTTPHeaders) -> String? {
        guard let value = headers["Authorization"] else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return String(parts[1])
    }

    /// The token of a `bearer.<token>` WebSocket subprotocol, and that subprotocol.
    static func subprotocolToken(_ headers: HTTPHeaders) -> (token: String, subprotocol: String)? {
        for value in headers.values(for: "Sec-WebSocket-Protocol") {
            for item in value.split(separator: ",") {
                let name = item.trimmingCharacters()
                if name.hasPrefix("bearer."), name.count > 7 { return (String(name.dropFirst(7)), name) }
            }
        }
        return nil
    }
}

/// Counts every request by route pattern and status for `/metrics`.
struct RequestMetrics: HTTPMiddleware {
    let metrics: ServerMetrics

    func respond(to request: HTTPRequest, next: Router.Handler) async -> HTTPResponse {
        let response = await next(request)
        metrics.countRequest(route: Self.route(of: request.path), status: response.status.code)
        return response
    }

    /// The route pattern of a path, so ids do not explode the label set.
    static func route(of path: String) -> String {
        let parts = path.split(separator: "/")
        guard parts.first == "v1" else {
            return ["/healthz", "/readyz", "/metrics", "/openapi.json"].contains(path) ? path : "static"
        }
        var route = ""
        for (index, part) in parts.enumerated() {
            let previous = index > 0 ? parts[index - 1] : ""
            route += (previous == "sessions" || previous == "exercises") ? "/{id}" : "/" + part
        }
        return route
    }
}

extension Substring {
    fileprivate func trimmingCharacters() -> String {
        var slice = self
        while let first = slice.first, first == " " || first == "\t" { slice = slice.dropFirst() }
        while let last = slice.last, last == " " || last == "\t" { slice = slice.dropLast() }
        return String(slice)
    }
}
