import Basics
import PostgresTestSupport
import Synchronization
import Testing

@testable import SessionStore

/// How a bus message is cut into notification payloads and put together again.
@Suite("Node bus message parts")
struct NodeMessagePartsTests {
    @Test func aShortMessageIsOnePart() {
        let parts = NodeMessageParts.split("release 01ABC tenant one", from: "aa", number: 7)
        #expect(parts == ["aa 7 0 1 release 01ABC tenant one"])
        var assembler = NodeMessageParts.Assembler()
        #expect(assembler.add(parts[0]) == PostgresNodeBus.Message(from: "aa", text: "release 01ABC tenant one"))
        #expect(NodeMessageParts.split("", from: "aa", number: 0) == ["aa 0 0 1 "])
    }

    @Test func aLongMessageIsCutBetweenCharactersAndPutTogether() throws {
        // Two- and four-byte characters across every cut.
        let text = String(repeating: "ángulo 😀 ", count: 3_000)
        let parts = NodeMessageParts.split(text, from: "node", number: 3)
        #expect(parts.count > 3)
        for part in parts { #expect(part.utf8.count <= NodeMessageParts.partBytes + 40) }
        var assembler = NodeMessageParts.Assembler()
        for part in parts.dropLast() { #expect(assembler.add(part) == nil) }
        #expect(assembler.add(try #require(parts.last)) == PostgresNodeBus.Message(from: "node", text: text))
        #expect(assembler.dropped == 0)
    }

    @Test func interleavedSendersArePutTogetherApart() throws {
        let first = NodeMessageParts.split(String(repeating: "a", count: 15_000), from: "x", number: 1)
        let second = NodeMessageParts.split(String(repeating: "b", count: 15_000), from: "y", number: 1)
        var assembler = NodeMessageParts.Assembler()
        var whole: [PostgresNodeBus.Message] = []
        for (a, b) in zip(first, second) {
            if let message = assembler.add(a) { whole.append(message) }
            if let message = assembler.add(b) { whole.append(message) }
        }
        #expect(whole.map(\.from) == ["x", "y"])
        #expect(whole.map(\.text.count) == [15_000, 15_000])
    }

    @Test(arguments: [
        "", "garbage", "a b c d", "a x 0 1 text", "a 1 y 1 text", "a 1 0 0 text", "a 1 1 1 text", "a 1 -1 2 text",
        " 1 0 1 text", "a 1 0 999999 text",
    ])
    func malformedPayloadsAreDropped(_ payload: String) {
        var assembler = NodeMessageParts.Assembler()
        #expect(assembler.add(payload) == nil)
        #expect(assembler.dropped == 1)
    }

    @Test func aMissingPartDropsItsMessage() {
        let parts = NodeMessageParts.split(String(repeating: "z", count: 20_000), from: "n", number: 9)
        var assembler = NodeMessageParts.Assembler()
        #expect(assembler.add(parts[0]) == nil)
        #expect(assembler.add(parts[2]) == nil, "part 1 never came")
        #expect(assembler.dropped == 1)
        // The next message goes through.
        #expect(assembler.add("n 10 0 1 next") == PostgresNodeBus.Message(from: "n", text: "next"))
    }
}

/// Nodes registering, heartbeating and talking through a real PostgreSQL server (``PostgresTestServer``).
// Needs Debian's `postgresql` package (PostgreSQL 15 server binaries); `make deps` installs it.
@Suite(.enabled(if: PostgresTestServer.isInstalled, "PostgreSQL server binaries missing: apt install postgresql"))
struct NodeBusTests {
    /// Messages a node received, in order.
    final class Inbox: Sendable {
        private let messages = Mutex<[PostgresNodeBus.Message]>([])
        func add(_ message: PostgresNodeBus.Message) { messages.withLock { $0.append(message) } }
        var all: [PostgresNodeBus.Message] { messages.withLock { $0 } }
    }

    /// Waits up to 20 s for `condition`, checking every 20 ms.
    static func eventually(_ condition: () async throws -> Bool) async rethrows -> Bool {
        let deadline = MonotonicClock.nanoseconds() + 20_000_000_000
        while MonotonicClock.nanoseconds() < deadline {
            if try await condition() { return true }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return try await condition()
    }

    static func bus(_ url: String, node: String, inbox: Inbox) throws -> PostgresNodeBus {
        var configuration = PostgresNodeBus.Configuration()
        configuration.heartbeatInterval = .milliseconds(200)
        return try PostgresNodeBus(url: url, node: node, name: "\(node):8080", configuration: configuration) {
            inbox.add($0)
        }
    }

    @Test func nodesRegisterTalkAndLeave() async throws {
        let url = try await PostgresTestServer.shared.createDatabase()
        var options = PostgresSessionStore.Configuration()
        options.node = "aaaa"
        let store = try await PostgresSessionStore(url: url, configuration: options)
        let (inboxA, inboxB) = (Inbox(), Inbox())
        let a = try Self.bus(url, node: "aaaa", inbox: inboxA)
        let b = try Self.bus(url, node: "bbbb", inbox: inboxB)
        let recent = { WallClock.milliseconds() - 5_000 }
        // The store counts its own node as alive, so a's registration is waited for too.
        #expect(await Self.eventually { a.isRegistered && b.isRegistered })
        #expect(try await Self.eventually { try await store.liveNodes(heartbeatSince: recent()) == ["aaaa", "bbbb"] })

        a.send("release 01 clinic", to: "bbbb")
        let long = String(repeating: "snapshot ñ ", count: 5_000)
        a.send(long, to: "bbbb")
        b.send("released 01", to: "aaaa")
        b.send("to nobody", to: "cccc")
        #expect(await Self.eventually { inboxB.all.count == 2 && inboxA.all.count == 1 })
        #expect(inboxB.all == [.init(from: "aaaa", text: "release 01 clinic"), .init(from: "aaaa", text: long)])
        #expect(inboxA.all == [.init(from: "bbbb", text: "released 01")])

        // A node whose heartbeat is too old is dead, whatever its lock.
        #expect(try await store.liveNodes(heartbeatSince: WallClock.milliseconds() + 60_000) == ["aaaa"])

        await b.stop()
        #expect(!b.isRegistered)
        #expect(try await store.liveNodes(heartbeatSince: recent()) == ["aaaa"], "a node that left is gone at once")
        await b.stop()
        await a.stop()
        await store.close()
    }

    @Test func aNodeWhoseConnectionDiesIsDeadUntilItRegistersAgain() async throws {
        let url = try await PostgresTestServer.shared.createDatabase()
        var options = PostgresSessionStore.Configuration()
        options.node = "watcher"
        let store = try await PostgresSessionStore(url: url, configuration: options)
        let inbox = Inbox()
        let bus = try Self.bus(url, node: "cafe", inbox: inbox)
        let recent = { WallClock.milliseconds() - 60_000 }
        #expect(try await Self.eventually { try await store.liveNodes(heartbeatSince: recent()).contains("cafe") })

        // The server ends the bus's connection (as when the network drops it): the bus connects again, takes a lock
        // again and listens again.
        let raw = try RawDatabase(url: url)
        defer { raw.close() }
        try raw.execute(
            """
            SELECT pg_terminate_backend(pid, 5000) FROM pg_locks
            WHERE locktype = 'advisory' AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
            """)
        #expect(try await Self.eventually { try await store.liveNodes(heartbeatSince: recent()).contains("cafe") })
        let sender = try Self.bus(url, node: "beef", inbox: Inbox())
        #expect(await Self.eventually { sender.isRegistered })
        sender.send("after the reconnection", to: "cafe")
        #expect(await Self.eventually { inbox.all.map(\.text) == ["after the reconnection"] })
        await sender.stop()
        await bus.stop()
        await store.close()
    }
}
