import Basics
import Synchronization

/// Which accepted connections the server keeps: at most ``limit`` open in all and ``perHost`` from one client
/// address, each counted from its accept until its close, through a TLS handshake and an upgrade alike.
///
/// A refused connection is answered and closed at once (``Listener``), so a client at a bound gets a clear answer
/// instead of a hang, and one client re-opening connections as fast as it can holds ``perHost`` slots at most.
final class ConnectionAdmission: Sendable {
    /// Why a connection was refused.
    enum Refusal: Equatable {
        /// ``limit`` connections are open.
        case full
        /// ``perHost`` connections from this client's address are open.
        case host
    }

    /// The open connections the server keeps at most.
    let limit: Int
    /// The open connections one client address keeps at most; 0 sets no such bound.
    let perHost: Int
    private let open = Atomic<Int>(0)
    /// Connections open per client address. A `Locked` (a pthread mutex, which ThreadSanitizer follows): the loops
    /// admit and release from their own threads.
    private let hosts = Locked<[SocketAddress.Host: Int]>([:])

    /// Bounds of `limit` in all and `perHost` per client address (0: none).
    init(limit: Int, perHost: Int) {
        self.limit = limit
        self.perHost = perHost
    }

    /// The open connections now.
    var count: Int { open.load(ordering: .relaxed) }

    /// Counts a new connection from `peer` unless a bound is reached.
    /// - Returns: Its slot, to give back with ``release(_:)`` when it closes; or why it was refused.
    func admit(_ peer: SocketAddress?) -> Result<Slot, RefusalError> {
        guard open.add(1, ordering: .relaxed).newValue <= limit else {
            open.subtract(1, ordering: .relaxed)
            return .failure(RefusalError(reason: .full))
        }
        guard perHost > 0, let host = peer?.hostKey else { return .success(Slot(host: nil)) }
        let admitted = hosts.withLock { hosts in
            let count = hosts[host, default: 0]
            guard count < perHost else { return false }
            hosts[host] = count + 1
            return true
        }
        guard admitted else {
            open.subtract(1, ordering: .relaxed)
            return .failure(RefusalError(reason: .host))
        }
        return .success(Slot(host: host))
    }

    /// A closed connection gives its slot back.
    func release(_ slot: Slot) {
        open.subtract(1, ordering: .relaxed)
        guard let host = slot.host else { return }
        hosts.withLock { hosts in
            let count = hosts[host, default: 1] - 1
            hosts[host] = count > 0 ? count : nil
        }
    }

    /// What an admitted connection holds until it closes.
    struct Slot: Sendable {
        /// The client address counted, when ``perHost`` bounds it.
        let host: SocketAddress.Host?
    }

    /// A refusal, as an error of ``admit(_:)``'s result.
    struct RefusalError: Error {
        let reason: Refusal
    }
}
