import Basics
import Glibc
import HTTPServer
import MotionServer

/// Reads the options, starts the server, prints the ready line, and drains on SIGTERM or SIGINT (docs/protocol.md §7).
func runServer() async -> Int32 {
    let options: ServerOptions
    do {
        options = try ServerOptions.parse(
            arguments: Array(CommandLine.arguments.dropFirst()), environment: ProcessEnvironment.variables())
    } catch {
        Console.error("\(error)")
        return 2
    }
    // systemd's default soft limit of 1,024 descriptors would cap the server far below its connection bound.
    System.raiseOpenFileLimit()
    // A file size limit (RLIMIT_FSIZE) fails the store's write with EFBIG, as a full disk fails it with ENOSPC: the
    // summary is held and retried and `/readyz` says not ready, rather than the process being killed by SIGXFSZ.
    signal(SIGXFSZ, SIG_IGN)
    let termination = SignalWaiter()
    let server: MotionServer
    let address: SocketAddress
    do {
        server = try await MotionServer(options: options)
        address = try server.start()
    } catch {
        Console.error("motion-server: \(error)")
        return 1
    }
    let hangup = HangupSignal { [server] in server.reloadTLS() }
    Console.line("listening on \(server.scheme)://\(address)")
    await termination.wait()
    withExtendedLifetime(hangup) {}
    await server.shutdown()
    return 0
}

exit(await runServer())
