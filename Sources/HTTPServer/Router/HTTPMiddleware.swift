/// Code that runs around every handler: authentication, metrics, headers added to every response.
///
/// Middleware runs on the connection's loop and never waits: ``prepare(_:)`` runs before the handler, outermost
/// first, and may answer in the handler's place; ``complete(_:to:)`` runs after, innermost first, and sees every
/// response the rest gave — the handler's, an error rendered as a response, or the answer of a middleware inside
/// it. A middleware that answered by itself does not see its own answer in ``complete(_:to:)``; the ones outside
/// it do.
public protocol HTTPMiddleware: Sendable {
    /// Runs before the handler: adjusts the request (e.g. attaches the authenticated tenant), or answers in the
    /// handler's place.
    /// - Parameter request: The request; what this leaves in it is what the rest sees.
    /// - Returns: A response to answer with instead of going on (e.g. a WebSocket refusal); nil to go on.
    /// - Throws: An error answered in the handler's place, rendered as a handler's is (``HTTPResponseError``,
    ///   ``HTTPError``, or anything else as `500`).
    func prepare(_ request: inout HTTPRequest) throws -> HTTPResponse?

    /// Runs after the rest has answered: counts, logs or adjusts the response.
    /// - Parameters:
    ///   - response: The response about to be written.
    ///   - request: The request as the handler saw it.
    func complete(_ response: inout HTTPResponse, to request: HTTPRequest)
}

extension HTTPMiddleware {
    /// Goes on, leaving the request as it is.
    public func prepare(_ request: inout HTTPRequest) throws -> HTTPResponse? { nil }

    /// Leaves the response as it is.
    public func complete(_ response: inout HTTPResponse, to request: HTTPRequest) {}
}
