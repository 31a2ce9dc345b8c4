public import Basics
import HTTPServer

/// The `motion-server` command line (docs/protocol.md §7): flags, each also read from a `MOTION_*` environment
/// variable; a flag wins over the environment.
public struct ServerOptions: Sendable, Equatable {
    /// The address to listen on.
    public var host = "127.0.0.1"
    /// The port; 0 takes a free one.
    public var port: UInt16 = 8080
    /// The SQLite file, or the `postgres://` URL of a PostgreSQL database.
    public var database = "./data/motion.sqlite"
    /// How many PostgreSQL connections serve REST reads beside the store's own; nil for one per processor, at most
    /// four. The SQLite store has none.
    public var databaseReaders: Int?
    /// The directory served under `/`.
    public var publicDirectory = "Public"
    /// Event-loop threads.
    public var threads = System.coreCount
    /// A file of `token tenant` lines; nil means no authentication (every request is tenant `default`).
    public var tokensFile: String?
    /// Host names a request's `Host` may give besides the loopback names and ``host`` when the server runs without
    /// tokens (docs/protocol.md §6.2): the names the server is reached by, e.g. through a proxy. Without a port; an IPv6
    /// address with or without brackets.
    public var allowedHosts: [String] = []
    /// Origins besides the server's own whose pages may open its WebSockets (docs/protocol.md §6.2), whole:
    /// `https://app.clinic.example`, `http://localhost:5173`.
    public var allowedOrigins: [String] = []
    /// The least severe log level written.
    public var logLevel = LogLevel.info
    /// Whether `GET /v1/echo` (a WebSocket echo with the limits of `/v1/stream`) is mounted.
    public var webSocketEcho = false
    /// How long a connection may keep unsent bytes with none of them taken by its client before it is closed.
    public var writeTimeout: Duration = .seconds(30)
    /// How long a request's head may take to arrive, and a new connection to send one.
    public var headTimeout: Duration = .seconds(10)
    /// The open connections kept at most (fewer when the file descriptors would run out first).
    public var maxConnections = 10_000
    /// The open connections one client address keeps at most; 0 for no bound (behind a proxy).
    public var maxConnectionsPerAddress = 256
    /// Limits of live and HTTP-driven sessions.
    public var limits = LiveLimits()
    /// Limits of tenants' custom exercises.
    public var exercises = ExerciseLimits()
    /// The PEM certificate (chain) for HTTPS and WSS; with ``tlsKey``. Nil serves plain HTTP.
    public var tlsCertificate: String?
    /// The PEM private key of ``tlsCertificate``.
    public var tlsKey: String?
    /// This node's name among the nodes sharing a PostgreSQL database (docs/protocol.md §8), in logs and `/metrics`;
    /// nil names it by host name and port.
    public var nodeName: String?
    /// How long a node sharing the database may go without a heartbeat before the others take it for dead (its
    /// sessions are then resumable on any node). A node whose process dies is seen dead at once.
    public var nodeTimeout: Duration = .seconds(10)
    /// How the FHIR export names a tenant's subjects (`--fhir-subject-system`, docs/fhir.md).
    public var fhir = FHIRConfiguration()

    /// Creates the defaults.
    public init() {}

    /// Why the command line could not be read.
    public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
        /// What was wrong.
        public var message: String
        /// The message followed by the usage text.
        public var description: String { message + "\n\n" + ServerOptions.usage }
    }

    /// The usage text.
    public static let usage = """
        usage: motion-server [--host 127.0.0.1] [--port 8080] [--database PATH | postgres://…] [--database-readers N]
                             [--public DIR] [--threads N] [--tokens FILE] [--log-level info] [--ws-echo]
                             [--allowed-hosts NAME,…] [--allowed-origins https://HOST[:PORT],…]
                             [--frames-per-second 240] [--max-message-bytes 1048576] [--write-timeout 30]
                             [--head-timeout 10] [--max-connections 10000] [--max-connections-per-address 256]
                             [--max-http-sessions 10000] [--max-http-sessions-per-tenant 1000]
                             [--max-exercises-per-tenant 200] [--resume-seconds 120] [--store-wait 60]
                             [--tls-cert FILE --tls-key FILE] [--node NAME] [--node-timeout 10]
                             [--fhir-subject-system URI]
        Every flag also reads from the environment: MOTION_HOST, MOTION_PORT, MOTION_DATABASE, MOTION_DATABASE_READERS,
        MOTION_PUBLIC, MOTION_THREADS, MOTION_TOKENS, MOTION_ALLOWED_HOSTS, MOTION_ALLOWED_ORIGINS, MOTION_LOG_LEVEL,
        MOTION_WS_ECHO=1, MOTION_FRAMES_PER_SECOND, MOTION_MAX_MESSAGE_BYTES, MOTION_WRITE_TIMEOUT, MOTION_HEAD_TIMEOUT,
        MOTION_MAX_CONNECTIONS, MOTION_MAX_CONNECTIONS_PER_ADDRESS, MOTION_MAX_HTTP_SESSIONS,
        MOTION_MAX_HTTP_SESSIONS_PER_TENANT, MOTION_MAX_EXERCISES_PER_TENANT, MOTION_RESUME_SECONDS, MOTION_STORE_WAIT,
        MOTION_TLS_CERT, MOTION_TLS_KEY, MOTION_NODE, MOTION_NODE_TIMEOUT, MOTION_FHIR_SUBJECT_SYSTEM. SIGHUP reads the
        certificate and key again.
        """

    /// The flags, each with its variable.
    static let flags = CommandLineFlags([
        .value("host", environment: "MOTION_HOST"), .value("port", environment: "MOTION_PORT"),
        .value("database", environment: "MOTION_DATABASE"),
        .value("database-readers", environment: "MOTION_DATABASE_READERS"),
        .value("public", environment: "MOTION_PUBLIC"),
        .value("threads", environment: "MOTION_THREADS"), .value("tokens", environment: "MOTION_TOKENS"),
        .value("allowed-hosts", environment: "MOTION_ALLOWED_HOSTS"),
        .value("allowed-origins", environment: "MOTION_ALLOWED_ORIGINS"),
        .value("log-level", environment: "MOTION_LOG_LEVEL"), .boolean("ws-echo", environment: "MOTION_WS_ECHO"),
        .value("frames-per-second", environment: "MOTION_FRAMES_PER_SECOND"),
        .value("max-message-bytes", environment: "MOTION_MAX_MESSAGE_BYTES"),
        .value("write-timeout", environment: "MOTION_WRITE_TIMEOUT"),
        .value("head-timeout", environment: "MOTION_HEAD_TIMEOUT"),
        .value("max-connections", environment: "MOTION_MAX_CONNECTIONS"),
        .value("max-connections-per-address", environment: "MOTION_MAX_CONNECTIONS_PER_ADDRESS"),
        .value("max-http-sessions", environment: "MOTION_MAX_HTTP_SESSIONS"),
        .value("max-http-sessions-per-tenant", environment: "MOTION_MAX_HTTP_SESSIONS_PER_TENANT"),
        .value("max-exercises-per-tenant", environment: "MOTION_MAX_EXERCISES_PER_TENANT"),
        .value("resume-seconds", environment: "MOTION_RESUME_SECONDS"),
        .value("store-wait", environment: "MOTION_STORE_WAIT"),
        .value("tls-cert", environment: "MOTION_TLS_CERT"), .value("tls-key", environment: "MOTION_TLS_KEY"),
        .value("node", environment: "MOTION_NODE"), .value("node-timeout", environment: "MOTION_NODE_TIMEOUT"),
        .value("fhir-subject-system", environment: "MOTION_FHIR_SUBJECT_SYSTEM"),
    ])

    /// Reads the options from the environment, then the arguments.
    /// - Parameters:
    ///   - arguments: The command line without the program name.
    ///   - environment: The process environment.
    /// - Returns: The options.
    /// - Throws: ``UsageError`` for an unknown flag, a missing or invalid value, or a feature not built in.
    public static func parse(arguments: [String], environment: [String: String]) throws(UsageError) -> ServerOptions {
        var options = ServerOptions()
        let parsed: CommandLineFlags.Parsed
        do {
            parsed = try flags.parse(arguments, environment: environment)
            for flag in parsed.flags { try options.set(flag) }
        } catch {
            throw UsageError(message: error.message)
        }
        if parsed.wantsHelp { throw UsageError(message: "motion-server: real-time motion analysis") }
        guard (options.tlsCertificate == nil) == (options.tlsKey == nil) else {
            throw UsageError(message: "--tls-cert and --tls-key go together")
        }
        return options
    }

    /// The comma-separated items of `flag`'s value, each as `normalized` gives it (empty items are skipped).
    /// - Throws: `FlagError` naming `expected` for an item `normalized` refuses.
    private static func list(
        _ flag: Flag, _ expected: String, _ normalized: (String) -> String?
    ) throws(FlagError) -> [String] {
        var items: [String] = []
        for item in flag.value.split(separator: ",") {
            let text = item.trimmingBlanks()
            guard !text.isEmpty else { continue }
            guard let value = normalized(text) else { throw flag.invalid(expected) }
            items.append(value)
        }
        return items
    }

    private mutating func set(_ flag: Flag) throws(FlagError) {
        let value = flag.value
        switch flag.name {
        case "host": host = value
        case "port": port = UInt16(try flag.integer(in: 0...65535))
        case "database": database = value
        case "database-readers": databaseReaders = try flag.integer(in: 1...64)
        case "public": publicDirectory = value
        case "threads": threads = try flag.integer(in: 1...256)
        case "tokens": tokensFile = value
        case "allowed-hosts":
            allowedHosts = try Self.list(flag, "host names without a port, e.g. app.example,10.0.0.7") {
                BrowserPolicy.normalizedName($0)
            }
        case "allowed-origins":
            allowedOrigins = try Self.list(flag, "whole origins, e.g. https://app.example,http://localhost:5173") {
                BrowserPolicy.normalizedOrigin($0)
            }
        case "log-level":
            guard let level = LogLevel(name: value) else { throw flag.invalid("debug, info, notice, warning or error") }
            logLevel = level
        case "ws-echo": webSocketEcho = true
        case "write-timeout":
            // Whole milliseconds, at least one: a value that rounds to 0 would close every connection that waits.
            guard let seconds = Double(value), seconds >= 0.001, seconds <= 3600 else {
                throw flag.invalid("seconds within [0.001, 3600]")
            }
            writeTimeout = .milliseconds(Int64((seconds * 1000).rounded()))
        case "head-timeout":
            guard let seconds = Double(value), seconds >= 0.001, seconds <= 3600 else {
                throw flag.invalid("seconds within [0.001, 3600]")
            }
            headTimeout = .milliseconds(Int64((seconds * 1000).rounded()))
        case "max-connections": maxConnections = try flag.integer(in: 1...1_000_000)
        case "max-connections-per-address": maxConnectionsPerAddress = try flag.integer(in: 0...1_000_000)
        case "resume-seconds":
            // Whole milliseconds; 0 turns resuming off (a dropped connection abandons its session at once).
            guard let seconds = Double(value), seconds >= 0, seconds <= 86_400 else {
                throw flag.invalid("seconds within [0, 86400]")
            }
            limits.resumeWindow = .milliseconds(Int64((seconds * 1000).rounded()))
        case "store-wait":
            guard let seconds = Double(value), seconds >= 0, seconds <= 86_400 else {
                throw flag.invalid("seconds within [0, 86400]")
            }
            limits.storeWait = .milliseconds(Int64((seconds * 1000).rounded()))
        case "frames-per-second": limits.framesPerSecond = try flag.number(in: 1...100_000)
        case "max-message-bytes": limits.maxMessageBytes = try flag.integer(in: 1024...(256 << 20))
        case "max-http-sessions": limits.maxHTTPSessions = try flag.integer(in: 1...1_000_000)
        case "max-http-sessions-per-tenant": limits.maxHTTPSessionsPerTenant = try flag.integer(in: 1...1_000_000)
        case "max-exercises-per-tenant": exercises.maxExercisesPerTenant = try flag.integer(in: 0...100_000)
        case "tls-cert": tlsCertificate = value
        case "tls-key": tlsKey = value
        case "node":
            guard !value.isEmpty, value.utf8.count <= 100, value.unicodeScalars.allSatisfy({ $0.value > 32 }) else {
                throw flag.invalid("a name of 1 to 100 bytes without spaces")
            }
            nodeName = value
        case "node-timeout":
            guard let seconds = Double(value), seconds >= 1, seconds <= 3600 else {
                throw flag.invalid("seconds within [1, 3600]")
            }
            nodeTimeout = .milliseconds(Int64((seconds * 1000).rounded()))
        case "fhir-subject-system":
            if let problem = FHIRConfiguration.problem(withSubjectSystem: value) { throw flag.invalid(problem) }
            fhir.subjectSystem = value
        default: preconditionFailure("--\(flag.name) is not in ServerOptions.flags")
        }
    }
}
