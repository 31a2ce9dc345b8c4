import Foundation
import Glibc
import Synchronization

@testable import SessionStore

/// A PostgreSQL 15 server of the tests' own: `initdb` into a temporary directory and `pg_ctl start` on a Unix socket
/// there, no TCP; started by the first test that needs it, stopped when the test process exits. Each test gets a
/// database of its own (``createDatabase()``).
///
/// PostgreSQL refuses to run as root: under root (CI) the server runs as the `postgres` user (else `nobody`)
/// through `runuser`, in a directory that user owns; the tests, as root, still reach its socket.
actor PostgresTestServer {
    /// Debian's `postgresql-15` binaries (package `postgresql`).
    static let binaries = "/usr/lib/postgresql/15/bin"

    /// Whether the server binaries are installed.
    static var isInstalled: Bool {
        ["initdb", "pg_ctl", "postgres"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: "\(binaries)/\($0)")
        }
    }

    static let shared = PostgresTestServer()

    /// What the exit handler stops and removes: the data directory and the command prefix that runs as its owner.
    private static let running = Mutex<(directory: String, runAs: [String])?>(nil)

    private var socketDirectory: Result<String, any Error>?
    private var databases = 0

    /// Creates an empty database, starting the server first if needed.
    /// - Returns: Its URL, `postgres://postgres@/NAME?host=SOCKET_DIRECTORY`.
    func createDatabase() throws -> String {
        let directory = try start()
        databases += 1
        let name = "store_test_\(databases)"
        let admin = try PostgresConnection(url: Self.url(database: "postgres", socketDirectory: directory))
        defer { admin.close() }
        try admin.execute("CREATE DATABASE \(name)")
        return Self.url(database: name, socketDirectory: directory)
    }

    /// The URL of `database` on the server listening in `socketDirectory`.
    static func url(database: String, socketDirectory: String) -> String {
        "postgres://postgres@/\(database)?host=\(socketDirectory)"
    }

    /// Starts the server once; its socket directory.
    func start() throws -> String {
        if let socketDirectory { return try socketDirectory.get() }
        let result = Result { try Self.launch() }
        socketDirectory = result
        return try result.get()
    }

    private static func launch() throws -> String {
        var template = Array("/tmp/motion-pg-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw LaunchError(message: "mkdtemp failed") }
        let root = String(cString: made)
        var runAs: [String] = []
        if geteuid() == 0 {
            guard let user = ["postgres", "nobody"].first(where: { getpwnam($0) != nil }), let entry = getpwnam(user)
            else { throw LaunchError(message: "no postgres or nobody user to run PostgreSQL as") }
            chown(root, entry.pointee.pw_uid, entry.pointee.pw_gid)
            runAs = ["/usr/sbin/runuser", "-u", user, "--"]
        }
        running.withLock { $0 = (root, runAs) }
        atexit { PostgresTestServer.stopAtExit() }
        let data = root + "/data"
        try run(
            runAs + [
                "\(binaries)/initdb", "-D", data, "-U", "postgres", "--auth=trust", "--encoding=UTF8",
                "--locale=C", "--no-sync",
            ])
        let settings = [
            "-k \(root)", "-c listen_addresses=''", "-c fsync=off", "-c synchronous_commit=off",
            "-c full_page_writes=off", "-c max_connections=500",
        ]
        try run(
            runAs + [
                "\(binaries)/pg_ctl", "-D", data, "-l", root + "/server.log", "-w", "-t", "60", "-o",
                settings.joined(separator: " "), "start",
            ])
        return root
    }

    /// Stops the server fast (`-m immediate`) and removes its directory.
    private static func stopAtExit() {
        guard let server = running.withLock({ $0 }) else { return }
        try? run(server.runAs + ["\(binaries)/pg_ctl", "-D", server.directory + "/data", "-m", "immediate", "stop"])
        try? FileManager.default.removeItem(atPath: server.directory)
    }

    /// Runs a command to its end; its output goes to a file, not a pipe, which the server it starts would hold open.
    private static func run(_ command: [String]) throws {
        let log = FileManager.default.temporaryDirectory.appendingPathComponent("motion-pg-\(UUID().uuidString).log")
        FileManager.default.createFile(atPath: log.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: log) }
        let output = try FileHandle(forWritingTo: log)
        defer { try? output.close() }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.standardOutput = output
        process.standardError = output
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
            throw LaunchError(message: "\(command.joined(separator: " ")) failed: \(text)")
        }
    }

    struct LaunchError: Error, CustomStringConvertible {
        let message: String
        var description: String { message }
    }
}
