import HTTPServer
import HTTPWire

/// Refuses what a foreign web page could make a browser send (docs/protocol.md §6.2, ``BrowserPolicy``): without tokens,
/// a request whose `Host` is not one of the server's names (`421 hostNotAllowed`); with or without, a request that
/// can act — a WebSocket handshake (any request to a WebSocket route), or any method but `GET`, `HEAD` and
/// `OPTIONS` — whose `Origin` is neither the server's own nor an allowed one (`403 originNotAllowed`).
///
/// The second covers more than WebSockets on purpose: a page can `POST` across origins without a preflight when the
/// body has no type (`fetch(url, {method: "POST", body: new Blob([json])})`), and the REST routes read a body without
/// `Content-Type` as JSON, so a foreign page could otherwise start sessions or create exercises on a server that
/// trusts its callers. It cannot read the answers (no CORS headers are sent), and reads (`GET`) change nothing.
///
/// It runs before ``Authentication``, on the request's head alone (never its body), so a rebinding page learns
/// nothing from how authentication would have answered. The health checks (`/healthz`, `/readyz`) answer whatever
/// the `Host`: they are public with tokens too, tell nothing, and load balancers and orchestrators call them by
/// address.
struct BrowserGuard: HTTPMiddleware {
    /// Methods that only read (RFC 9110 §9.2.1), for which a foreign `Origin` is not refused.
    static let safeMethods: Set<HTTPMethod> = [.get, .head, .options]

    let policy: BrowserPolicy

    func prepare(_ request: inout HTTPRequest) throws -> HTTPResponse? {
        let route = request.route
        let isHealthCheck = route.map { Authentication.publicRoutes.contains($0.pattern) } ?? false
        if !isHealthCheck && !policy.admitsHost(request.head.host) { throw RESTError.hostNotAllowed }
        let acts = route?.isWebSocket == true || !Self.safeMethods.contains(request.method)
        if acts && !policy.admitsOrigin(request.headers.values(for: "Origin"), host: request.head.host) {
            throw RESTError.originNotAllowed
        }
        return nil
    }
}
