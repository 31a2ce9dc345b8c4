import Glibc
public import HTTPServer
import HTTPWire
import SessionStore

/// The motion-server application: the store, the REST and WebSocket endpoints, static files, metrics, and a
/// graceful shutdown that stores every live session.
///
/// ```swift
/// let server = try await MotionServer(options: options)
/// let address = try server.start()
/// await SignalWaiter().wait()
/// await server.shutdown()
/// ```
public final class MotionServer: Sendable {
    /// The options it runs with.
    public let options: ServerOptions
    /// The routes it serves, in the order it tries them (the static files answer what none matches).
    public let routes: [RegisteredRoute]
    private let http: HTTPServer
    private let context: AppContext
    private let hub = WebSocketHub()
    private let reaper = Locked<Task<Void, Never>?>(nil)
    private let orphanSweep = Locked<Task<Void, Never>?>(nil)
    private let summaryRenderer = Locked<Task<Void, Never>?>(nil)
    private let ready = Locked(false)
    private let tls: TLSContext?
    private let logger: Logger

    /// `https` when the server speaks TLS, else `http` (for the ready line).
    public var scheme: String { tls == nil ? "http" : "https" }

    /// Why the server could not start.
    public struct StartError: Error, Sendable, CustomStringConvertible {
        /// What went wrong.
        public var description: String
    }

    /// Opens the store (abandoning sessions a previous process left live) and builds the routes.
    /// - Parameter options: Address, database, public directory, tokens, threads, log level, limits.
    /// - Throws: ``StartError`` when the certificate, the tokens file, the database or the event loops cannot be set
    ///   up.
    public convenience init(options: ServerOptions) async throws(StartError) {
        try await self.init(options: options, clock: .monotonic)
    }

    /// ``init(options:)`` on a clock of the caller's and with an observer of the store writes: what a test drives
    /// and waits on instead of sleeping and polling. On a ``ManualClock`` a checkpoint batch still gathering is
    /// written only once the clock passes its window, and ``shutdown(gracePeriod:)`` waits for it.
    /// - Parameters:
    ///   - options: Address, database, public directory, tokens, threads, log level, limits.
    ///   - clock: What the event loops, and so every timeout, live sessions' checkpoints and the checkpoint batch
    ///     window, run by (a ``ManualClock`` moves only when the test moves it).
    ///   - storeObserver: Told of every session write once the store took or failed it.
    /// - Throws: ``StartError`` when the certificate, the tokens file, the database or the event loops cannot be set
    ///   up.
    package init(
        options: ServerOptions, clock: LoopClock, storeObserver: StoreWriteObserver? = nil
    ) async throws(StartError) {
        self.options = options
        let logger = Logger(level: options.logLevel)
        self.logger = logger
        if let certificate = options.tlsCertificate, let key = options.tlsKey {
            do {
                tls = try TLSContext.server(certificateFile: certificate, keyFile: key)
            } catch {
                throw StartError(description: "TLS: \(error)")
            }
        } else {
            tls = nil
        }
        var tokens: TokenTable?
        if let path = options.tokensFile {
            guard let text = Self.readFile(path) else {
                throw StartError(description: "cannot read tokens file \(path)")
            }
            do {
                tokens = try TokenTable(parsing: text)
            } catch {
                throw StartError(description: "\(path): \(error)")
            }
        }
        let store: any SessionStore
        let exercises = ExerciseLibrary(limits: options.exercises)
        let patientCodes = PatientCodes()
        let shared = PostgresSessionStore.isURL(options.database)
        do {
            if shared {
                var configuration = PostgresSessionStore.Configuration()
                if let readers = options.databaseReaders { configuration.readConnections = readers }
                configuration.rendering = .wire
                store = try await PostgresSessionStore(url: options.database, configuration: configuration)
            } else {
                var configuration = SQLiteSessionStore.Configuration()
                configuration.rendering = .wire
                store = try await SQLiteSessionStore(path: options.database, configuration: configuration)
            }
            exercises.load(try await store.currentExercises(tenant: nil), logger: logger)
            patientCodes.load(try await store.accessCodes(tenant: nil, subject: nil))
        } catch {
            throw StartError(
                description: "cannot open the session store at \(Self.withoutPassword(options.database)): \(error)")
        }
        let metrics = ServerMetrics()
        let cluster = ClusterNode(
            id: store.node, name: options.nodeName ?? "\(Self.hostName()):\(options.port)",
            deadAfter: options.nodeTimeout)
        let context = AppContext(
            store: store, tokens: tokens, logger: logger, limits: options.limits, metrics: metrics,
            clock: SQLiteSessionStore.systemMilliseconds, loopClock: clock, storeObserver: storeObserver,
            exercises: exercises, cluster: cluster, patientCodes: patientCodes)
        self.context = context
        if shared {
            let bus: PostgresNodeBus
            do {
                bus = try PostgresNodeBus(url: options.database, node: cluster.id, name: cluster.name) { message in
                    context.receive(message)
                }
            } catch {
                throw StartError(description: "cannot join the other nodes: \(error)")
            }
            cluster.attach(bus)
            // Until it is registered the others would take this node for dead: it serves only once it is.
            guard await bus.waitUntilRegistered(timeout: .seconds(15)) else {
                await bus.stop()
                throw StartError(description: "cannot register with the other nodes in the database within 15 s")
            }
        }
        // Sessions that no live node holds (left by a previous run of this node, or by a node that died) stay
        // resumable for the window after their last write; older ones are abandoned now, and later by the sweep.
        await Self.abandonExpiredOrphans(context: context)

        var router = Router()
        ExerciseRoutes(context: context).add(to: &router)
        SessionRoutes(context: context).add(to: &router)
        ProgrammeRoutes(context: context).add(to: &router)
        AccessRoutes(context: context).add(to: &router)
        FHIRRoutes(context: context, configuration: options.fhir).add(to: &router)
        var webSockets = WebSocketConfiguration()
        webSockets.maxMessageBytes = options.limits.maxMessageBytes
        webSockets.maxFrameBytes = options.limits.maxMessageBytes
        webSockets.writeTimeout = options.writeTimeout
        LiveRoutes(context: context, hub: hub, configuration: webSockets).add(to: &router, echo: options.webSocketEcho)
        var fallback: Router.Handler?
        if let files = try? FileServer(root: options.publicDirectory) {
            fallback = { request in try await files.respond(to: request) }
        } else {
            logger.log(.warning, "no public directory; static files are not served", ["path": options.publicDirectory])
        }
        var configuration = HTTPServerConfiguration()
        configuration.host = options.host
        configuration.port = options.port
        configuration.loops = options.threads
        configuration.logLevel = options.logLevel
        configuration.limits.maxBodyBytes = Self.maxBodyBytes(messageBytes: options.limits.maxMessageBytes)
        configuration.writeTimeout = options.writeTimeout
        configuration.headTimeout = options.headTimeout
        configuration.maxConnections = options.maxConnections
        configuration.maxConnectionsPerAddress = options.maxConnectionsPerAddress
        configuration.errorRenderer = REST.errorRenderer
        configuration.tls = tls
        configuration.clock = clock
        let httpMetrics = HTTPMetrics()
        let (hub, ready) = (self.hub, self.ready)
        OperationsRoutes(
            context: context, isReady: { ready.withLock { $0 } }, httpMetrics: { httpMetrics.snapshot },
            webSockets: { hub.count }
        ).add(to: &router)
        routes = router.routes
        do {
            http = try HTTPServer(
                configuration: configuration, router: router,
                middleware: [
                    RequestMetrics(metrics: metrics), SecurityHeaders(isTLS: tls != nil),
                    BrowserGuard(policy: BrowserPolicy(options: options)), Authentication(context: context),
                ], fallback: fallback, metrics: httpMetrics)
        } catch {
            throw StartError(description: "cannot start event loops: \(error)")
        }
    }

    /// Starts listening.
    /// - Returns: The bound address.
    /// - Throws: When the address cannot be bound.
    public func start() throws -> SocketAddress {
        let address = try http.start()
        ready.withLock { $0 = true }
        // What the operator must know before the first client: the bounds actually in force.
        logger.log(
            .notice, "accepting connections",
            [
                "max_connections": "\(http.maxConnections)",
                "per_address": http.configuration.maxConnectionsPerAddress == 0
                    ? "unbounded" : "\(http.configuration.maxConnectionsPerAddress)",
                "open_file_limit": System.openFileLimit.map { "\($0)" } ?? "unlimited",
            ])
        let context = self.context
        let task = Task {
            let timeout = Int64(context.limits.httpSessionIdleTimeout.components.seconds * 1000)
            while !Task.isCancelled {
                try? await Task.sleep(for: .seconds(10))
                let now = context.clock()
                for session in context.httpSessions.all
                where await session.isIdle(now: now, timeoutMilliseconds: timeout) {
                    _ = await session.stop(status: .abandoned, context: context)
                    context.httpSessions.remove(session.id)
                }
            }
        }
        let sweep = Task {
            var renewed = context.clock()
            var codesRead = context.clock()
            while !Task.isCancelled {
                let wait = await Self.abandonExpiredOrphans(context: context)
                if context.clock() - renewed >= FollowedSessions.renewal.milliseconds {
                    context.followed.renew(cluster: context.cluster)
                    renewed = context.clock()
                }
                if context.store is PostgresSessionStore,
                    context.clock() - codesRead >= Self.patientCodeRefresh.milliseconds
                {
                    await Self.readPatientCodes(context: context)
                    codesRead = context.clock()
                }
                try? await Task.sleep(for: wait)
            }
        }
        reaper.withLock { $0 = task }
        orphanSweep.withLock { $0 = sweep }
        summaryRenderer.withLock { $0 = Task { await Self.renderStoredSummaries(context: context) } }
        return address
    }

    /// `location` with the password of a `postgres://user:password@host/db` URL left out, for messages and logs.
    static func withoutPassword(_ location: String) -> String {
        guard PostgresSessionStore.isURL(location), let scheme = location.firstRange(of: "://") else { return location }
        let rest = location[scheme.upperBound...]
        let authority = rest.prefix { $0 != "/" && $0 != "?" }
        guard let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") else {
            return location
        }
        return String(location[..<colon]) + String(location[at...])
    }

    /// Abandons the live sessions that no live node holds (a previous run's, a dead node's) once their resume
    /// window has passed since their last write, unless a resume claimed them first.
    /// - Returns: How long until the next one's window ends (at most a few seconds: nodes may die meanwhile).
    @discardableResult
    private static func abandonExpiredOrphans(context: AppContext) async -> Duration {
        let window = context.limits.resumeWindow.milliseconds
        let longest = Duration.seconds(5)
        do {
            let alive = try await context.timed("nodes") { try await context.liveNodes() }
            let now = context.clock()
            let abandoned = try await context.timed("abandon") {
                try await context.store.abandonLiveSessions(updatedBefore: now - window + 1, except: alive)
            }
            if abandoned > 0 {
                context.logger.log(.notice, "sessions no node resumed in time abandoned", ["count": "\(abandoned)"])
            }
            let orphans = try await context.timed("live") { try await context.store.liveSessions() }
                .filter { $0.holder.map { !alive.contains($0) } ?? true }
            guard let oldest = orphans.map(\.updatedAt).min() else { return longest }
            return min(longest, .milliseconds(max(1, oldest + window - context.clock())))
        } catch {
            context.metrics.storeFailed("abandon")
            context.logger.log(.error, "cannot abandon the sessions no node holds", ["error": "\(error)"])
            return longest
        }
    }

    /// How often a node sharing its database reads the patient codes again (docs/protocol.md §6.1): a code made or
    /// revoked through another node takes at most this (and a sweep's wait) to be known here.
    static let patientCodeRefresh = Duration.seconds(5)

    /// Reads every patient code again and closes, with 1008, the live sessions here of codes revoked elsewhere.
    private static func readPatientCodes(context: AppContext) async {
        do {
            let codes = try await context.timed("listAccessCodes") {
                try await context.store.accessCodes(tenant: nil, subject: nil)
            }
            for id in context.patientCodes.load(codes) {
                for holder in context.live.holders(ofCode: id) {
                    holder.socket.close(code: .policyViolation, reason: "access revoked")
                }
            }
        } catch {
            context.metrics.storeFailed("listAccessCodes")
            context.logger.log(.error, "cannot read the patient codes", ["error": "\(error)"])
        }
    }

    /// Renders, in the background, the summaries of ended sessions stored without one at this version
    /// (``SummaryRendering/wire``): those stored before renderings were kept or by older code, so that listings copy
    /// them too. One pass over the stored sessions after start, a batch at a time with a pause between batches for
    /// the live sessions' writes, which share the store's connection; a failed batch is tried again after a while.
    private static func renderStoredSummaries(context: AppContext) async {
        var after: SessionID?
        var rendered = 0
        while !Task.isCancelled {
            do {
                let batch = try await context.timed("render") {
                    try await context.store.renderSummaries(after: after, limit: 200)
                }
                rendered += batch.rendered
                guard let next = batch.next else { break }
                after = next
                try await Task.sleep(for: .milliseconds(10))
            } catch {
                guard !Task.isCancelled else { return }
                context.metrics.storeFailed("render")
                context.logger.log(.error, "cannot render stored summaries; trying again", ["error": "\(error)"])
                try? await Task.sleep(for: .seconds(5))
            }
        }
        if rendered > 0 {
            context.logger.log(.notice, "stored summaries rendered for listings", ["count": "\(rendered)"])
        }
    }

    /// Reads the TLS certificate and key again (SIGHUP) for connections accepted from now on; open connections are
    /// untouched. A certificate that fails to load leaves the old one in force, and says why in the log.
    /// - Returns: Whether the new certificate is in force (false without TLS or on failure).
    @discardableResult
    public func reloadTLS() -> Bool {
        guard let tls else { return false }
        do {
            try tls.reload()
            logger.log(.notice, "TLS certificate reloaded", ["not_after": tls.certificateNotAfter ?? "-"])
            return true
        } catch {
            logger.log(.error, "TLS reload failed; the previous certificate stays in force", ["error": "\(error)"])
            return false
        }
    }

    /// Drains (docs/protocol.md §7): stops accepting, closes WebSockets with 1001, checkpoints every live WebSocket session
    /// (they stay resumable by the next run for their window, docs/protocol.md §3.1; without a window they are stored as
    /// abandoned), stores HTTP-driven sessions as abandoned, finishes requests in flight, and closes the store.
    /// - Parameter gracePeriod: The longest to wait for requests in flight.
    public func shutdown(gracePeriod: Duration = .seconds(10)) async {
        ready.withLock { $0 = false }
        // Summaries whose store failed are retried while the server drains, for as long as requests may finish.
        context.drain(grace: gracePeriod)
        reaper.withLock { $0?.cancel() }
        orphanSweep.withLock { $0?.cancel() }
        summaryRenderer.withLock { $0?.cancel() }
        let (hub, context) = (self.hub, self.context)
        await http.shutdown(gracePeriod: gracePeriod) {
            await hub.closeAll(code: .goingAway, reason: "server shutting down", clock: context.loopClock)
            // Every closed connection checkpointed its session: write them now rather than after the batch window.
            context.checkpoints.flush()
            for session in context.httpSessions.all {
                _ = await session.stop(status: .abandoned, context: context)
                context.httpSessions.remove(session.id)
            }
            await context.writes.waitForAll()
        }
        await context.writes.waitForAll()
        // Every session is checkpointed: once this node leaves, the others may claim them at once.
        await context.cluster.leave()
        await context.store.close()
        http.stopLoops()
    }

    /// The largest request body the HTTP layer reads: 8 MiB, or ``LiveLimits/maxMessageBytes`` when that is larger,
    /// so that a raised `--max-message-bytes` holds over REST too. A body within it but over the message limit is
    /// read and refused by its route, `413 messageTooBig` in the REST shape on a connection that stays open; a
    /// larger one is refused from its head (`413`, and the connection closes).
    /// - Parameter messageBytes: ``LiveLimits/maxMessageBytes``.
    static func maxBodyBytes(messageBytes: Int) -> Int { max(8 << 20, messageBytes) }

    /// The machine's host name (the default node name's first part).
    private static func hostName() -> String {
        var name = [CChar](repeating: 0, count: 256)
        guard gethostname(&name, name.count - 1) == 0 else { return "localhost" }
        return String(decoding: name.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    private static func readFile(_ path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            bytes += buffer[0..<count]
            if bytes.count > 1 << 20 { return nil }
        }
        return String(validating: bytes, as: UTF8.self)
    }
}
