import HTTPWire

/// How the server answers a request: the router decides first (so the middleware sees the matched route, never a raw
/// spelling of the path), each middleware prepares the request, the handler answers, each middleware completes the
/// response; anything thrown on the way is rendered as a response where it was thrown.
///
/// The first half runs on the request's head, before any byte of its body is read (``screen(_:remoteAddress:)``):
/// routing, the middleware (authentication), a method the route does not allow, and a body where none is taken.
/// A request refused there never has its body kept, so a client without a token cannot make the server hold
/// megabytes by declaring them. The second half runs the handler on the whole request (``start(_:)``).
///
/// Everything runs on the connection's loop. Only a handler that awaits (``Router/Handler``, and the fallback) needs
/// a task; a request whose route answers at once, or that middleware answers, is answered before ``start(_:)``
/// returns.
struct HTTPPipeline: Sendable {
    /// How ``screen(_:remoteAddress:)`` left a request whose head has arrived.
    enum Screening {
        /// Routed and prepared: read its body, then ``start(_:)`` it.
        case admitted(HTTPRequest)
        /// For the fallback (static files), which takes no body: ``start(_:)`` it at once, without reading its body.
        case withoutBody(HTTPRequest)
        /// Answered from the head; its body is never read.
        case refused(HTTPResponse)
    }

    /// How ``start(_:)`` left a request.
    enum Start {
        /// Answered.
        case answered(HTTPResponse)
        /// Its handler must be awaited: hand it to ``finish(_:)`` in a task.
        case pending(Pending)
    }

    /// A request the middleware let through to a handler that awaits.
    struct Pending: Sendable {
        let handler: Router.Handler
        let request: HTTPRequest
    }

    let router: Router
    let middleware: [any HTTPMiddleware]
    let fallback: Router.Handler?
    let renderer: HTTPErrorRenderer
    let logger: Logger

    /// Routes a request from its head, prepares it with the middleware, and refuses what can be refused before its
    /// body: a middleware's answer (e.g. `401`), `405` for a method the route does not allow, `413` for a body sent
    /// with a method that takes none (``takesBody(_:)``). A body sent to the fallback is never read: the fallback
    /// answers on the head alone (a file, `404`, `405`).
    func screen(_ head: HTTPRequestHead, remoteAddress: SocketAddress?) -> Screening {
        var request = HTTPRequest(head: head, remoteAddress: remoteAddress)
        request.match = router.match(request.method, path: request.path)
        request.route = request.match.route
        if case .found(_, let parameters, _) = request.match { request.parameters = parameters }
        for (index, layer) in middleware.enumerated() {
            do {
                guard let answer = try layer.prepare(&request) else { continue }
                return .refused(complete(answer, to: request, layers: index))
            } catch {
                return .refused(complete(render(error, request), to: request, layers: index))
            }
        }
        do {
            if case .methodNotAllowed(let allowed, _) = request.match {
                throw HTTPError(
                    .methodNotAllowed, code: "methodNotAllowed",
                    message: "\(request.method.rawValue) is not allowed here",
                    headers: ["Allow": allowed.map(\.rawValue).joined(separator: ", ")])
            }
            if request.route == nil, Self.hasBody(head) { return .withoutBody(request) }
            if !Self.takesBody(request.method), Self.hasBody(head) {
                throw HTTPError(
                    .contentTooLarge, code: "bodyNotAllowed", message: "\(request.method.rawValue) takes no body")
            }
        } catch {
            return .refused(complete(render(error, request), to: request, layers: middleware.count))
        }
        return .admitted(request)
    }

    /// Whether a route takes a body with `method`: not one whose body has no meaning here (`GET`, `HEAD`, `DELETE`,
    /// `OPTIONS`, `TRACE`; RFC 9110 §9.3).
    static func takesBody(_ method: HTTPMethod) -> Bool {
        switch method {
        case .get, .head, .delete, .options, .trace: return false
        default: return true
        }
    }

    /// Whether a head announces a body of at least one byte (a chunked one may).
    static func hasBody(_ head: HTTPRequestHead) -> Bool {
        switch head.bodyFraming {
        case .noBody, .contentLength(0): false
        case .contentLength, .chunked: true
        }
    }

    /// Runs the handler of a request ``screen(_:remoteAddress:)`` admitted, its body now read.
    func start(_ request: HTTPRequest) -> Start {
        let response: HTTPResponse
        do {
            switch request.match {
            case .found(.immediate(let handler), _, _):
                response = try handler(request)
            case .found(.deferred(let handler), _, _):
                return .pending(Pending(handler: handler, request: request))
            case .methodNotAllowed:
                // Refused by the screening; a request that skipped it is refused the same way.
                throw HTTPError(.methodNotAllowed, code: "methodNotAllowed", message: "not allowed here")
            case .notFound:
                guard let fallback else { throw HTTPError.notFound }
                return .pending(Pending(handler: fallback, request: request))
            }
        } catch {
            response = render(error, request)
        }
        return .answered(complete(consume response, to: request, layers: middleware.count))
    }

    /// Awaits a pending request's handler and completes its response.
    func finish(_ pending: Pending) async -> HTTPResponse {
        let response: HTTPResponse
        do {
            response = try await pending.handler(pending.request)
        } catch {
            response = render(error, pending.request)
        }
        return complete(consume response, to: pending.request, layers: middleware.count)
    }

    /// Runs the first `layers` middleware's ``HTTPMiddleware/complete(_:to:)``, innermost first. The response is
    /// taken, not copied, so that the layers add to its headers in place instead of to a copy of them.
    private func complete(_ response: consuming HTTPResponse, to request: HTTPRequest, layers: Int) -> HTTPResponse {
        for layer in middleware[..<layers].reversed() { layer.complete(&response, to: request) }
        return response
    }

    private func render(_ error: any Error, _ request: HTTPRequest) -> HTTPResponse {
        renderer.response(for: error, to: request, logger: logger)
    }
}
