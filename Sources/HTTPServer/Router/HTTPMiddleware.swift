/// Code that runs around every handler: logging, authentication, metrics.
///
/// A middleware may answer by itself (e.g. `401`, or by throwing an ``HTTPResponseError``) or call `next` and adjust
/// its response. What the rest of the chain throws reaches it already rendered as a response, so a middleware that
/// counts or logs responses sees every error response too.
public protocol HTTPMiddleware: Sendable {
    /// Answers `request`, usually by calling `next`.
    /// - Parameters:
    ///   - request: The request.
    ///   - next: The rest of the chain.
    /// - Returns: The response.
    /// - Throws: An error the server renders (``HTTPResponseError``, ``HTTPError``, or anything else as `500`).
    func respond(to request: HTTPRequest, next: Router.Handler) async throws -> HTTPResponse
}
