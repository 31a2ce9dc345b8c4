public import HTTPServer

/// A configuration for tests: a free loopback port, two loops, quiet logs, then `configure`.
public func testConfiguration(
    _ configure: (inout HTTPServerConfiguration) -> Void = { _ in }
) -> HTTPServerConfiguration {
    var configuration = HTTPServerConfiguration()
    configuration.host = "127.0.0.1"
    configuration.port = 0
    configuration.loops = 2
    configuration.logLevel = .error
    configure(&configuration)
    return configuration
}

/// Starts a server on a free loopback port for one test and shuts it down afterwards (also when `body` throws).
public func withTestServer(
    _ configuration: HTTPServerConfiguration = testConfiguration(), router: Router,
    fallback: Router.Handler? = nil, middleware: [any HTTPMiddleware] = [],
    _ body: (SocketAddress, HTTPServer) async throws -> Void
) async throws {
    let server = try HTTPServer(
        configuration: configuration, router: router, middleware: middleware, fallback: fallback)
    let address = try server.start()
    do {
        try await body(address, server)
    } catch {
        await server.shutdown(gracePeriod: .milliseconds(100))
        server.stopLoops()
        throw error
    }
    await server.shutdown(gracePeriod: .milliseconds(500))
    server.stopLoops()
}
