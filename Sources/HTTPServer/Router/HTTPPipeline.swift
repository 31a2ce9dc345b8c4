import HTTPWire

/// How the server answers a request: the router decides first (so the middleware sees the matched route, never a raw
/// spelling of the path), each middleware prepares the request, the handler answers, each middleware completes the
/// response; anything thrown on the way is rendered as a response where it was thrown.
///
/// Everything runs on the connection's loop. Only a handler that awaits (``Router/Handler``, and the fallback) needs
/// a task; a request whose route answers at once, or that middleware answers, is answered before ``start(_:)``
/// returns.
struct HTTPPipeline: Sendable {
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

    /// Routes `request` and runs what does not wait.
    func start(_ original: HTTPRequest) -> Start {
        var request = original
        request.match = router.match(request.method, path: request.path)
        request.route = request.match.route
        if case .found(_, let parameters, _) = request.match { request.parameters = parameters }
        for (index, layer) in middleware.enumerated() {
            do {
                guard let answer = try layer.prepare(&request) else { continue }
                return .answered(complete(answer, to: request, layers: index))
            } catch {
                return .answered(complete(render(error, request), to: request, layers: index))
            }
        }
        let response: HTTPResponse
        do {
            switch request.match {
            case .found(.immediate(let handler), _, _):
                response = try handler(request)
            case .found(.deferred(let handler), _, _):
                return .pending(Pending(handler: handler, request: request))
            case .methodNotAllowed(let allowed, _):
                throw HTTPError(
                    .methodNotAllowed, code: "methodNotAllowed",
                    message: "\(request.method.rawValue) is not allowed here",
                    headers: ["Allow": allowed.map(\.rawValue).joined(separator: ", ")])
            case .notFound:
                guard let fallback else { throw HTTPError.notFound }
                return .pending(Pending(handler: fallback, request: request))
            }
        } catch {
            response = render(error, request)
        }
        return .answered(complete(response, to: request, layers: middleware.count))
    }

    /// Awaits a pending request's handler and completes its response.
    func finish(_ pending: Pending) async -> HTTPResponse {
        let response: HTTPResponse
        do {
            response = try await pending.handler(pending.request)
        } catch {
            response = render(error, pending.request)
        }
        return complete(response, to: pending.request, layers: middleware.count)
    }

    /// Runs the first `layers` middleware's ``HTTPMiddleware/complete(_:to:)``, innermost first.
    private func complete(_ original: HTTPResponse, to request: HTTPRequest, layers: Int) -> HTTPResponse {
        var response = original
        for layer in middleware[..<layers].reversed() { layer.complete(&response, to: request) }
        return response
    }

    private func render(_ error: any Error, _ request: HTTPRequest) -> HTTPResponse {
        renderer.response(for: error, to: request, logger: logger)
    }
}
