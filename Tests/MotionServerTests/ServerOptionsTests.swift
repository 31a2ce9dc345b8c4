import HTTPServer
import MotionServer
import Testing

/// The `motion-server` command line and environment (docs/protocol.md §7).
@Suite("ServerOptions")
struct ServerOptionsTests {
    static func parse(
        _ arguments: [String], environment: [String: String] = [:]
    ) throws(ServerOptions.UsageError)
        -> ServerOptions
    {
        try ServerOptions.parse(arguments: arguments, environment: environment)
    }

    /// The message of the error `arguments` are refused with, or nil when they are accepted.
    static func refusal(_ arguments: [String], environment: [String: String] = [:]) -> String? {
        do {
            _ = try parse(arguments, environment: environment)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func nothingGivenMeansTheDefaults() throws {
        #expect(try Self.parse([]) == ServerOptions())
        #expect(ServerOptions().port == 8080 && ServerOptions().host == "127.0.0.1" && !ServerOptions().webSocketEcho)
    }

    @Test func readsEveryFlag() throws {
        let options = try Self.parse([
            "--host", "0.0.0.0", "--port", "9000", "--database", "/tmp/m.sqlite", "--public", "web", "--threads", "4",
            "--tokens", "tokens.txt", "--log-level", "DEBUG", "--ws-echo", "--frames-per-second", "60.5",
            "--max-message-bytes", "2048", "--write-timeout", "1.5", "--max-http-sessions", "5",
            "--max-http-sessions-per-tenant", "2", "--tls-cert", "c.pem", "--tls-key", "k.pem",
            "--database-readers", "3",
        ])
        var expected = ServerOptions()
        expected.host = "0.0.0.0"
        expected.port = 9000
        expected.database = "/tmp/m.sqlite"
        expected.publicDirectory = "web"
        expected.threads = 4
        expected.tokensFile = "tokens.txt"
        expected.logLevel = .debug
        expected.webSocketEcho = true
        expected.limits.framesPerSecond = 60.5
        expected.limits.maxMessageBytes = 2048
        expected.writeTimeout = .milliseconds(1500)
        expected.limits.maxHTTPSessions = 5
        expected.limits.maxHTTPSessionsPerTenant = 2
        expected.tlsCertificate = "c.pem"
        expected.tlsKey = "k.pem"
        expected.databaseReaders = 3
        #expect(options == expected)
    }

    @Test func readsInlineValues() throws {
        let options = try Self.parse(["--port=0", "--host=::1", "--database=postgres://u@h/db?x=a=b", "--public="])
        #expect(options.port == 0)
        #expect(options.host == "::1")
        #expect(options.database == "postgres://u@h/db?x=a=b", "only the first = separates")
        #expect(options.publicDirectory == "")
    }

    @Test func readsTheEnvironmentAndAFlagWins() throws {
        let environment = [
            "MOTION_PORT": "7000", "MOTION_HOST": "10.0.0.1", "MOTION_THREADS": "3", "MOTION_WS_ECHO": "Yes",
            "MOTION_FRAMES_PER_SECOND": "30", "MOTION_TOKENS": "", "UNRELATED": "--port 1",
        ]
        let options = try Self.parse(["--port", "7001"], environment: environment)
        #expect(options.port == 7001)
        #expect(options.host == "10.0.0.1")
        #expect(options.threads == 3)
        #expect(options.webSocketEcho)
        #expect(options.limits.framesPerSecond == 30)
        #expect(options.tokensFile == nil, "an empty variable is unset")
    }

    @Test func readsTheCertificateFromTheEnvironmentAndAFlagWins() throws {
        let environment = ["MOTION_TLS_CERT": "/certs/a.pem", "MOTION_TLS_KEY": "/certs/a.key"]
        let options = try Self.parse(["--tls-cert", "/other/b.pem"], environment: environment)
        #expect(options.tlsCertificate == "/other/b.pem")
        #expect(options.tlsKey == "/certs/a.key")
        #expect(try Self.parse([]).tlsCertificate == nil)
    }

    @Test(arguments: ["0", "no", "false", "", "2"])
    func theEchoVariableTurnsOnlyOnForYes(value: String) throws {
        #expect(try !Self.parse([], environment: ["MOTION_WS_ECHO": value]).webSocketEcho)
    }

    @Test(arguments: [
        (["--port", "65536"], "--port must be 0…65535, got '65536'"),
        (["--port", "-1"], "--port must be 0…65535, got '-1'"),
        (["--port", "80 "], "--port must be 0…65535, got '80 '"),
        (["--port", "0x50"], "--port must be 0…65535, got '0x50'"),
        (["--port="], "--port must be 0…65535, got ''"),
        (["--threads", "0"], "--threads must be 1…256, got '0'"),
        (["--threads", "257"], "--threads must be 1…256, got '257'"),
        (["--threads", "99999999999999999999999"], "--threads must be 1…256, got '99999999999999999999999'"),
        (["--log-level", "verbose"], "--log-level must be debug, info, notice, warning or error, got 'verbose'"),
        (["--write-timeout", "0"], "--write-timeout must be seconds within [0.001, 3600], got '0'"),
        (["--write-timeout", "-5"], "--write-timeout must be seconds within [0.001, 3600], got '-5'"),
        (["--write-timeout", "0.0004"], "--write-timeout must be seconds within [0.001, 3600], got '0.0004'"),
        (["--write-timeout", "3600.5"], "--write-timeout must be seconds within [0.001, 3600], got '3600.5'"),
        (["--write-timeout", "nan"], "--write-timeout must be seconds within [0.001, 3600], got 'nan'"),
        (["--write-timeout", "1e400"], "--write-timeout must be seconds within [0.001, 3600], got '1e400'"),
        (["--frames-per-second", "0.5"], "--frames-per-second must be 1…100000, got '0.5'"),
        (["--frames-per-second", "100001"], "--frames-per-second must be 1…100000, got '100001'"),
        (["--frames-per-second", "nan"], "--frames-per-second must be 1…100000, got 'nan'"),
        (["--frames-per-second", "inf"], "--frames-per-second must be 1…100000, got 'inf'"),
        (["--max-message-bytes", "1023"], "--max-message-bytes must be 1024…268435456, got '1023'"),
        (["--max-message-bytes", "268435457"], "--max-message-bytes must be 1024…268435456, got '268435457'"),
        (["--max-message-bytes", "1e6"], "--max-message-bytes must be 1024…268435456, got '1e6'"),
        (["--max-http-sessions", "0"], "--max-http-sessions must be 1…1000000, got '0'"),
        (
            ["--max-http-sessions-per-tenant", "1000001"],
            "--max-http-sessions-per-tenant must be 1…1000000, got '1000001'"
        ),
        (["--max-exercises-per-tenant", "-1"], "--max-exercises-per-tenant must be 0…100000, got '-1'"),
        (["--database-readers", "0"], "--database-readers must be 1…64, got '0'"),
        (["--database-readers", "65"], "--database-readers must be 1…64, got '65'"),
        (["--port"], "--port needs a value"),
        (["--host", "h", "--database"], "--database needs a value"),
        (["--nope", "1"], "unknown flag --nope"),
        (["-port", "1"], "unexpected argument '-port'"),
        (["serve"], "unexpected argument 'serve'"),
        (["--"], "unknown flag --"),
        (["--ws-echo=false"], "--ws-echo takes no value"),
        (["--tls-cert", "c.pem"], "--tls-cert and --tls-key go together"),
        (["--tls-key", "k.pem"], "--tls-cert and --tls-key go together"),
        (["--tls-cert"], "--tls-cert needs a value"),
        (["--help"], "motion-server: real-time motion analysis"),
    ])
    func refusesBadFlagsWithAMessageNamingThem(arguments: [String], message: String) {
        #expect(Self.refusal(arguments) == message)
    }

    @Test func boundariesAreAccepted() throws {
        for arguments in [
            ["--port", "65535"], ["--threads", "1"], ["--threads", "256"], ["--write-timeout", "0.001"],
            ["--write-timeout", "3600"], ["--frames-per-second", "1"], ["--frames-per-second", "100000"],
            ["--max-message-bytes", "1024"], ["--max-message-bytes", "268435456"], ["--max-http-sessions", "1000000"],
            ["--database-readers", "1"], ["--database-readers", "64"],
        ] {
            #expect(Self.refusal(arguments) == nil, "\(arguments)")
        }
        #expect(try Self.parse(["--write-timeout", "0.001"]).writeTimeout == .milliseconds(1))
        #expect(try Self.parse(["--max-exercises-per-tenant", "0"]).exercises.maxExercisesPerTenant == 0)
        let environment = ["MOTION_MAX_EXERCISES_PER_TENANT": "7"]
        #expect(try Self.parse([], environment: environment).exercises.maxExercisesPerTenant == 7)
        #expect(ServerOptions().exercises == ExerciseLimits())
    }

    @Test func aBadEnvironmentValueIsRefusedToo() {
        #expect(Self.refusal([], environment: ["MOTION_PORT": "http"]) == "--port must be 0…65535, got 'http'")
        #expect(Self.refusal([], environment: ["MOTION_THREADS": "-1"]) == "--threads must be 1…256, got '-1'")
    }

    @Test func theUsageErrorEndsWithTheUsage() {
        let error = #expect(throws: ServerOptions.UsageError.self) { try Self.parse(["--x"]) }
        #expect(error?.description.hasPrefix("unknown flag --x\n\nusage: motion-server") == true)
        for flag in [
            "--frames-per-second", "--write-timeout", "--max-http-sessions-per-tenant", "--ws-echo",
            "--max-exercises-per-tenant", "--database-readers",
        ] {
            #expect(ServerOptions.usage.contains(flag))
        }
    }
}
