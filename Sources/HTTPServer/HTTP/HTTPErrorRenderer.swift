/// Writes the response for an ``HTTPError``: the application's error shape (e.g. a JSON object), chosen in
/// ``HTTPServerConfiguration/errorRenderer``. The server adds the error's own headers after it.
///
/// ```swift
/// configuration.errorRenderer = HTTPErrorRenderer { error in
///     .json(#"{"error":"\#(error.code)"}"#, status: error.status)
/// }
/// ```
public struct HTTPErrorRenderer: Sendable {
    private let render: @Sendable (HTTPError) -> HTTPResponse

    /// Creates a renderer.
    /// - Parameter render: Builds the status, content type and body for an error.
    public init(_ render: @escaping @Sendable (HTTPError) -> HTTPResponse) { self.render = render }

    /// The default: the message as plain text.
    public static let plainText = HTTPErrorRenderer { error in .text(error.message, status: error.status) }

    /// The response for `error`, with the error's headers added to the renderer's.
    /// - Parameter error: The error.
    /// - Returns: The response.
    public func response(for error: HTTPError) -> HTTPResponse {
        var response = render(error)
        for (name, value) in error.headers { response.headers.add(name: name, value: value) }
        return response
    }

    /// The response for anything a handler or middleware threw: an ``HTTPResponseError`` answers for itself, an
    /// ``HTTPError`` is rendered, and anything else is logged and answered `500`.
    /// - Parameters:
    ///   - error: What was thrown.
    ///   - request: The request being answered, for the log.
    ///   - logger: Where an unexpected error is logged.
    /// - Returns: The response.
    func response(for error: any Error, to request: HTTPRequest, logger: Logger) -> HTTPResponse {
        if let error = error as? HTTPError { return response(for: error) }
        if let error = error as? any HTTPResponseError { return error.response() }
        logger.log(
            .error, "handler failed",
            ["method": request.method.rawValue, "route": request.route?.pattern ?? "-", "error": "\(error)"])
        return response(for: HTTPError.internalFailure)
    }
}
