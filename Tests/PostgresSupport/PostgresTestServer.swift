import Foundation
import Glibc
import Synchronization

/// A PostgreSQL 15 server of the tests' own: `initdb` into a temporary directory and `pg_ctl start` on a Unix socket
/// there, no TCP; started by the first test that needs it, stopped when the test process exits. Each test gets a
/// database of its own (``createDatabase()``).
///
/// PostgreSQL refuses to run as root: under root (CI) the server runs as the `postgres` user (else `nobody`)
/// through `runuser`, in a directory that user owns; the tests, as root, still reach its socket.
public actor PostgresTestServer {
    /// Debian's `postgresql-15` binaries (package `postgresql`).
    public static let binaries = "/usr/lib/postgresql/15/bin"

    /// Whether the server binaries are installed.
    public static var isInstalled: Bool {
        ["initdb", "pg_ctl", "postgres"].allSatisfy {
            FileManager.default.isExecutableFile(atPath: "\(binaries)/\($0)")
        }
    }

    /// The one server of the test process.
    public static let shared = PostgresTestServer()

    /// What the exit handler stops and removes: the data directory and the command prefix that runs as its owner.
    private static let running = Mutex<(directory: String, runAs: [String])?>(nil)

    private var socketDirectory: Result<String, any Error>?
    private var databases = 0

    /// Creates an empty database, starting the server first if needed.
    /// - Returns: Its URL, `postgres://postgres@/NAME?host=SOCKET_DIRECTORY`.
    /// - Throws: When the server cannot be started or the database created.
    public func createDatabase() throws -> String {
        let directory = try start()
        databases += 1
        let name = "store_test_\(databases)"
        try Self.run(Self.runAs + ["\(Self.binaries)/createdb", "-h", directory, "-U", "postgres", name])
        return Self.url(database: name, socketDirectory: directory)
    }

    /// The URL of `database` on the server listening in `socketDirectory`.
    public static func url(database: String, socketDirectory: String) -> String {
        "postgres://postgres@/\(database)?host=\(socketDirectory)"
    }

    /// Starts the server once; its socket directory.
    public func start() throws -> String {
        if let socketDirectory { return try socketDirectory.get() }
        let result = Result { try Self.launch() }
        socketDirectory = result
        return try result.get()
    }

    /// Under root, the user the server runs as: `postgres`, else `nobody`.
    private static var serverUser: String? {
        let users: [String] = ["postgres", "nobody"]
        return users.first { getpwnam($0) != nil }
    }

    /// The prefix that runs a command as the server's user (nothing unless root).
    private static var runAs: [String] {
        guard geteuid() == 0, let user = serverUser else { return [] }
        return ["/usr/sbin/runuser", "-u", user, "--"]
    }

    private static func launch() throws -> String {
        var template = Array("/tmp/motion-pg-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw LaunchError(message: "mkdtemp failed") }
        let root = String(cString: made)
        if geteuid() == 0 {
            guard let user = serverUser, let entry = getpwnam(user) else {
                throw LaunchError(message: "no postgres or nobody user to run PostgreSQL as")
            }
            chown(root, entry.pointee.pw_uid, entry.pointee.pw_gid)
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

    /// Runs a command to its end, its output in a file. Spawned directly rather than with Foundation's `Process`,
    /// whose wait for the end also waits for every process that inherited its descriptors: the server `pg_ctl`
    /// leaves running.
    private static func run(_ command: [String]) throws {
        let log = "/tmp/motion-pg-command-\(getpid())-\(UUID().uuidString).log"
        defer { unlink(log) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let environment = ProcessInfo.processInfo.environment.map { "\($0.key)=\($0.value)" }
        let argv: [UnsafeMutablePointer<CChar>?] = command.map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup($0) } + [nil]
        defer { for pointer in argv + envp { free(pointer) } }
        var pid = pid_t()
        let spawned = posix_spawn(&pid, command[0], &actions, nil, argv, envp)
        guard spawned == 0 else { throw LaunchError(message: "cannot run \(command[0]): error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        // WIFEXITED and WEXITSTATUS, which are macros: exited normally, with status 0.
        guard status & 0x7F == 0, (status >> 8) & 0xFF == 0 else {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw LaunchError(message: "\(command.joined(separator: " ")) failed (\(status)): \(text)")
        }
    }

    /// Why the server could not be started.
    public struct LaunchError: Error, CustomStringConvertible {
        let message: String
        /// What failed, with the command's output.
        public var description: String { message }
    }
}
