/// Code that runs around every handler: logging, authentication, metrics.
///
/// A middleware may answer by itself (e.g. `401`) or call `next` and adjust its response.
public protocol HTTPMiddleware: Sendable {
    /// Answers `request`, usually by calling `next`.
    /// - Parameters:
    ///   - request: The request.
    ///   - next: The rest of the chain.
    /// - Returns: The response.
    func respond(to request: HTTPRequest, next: Router.Handler) async -> HTTPResponse
}
