/// An error that knows the response it is answered with: a handler or middleware throws it, and the server sends
/// ``response()`` (the shape of Hummingbird's `HTTPResponseError`).
///
/// ```swift
/// enum ItemError: HTTPResponseError {
///     case missing
///     func response() -> HTTPResponse { .text("no such item", status: .notFound) }
/// }
/// router.get("/items/{id}") { request in throw ItemError.missing }
/// ```
///
/// Errors that do not conform are answered `500` by the configured ``HTTPErrorRenderer`` and logged.
public protocol HTTPResponseError: Error {
    /// The response that answers the request that failed.
    /// - Returns: The response, status, headers and body.
    func response() -> HTTPResponse
}
