import Basics
import CNetShim
import Glibc
import HTTPWire
import Synchronization

/// An HTTP/1.1 server on event loops: routing, middleware, static files, upgrades, graceful shutdown.
///
/// ```swift
/// var router = Router()
/// router.get("/healthz") { _ in .text("ok") }
/// let server = try HTTPServer(configuration: .init(), router: router)
/// let address = try server.start()
/// print("listening on http://\(address)")
/// ```
public final class HTTPServer: Sendable {
    /// The configuration in force.
    public let configuration: HTTPServerConfiguration
    /// Request and connection counters.
    public let metrics: HTTPMetrics
    /// The loops the server runs on (the application may run actors on them).
    public let group: EventLoopGroup
    /// The open connections kept at most: ``HTTPServerConfiguration/maxConnections``, or fewer when the process's
    /// file descriptors would run out first (``System/connections(forOpenFileLimit:)``).
    public let maxConnections: Int
    private let context: ServerContext
    private let listeners = Locked<[Listener]>([])

    /// Creates a server; nothing listens until ``start()``.
    /// - Parameters:
    ///   - configuration: Address, limits, timeouts.
    ///   - router: The routes.
    ///   - middleware: Code run around every handler, outermost first (``HTTPMiddleware``).
    ///   - fallback: Answers requests no route matches (e.g. static files), in a task; nil answers `404`.
    ///   - metrics: Where to count requests and connections (created here unless the application needs them
    ///     before the server exists, e.g. for a `/metrics` route).
    /// - Throws: ``SystemError`` when the event loops cannot be created.
    public init(
        configuration: HTTPServerConfiguration, router: Router, middleware: [any HTTPMiddleware] = [],
        fallback: Router.Handler? = nil, metrics: HTTPMetrics = HTTPMetrics()
    ) throws(SystemError) {
        self.configuration = configuration
        self.metrics = metrics
        group = try EventLoopGroup(loops: configuration.loops, clock: configuration.clock)
        let logger = Logger(level: configuration.logLevel)
        let pipeline = HTTPPipeline(
            router: router, middleware: middleware, fallback: fallback, renderer: configuration.errorRenderer,
            logger: logger)
        maxConnections = min(
            configuration.maxConnections, System.openFileLimit.map(System.connections(forOpenFileLimit:)) ?? .max)
        let admission = ConnectionAdmission(
            limit: maxConnections, perHost: configuration.maxConnectionsPerAddress)
        context = ServerContext(
            configuration: configuration, pipeline: pipeline, metrics: metrics, admission: admission, logger: logger,
            loops: group.loops.count)
        cnet_ignore_sigpipe()
    }

    /// Opens one listening socket per loop on the configured address (`SO_REUSEPORT`) and starts accepting.
    ///
    /// A port something already listens on is refused (`EADDRINUSE`), even another server's `SO_REUSEPORT` group
    /// of the same user, which the sockets could otherwise join (``Socket/ensureNotListenedOn(_:)``).
    /// - Returns: The bound address (with the real port when the configured one was 0).
    /// - Throws: ``SystemError`` or ``SocketAddress/InvalidHost``.
    @discardableResult
    public func start() throws -> SocketAddress {
        var address = try SocketAddress(host: configuration.host, port: configuration.port)
        if address.port != 0 { try Socket.ensureNotListenedOn(address) }
        var opened: [Listener] = []
        do {
            for loop in group.loops {
                let fd = try Socket.listen(on: address, backlog: configuration.backlog, reusePort: true)
                if address.port == 0, let bound = Socket.localAddress(fd) { address = address.with(port: bound.port) }
                opened.append(Listener(fd: fd, loop: loop, server: context))
            }
        } catch {
            for listener in opened { Glibc.close(listener.fd) }
            throw error
        }
        for listener in opened { listener.start() }
        listeners.withLock { $0 = opened }
        return address
    }

    /// Stops accepting, lets requests in flight finish (closing idle keep-alive connections at once), runs the
    /// application's own drain, waits up to `gracePeriod` for connections to close, then closes what is left.
    /// - Parameters:
    ///   - gracePeriod: The longest to wait for responses in flight.
    ///   - drain: The application's part (e.g. storing live sessions and closing upgraded connections), run once
    ///     no new connection can arrive.
    public func shutdown(gracePeriod: Duration = .seconds(10), drain: @Sendable () async -> Void = {}) async {
        context.startDraining()
        let toClose = listeners.withLock { listeners in
            defer { listeners.removeAll() }
            return listeners
        }
        for listener in toClose { listener.loop.execute { listener.close() } }
        for loop in group.loops {
            let registry = context.registry(for: loop)
            loop.execute { for connection in registry.all { connection.drain() } }
        }
        await drain()
        let (clock, deadline) = (configuration.clock, configuration.clock.deadline(after: gracePeriod))
        _ = await metrics.allClosed.wait(
            until: { metrics.openConnections == 0 },
            timeout: {
                try? await clock.sleep(until: deadline)
            })
        for loop in group.loops {
            let registry = context.registry(for: loop)
            loop.execute { for connection in registry.all { connection.closeNow() } }
        }
    }

    /// Whether ``shutdown(gracePeriod:)`` has begun: new connections are refused and responses close.
    public var isShuttingDown: Bool { context.isDraining }

    /// Stops the event loops and waits for their threads; call after ``shutdown(gracePeriod:)``.
    public func stopLoops() { group.shutdown() }
}
