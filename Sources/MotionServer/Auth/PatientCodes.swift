import Basics
import HTTPWire
import SessionStore

/// The patient codes this node knows (docs/protocol.md §6.1), by the SHA-256 of the code: what ``Authentication``
/// resolves a presented code with, without a store round trip.
///
/// Loaded from the store at start, then kept up to date with the codes made and revoked through this node and, on a
/// shared database, read again every few seconds for those of the other nodes. A revoked code stays here, so that it is refused (not mistaken for an unknown token) also on a server without
/// tokens. The code itself is never kept: a presented code is hashed and its digest looked up, so neither the table
/// nor the time a lookup takes says anything about other codes.
final class PatientCodes: Sendable {
    /// What a code grants.
    struct Entry: Equatable {
        var id: String
        var tenant: String
        var subject: String
        var expiresAt: Int64
        var revoked: Bool
    }

    /// What a presented code turned out to be.
    enum Lookup: Equatable {
        /// No code of this node: an ordinary token, or nothing.
        case unknown
        /// A code that expired or was revoked.
        case refused
        /// A working code, and the caller it makes.
        case patient(Caller)
    }

    private let entries = Locked<[[UInt8]: Entry]>([:])

    /// Fills the table with the store's codes, or brings it up to date with them; a code stays known once known.
    /// - Returns: The ids of the codes that were working here and are revoked in `codes`, whose live sessions on this
    ///   node are to be closed.
    @discardableResult
    func load(_ codes: [StoredAccessCode]) -> [String] {
        entries.withLock { entries in
            var revoked: [String] = []
            for code in codes {
                let entry = Self.entry(code)
                if entry.revoked, let known = entries[code.digest], !known.revoked { revoked.append(entry.id) }
                entries[code.digest] = entry
            }
            return revoked
        }
    }

    /// Adds a code made (or revoked) through this node.
    func stored(_ code: StoredAccessCode) {
        entries.withLock { $0[code.digest] = Self.entry(code) }
    }

    /// What `token` is at `now` (Unix milliseconds).
    func lookup(_ token: String, now: Int64) -> Lookup {
        // A code is 43 base64url characters; other tokens are not hashed for nothing.
        guard token.utf8.count == PatientCodes.codeLength else { return .unknown }
        let digest = SHA256.hash(Array(token.utf8))
        guard let entry = entries.withLock({ $0[digest] }) else { return .unknown }
        guard !entry.revoked, now < entry.expiresAt else { return .refused }
        return .patient(Caller(tenant: entry.tenant, role: .tenant, subject: entry.subject, codeID: entry.id))
    }

    /// The length of a code: 32 random bytes in base64url, 43 characters.
    static let codeLength = 43

    private static func entry(_ code: StoredAccessCode) -> Entry {
        Entry(
            id: code.id, tenant: code.tenant, subject: code.subject, expiresAt: code.expiresAt,
            revoked: code.revokedAt != nil)
    }
}
