import Glibc
import HTTPServer
import LoadKit
import MotionCore
import MotionServer
import Testing

@testable import motion_load

/// motion-load's sessions over `wss://` against a real motion-server with TLS on a free loopback port (the test
/// certificates of HTTPServerTests): options parsed as from the command line, the whole run driven in process.
@Suite struct MotionLoadTLSTests {
    /// Tests/HTTPServerTests/Fixtures/tls/`name`, found from this file's path.
    static func fixture(_ name: String) -> String {
        var components = "\(#filePath)".split(separator: "/", omittingEmptySubsequences: false)
        components.removeLast(2)
        return components.joined(separator: "/") + "/HTTPServerTests/Fixtures/tls/" + name
    }

    /// A motion-server with TLS (certificate `name`), a fresh database in a temporary directory, stopped after
    /// `body`.
    static func withTLSMotionServer(
        certificate name: String = "ecdsa", _ body: (UInt16) async throws -> Void
    ) async throws {
        var template = Array("/tmp/motion-load-tls-XXXXXX".utf8CString)
        let directory = try #require(mkdtemp(&template).map { String(cString: $0) })
        defer {
            for suffix in ["", "-wal", "-shm"] { unlink(directory + "/motion.sqlite" + suffix) }
            rmdir(directory)
        }
        var options = ServerOptions()
        options.port = 0
        options.threads = 2
        options.database = directory + "/motion.sqlite"
        options.publicDirectory = directory + "/no-public"
        options.logLevel = .error
        options.tlsCertificate = fixture(name + ".pem")
        options.tlsKey = fixture(name + ".key")
        let server = try await MotionServer(options: options)
        let address = try server.start()
        do {
            try await body(address.port)
        } catch {
            await server.shutdown(gracePeriod: .milliseconds(200))
            throw error
        }
        await server.shutdown(gracePeriod: .seconds(2))
    }

    /// What one run reported.
    struct Outcome {
        var succeeded: Bool
        var started: Int
        var refused: Int
        var failures: [String: Int]
        var framesSent: Int
        var snapshots: Int
        var summaries: Int
    }

    /// Parses `arguments` as motion-load's command line (with short timings) and runs it in process.
    static func run(_ arguments: [String]) async throws -> Outcome {
        let options = LoadOptions.parse(
            arguments + ["--seconds", "1", "--ramp-rate", "0", "--drain-seconds", "3", "--quiet"])
        let target = try #require(options.target)
        let exercise = Exercise.catalog.first { $0.id == options.exercise } ?? .squat
        let script = try PoseScript.simulated(exercise: exercise, side: options.side, rate: options.rate)
        let group = try EventLoopGroup(loops: 1, name: "load-test")
        defer { group.shutdown() }
        let driver = LoadDriver(options: options, target: target, script: script, group: group)
        let (succeeded, whole) = await driver.run()
        return Outcome(
            succeeded: succeeded, started: driver.shared.started.load(ordering: .relaxed),
            refused: driver.shared.refused.load(ordering: .relaxed), failures: whole.connectFailures,
            framesSent: whole.framesSent, snapshots: whole.snapshots, summaries: whole.summaries)
    }

    /// Sessions stream over TLS, verified against the server's own certificate, and every pose is answered.
    @Test(arguments: ["localhost", "127.0.0.1"])
    func streamsSessionsOverTLS(host: String) async throws {
        try await Self.withTLSMotionServer { port in
            let outcome = try await Self.run([
                "--url", "wss://\(host):\(port)/v1/stream", "--ca", Self.fixture("ecdsa.pem"), "--sessions", "3",
            ])
            #expect(outcome.succeeded)
            #expect(outcome.started == 3)
            #expect(outcome.refused == 0)
            #expect(outcome.framesSent > 3 * 20)
            #expect(outcome.snapshots == outcome.framesSent)
            #expect(outcome.summaries == 3)
        }
    }

    /// A server whose certificate the CA file does not vouch for is refused, every session, unless `--insecure`.
    @Test func refusesAnUntrustedServerUnlessInsecure() async throws {
        try await Self.withTLSMotionServer(certificate: "ecdsa2") { port in
            let url = "wss://localhost:\(port)/v1/stream"
            let refused = try await Self.run(["--url", url, "--ca", Self.fixture("ecdsa.pem"), "--sessions", "2"])
            #expect(!refused.succeeded)
            #expect(refused.started == 0)
            #expect(refused.refused == 2)
            #expect(refused.failures.values.reduce(0, +) == 2)
            #expect(refused.failures.keys.allSatisfy { $0.hasPrefix("TLS handshake:") }, "\(refused.failures)")

            let insecure = try await Self.run(["--url", url, "--insecure", "--sessions", "2"])
            #expect(insecure.succeeded)
            #expect(insecure.started == 2)
            #expect(insecure.summaries == 2)
        }
    }

    /// `--server-name` is what the certificate must carry: a name it lacks fails every session.
    @Test func refusesAServerNameTheCertificateLacks() async throws {
        try await Self.withTLSMotionServer { port in
            let outcome = try await Self.run([
                "--url", "wss://127.0.0.1:\(port)/v1/stream", "--ca", Self.fixture("ecdsa.pem"), "--server-name",
                "wrong.example", "--sessions", "2",
            ])
            #expect(!outcome.succeeded)
            #expect(outcome.started == 0)
            #expect(outcome.refused == 2)
            #expect(outcome.failures.values.reduce(0, +) == 2)
            #expect(outcome.failures.keys.allSatisfy { $0.hasPrefix("TLS handshake:") }, "\(outcome.failures)")
        }
    }

    /// The options give the target its TLS context: verifying with `--ca`, not at all with `--insecure`.
    @Test func parsesTheTLSOptions() throws {
        let ca = Self.fixture("ecdsa.pem")
        let verified = LoadOptions.parse(["--url", "wss://localhost:1/v1/stream", "--ca", ca])
        #expect(verified.target?.tls?.role == .client(certificateAuthorityFile: ca, verifiesPeer: true))
        #expect(verified.target?.serverName == "localhost")
        let insecure = LoadOptions.parse(["--url", "wss://127.0.0.1:1/v1/stream", "--insecure"])
        #expect(insecure.target?.tls?.role == .client(certificateAuthorityFile: nil, verifiesPeer: false))
        let plain = LoadOptions.parse(["--url", "ws://127.0.0.1:1/v1/stream"])
        #expect(plain.target?.usesTLS == false)
        #expect(plain.target?.tls == nil)
    }
}
