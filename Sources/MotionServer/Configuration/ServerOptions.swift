public import HTTPServer

/// The `motion-server` command line (PROTOCOL.md §7): flags, each also read from a `MOTION_*` environment
/// variable; a flag wins over the environment.
public struct ServerOptions: Sendable, Equatable {
    /// The address to listen on.
    public var host = "127.0.0.1"
    /// The port; 0 takes a free one.
    public var port: UInt16 = 8080
    /// The SQLite file (a `postgres://` URL is reserved for the PostgreSQL store).
    public var database = "./data/motion.sqlite"
    /// The directory served under `/`.
    public var publicDirectory = "Public"
    /// Event-loop threads.
    public var threads = System.coreCount
    /// A file of `token tenant` lines; nil means no authentication (every request is tenant `default`).
    public var tokensFile: String?
    /// The least severe log level written.
    public var logLevel = LogLevel.info
    /// Whether `GET /v1/echo` (a WebSocket echo with the limits of `/v1/stream`) is mounted.
    public var webSocketEcho = false
    /// How long a connection may keep unsent bytes with none of them taken by its client before it is closed.
    public var writeTimeout: Duration = .seconds(30)
    /// Limits of live and HTTP-driven sessions.
    public var limits = LiveLimits()
    /// The PEM certificate (chain) for HTTPS and WSS; with ``tlsKey``. Nil serves plain HTTP.
    public var tlsCertificate: String?
    /// The PEM private key of ``tlsCertificate``.
    public var tlsKey: String?

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
        usage: motion-server [--host 127.0.0.1] [--port 8080] [--database PATH | postgres://…]
                             [--public DIR] [--threads N] [--tokens FILE] [--log-level info] [--ws-echo]
                             [--frames-per-second 240] [--max-message-bytes 1048576] [--write-timeout 30]
                             [--max-http-sessions 10000] [--max-http-sessions-per-tenant 1000]
                             [--tls-cert FILE --tls-key FILE]
        Every flag also reads from the environment: MOTION_HOST, MOTION_PORT, MOTION_DATABASE, MOTION_PUBLIC,
        MOTION_THREADS, MOTION_TOKENS, MOTION_LOG_LEVEL, MOTION_WS_ECHO=1, MOTION_FRAMES_PER_SECOND,
        MOTION_MAX_MESSAGE_BYTES, MOTION_WRITE_TIMEOUT, MOTION_MAX_HTTP_SESSIONS, MOTION_MAX_HTTP_SESSIONS_PER_TENANT,
        MOTION_TLS_CERT, MOTION_TLS_KEY. SIGHUP reads the certificate and key again.
        """

    /// Reads the options from the environment, then the arguments.
    /// - Parameters:
    ///   - arguments: The command line without the program name.
    ///   - environment: The process environment.
    /// - Returns: The options.
    /// - Throws: ``UsageError`` for an unknown flag, a missing or invalid value, or a feature not built in.
    public static func parse(arguments: [String], environment: [String: String]) throws(UsageError) -> ServerOptions {
        var options = ServerOptions()
        let names = [
            "host": "MOTION_HOST", "port": "MOTION_PORT", "database": "MOTION_DATABASE", "public": "MOTION_PUBLIC",
            "threads": "MOTION_THREADS", "tokens": "MOTION_TOKENS", "log-level": "MOTION_LOG_LEVEL",
            "frames-per-second": "MOTION_FRAMES_PER_SECOND", "max-message-bytes": "MOTION_MAX_MESSAGE_BYTES",
            "write-timeout": "MOTION_WRITE_TIMEOUT", "max-http-sessions": "MOTION_MAX_HTTP_SESSIONS",
            "max-http-sessions-per-tenant": "MOTION_MAX_HTTP_SESSIONS_PER_TENANT", "tls-cert": "MOTION_TLS_CERT",
            "tls-key": "MOTION_TLS_KEY",
        ]
        for (flag, variable) in names.sorted(by: { $0.key < $1.key }) {
            if let value = environment[variable], !value.isEmpty { try options.set(flag, value) }
        }
        if let echo = environment["MOTION_WS_ECHO"], ["1", "true", "yes"].contains(echo.lowercased()) {
            options.webSocketEcho = true
        }
        var iterator = arguments.makeIterator()
        while let argument = iterator.next() {
            guard argument.hasPrefix("--") else { throw UsageError(message: "unexpected argument '\(argument)'") }
            var flag = String(argument.dropFirst(2))
            var inline: String?
            if let equals = flag.firstIndex(of: "=") {
                inline = String(flag[flag.index(after: equals)...])
                flag = String(flag[..<equals])
            }
            switch flag {
            case "ws-echo":
                // `--ws-echo=false` must not turn it on.
                guard inline == nil else { throw UsageError(message: "--ws-echo takes no value") }
                options.webSocketEcho = true
            case "help": throw UsageError(message: "motion-server: real-time motion analysis")
            default:
                guard names[flag] != nil else { throw UsageError(message: "unknown flag --\(flag)") }
                guard let value = inline ?? iterator.next() else {
                    throw UsageError(message: "--\(flag) needs a value")
                }
                try options.set(flag, value)
            }
        }
        guard (options.tlsCertificate == nil) == (options.tlsKey == nil) else {
            throw UsageError(message: "--tls-cert and --tls-key go together")
        }
        return options
    }

    private mutating func set(_ flag: String, _ value: String) throws(UsageError) {
        switch flag {
        case "host": host = value
        case "port":
            guard let port = UInt16(value) else { throw UsageError(message: "--port must be 0…65535, got '\(value)'") }
            self.port = port
        case "database": database = value
        case "public": publicDirectory = value
        case "threads":
            guard let threads = Int(value), (1...256).contains(threads) else {
                throw UsageError(message: "--threads must be 1…256, got '\(value)'")
            }
            self.threads = threads
        case "tokens": tokensFile = value
        case "log-level":
            guard let level = LogLevel(name: value) else {
                throw UsageError(message: "--log-level must be debug, info, notice, warning or error, got '\(value)'")
            }
            logLevel = level
        case "write-timeout":
            // Whole milliseconds, at least one: a value that rounds to 0 would close every connection that waits.
            guard let seconds = Double(value), seconds >= 0.001, seconds <= 3600 else {
                throw UsageError(message: "--write-timeout must be seconds within [0.001, 3600], got '\(value)'")
            }
            writeTimeout = .milliseconds(Int64((seconds * 1000).rounded()))
        case "frames-per-second":
            guard let rate = Double(value), rate >= 1, rate <= 100_000 else {
                throw UsageError(message: "--frames-per-second must be 1…100000, got '\(value)'")
            }
            limits.framesPerSecond = rate
        case "max-message-bytes":
            guard let bytes = Int(value), (1024...(256 << 20)).contains(bytes) else {
                throw UsageError(message: "--max-message-bytes must be 1024…268435456, got '\(value)'")
            }
            limits.maxMessageBytes = bytes
        case "max-http-sessions":
            limits.maxHTTPSessions = try Self.count(flag, value)
        case "max-http-sessions-per-tenant":
            limits.maxHTTPSessionsPerTenant = try Self.count(flag, value)
        case "tls-cert": tlsCertificate = value
        case "tls-key": tlsKey = value
        default: throw UsageError(message: "unknown flag --\(flag)")
        }
    }

    private static func count(_ flag: String, _ value: String) throws(UsageError) -> Int {
        guard let count = Int(value), (1...1_000_000).contains(count) else {
            throw UsageError(message: "--\(flag) must be 1…1000000, got '\(value)'")
        }
        return count
    }
}
