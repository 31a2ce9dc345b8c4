import HTTPServer
import Testing

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
}
