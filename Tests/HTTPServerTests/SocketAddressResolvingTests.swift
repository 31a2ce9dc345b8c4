import Glibc
import HTTPServer
import Testing
import WebSocketClient

/// Host names for clients (``SocketAddress/resolve(host:port:)``): numeric forms as they are, other names through
/// the system's resolver, and a WebSocket client that connects by name.
@Suite("resolving host names")
struct SocketAddressResolvingTests {
    @Test func numericHostsNeedNoLookup() async throws {
        #expect(
            try await SocketAddress.resolve(host: "127.0.0.1", port: 80) == [
                try SocketAddress(host: "127.0.0.1", port: 80)
            ])
        #expect(try await SocketAddress.resolve(host: "[::1]", port: 443).map(\.description) == ["[::1]:443"])
        #expect(try await SocketAddress.resolve(host: "localhost", port: 8080).map(\.description) == ["127.0.0.1:8080"])
    }

    /// `127.1` and `0x7f.1` are not what `inet_pton` reads: the system resolver does, with no network.
    @Test(arguments: ["127.1", "0x7f.0.0.1", "2130706433"])
    func otherFormsGoThroughTheResolver(host: String) async throws {
        #expect(try await SocketAddress.resolve(host: host, port: 9).map(\.description) == ["127.0.0.1:9"])
    }

    @Test func theClientConnectsByAResolvedName() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        try await withServer(router: echoRouter()) { address, _ in
            let socket = try await WebSocketClient.connect(
                host: "127.1", port: address.port, path: "/echo", on: group.next())
            let inbox = Inbox()
            await inbox.attach(to: socket)
            socket.send(.text("by name"))
            await inbox.wait { !$0.messages.isEmpty }
            #expect(inbox.messages == [.text("by name")])
            socket.close(code: .normal, reason: "")
        }
    }
    /// Runs `body` with an address that refuses connections: a socket bound to a port the system gave and never
    /// listening (a connection attempt is reset), kept bound while `body` runs so that no other server takes the
    /// port (a port closed again could be given to a test running beside this one).
    static func withRefusingAddress(_ body: (SocketAddress) async throws -> Void) async throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        try #require(fd >= 0)
        defer { Glibc.close(fd) }
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr("127.0.0.1")
        let bound = withUnsafePointer(to: &local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        try #require(bound == 0)
        try await body(try #require(Socket.localAddress(fd)))
    }

    /// A name's addresses are tried in order until one takes the connection (a server on only one of a name's
    /// IPv6 and IPv4 addresses); a handshake refused once connected is final.
    @Test func theClientTriesTheNextAddressOnlyWhenOneRefusesTheConnection() async throws {
        let group = try EventLoopGroup(loops: 1)
        defer { group.shutdown() }
        try await Self.withRefusingAddress { refusing in try await Self.tryAddresses(refusing: refusing, group: group) }
    }

    private static func tryAddresses(refusing: SocketAddress, group: EventLoopGroup) async throws {
        try await withServer(router: echoRouter()) { echo, _ in
            let socket = try await WebSocketClient.connect(
                to: [refusing, echo], host: "127.0.0.1", path: "/echo", on: group.next())
            let inbox = Inbox()
            await inbox.attach(to: socket)
            socket.send(.text("second address"))
            await inbox.wait { !$0.messages.isEmpty }
            #expect(inbox.messages == [.text("second address")])
            socket.close(code: .normal, reason: "")

            // Nothing takes it: the last address's failure.
            do throws(WebSocketClient.ConnectError) {
                _ = try await WebSocketClient.connect(to: [refusing], host: "127.0.0.1", on: group.next())
                Issue.record("connected to a closed port")
            } catch {
                if case .system(let system) = error {
                    #expect(system.call.hasPrefix("connect") && system.code == ECONNREFUSED, "\(system)")
                } else {
                    Issue.record("\(error)")
                }
            }

            // The echo server has no /other and refuses the handshake; the next server, which has it, is not tried.
            var router = Router()
            router.webSocket("/other") { _ in }
            try await withServer(router: router) { other, _ in
                do throws(WebSocketClient.ConnectError) {
                    _ = try await WebSocketClient.connect(
                        to: [echo, other], host: "127.0.0.1", path: "/other", on: group.next())
                    Issue.record("the handshake went to the next address")
                } catch {
                    if case .handshakeRefused(let status, _) = error {
                        #expect(status == 404)
                    } else {
                        Issue.record("\(error)")
                    }
                }
            }
        }
    }
}
