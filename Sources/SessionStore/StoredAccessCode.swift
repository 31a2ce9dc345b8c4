/// A patient code (docs/protocol.md §6.1): a credential limited to one subject of a tenant. The store keeps the
/// SHA-256 of the code, never the code.
public struct StoredAccessCode: Sendable, Hashable {
    /// The code's id (server-made), by which it is listed and revoked.
    public var id: String
    /// The tenant it belongs to.
    public var tenant: String
    /// The one subject it reaches.
    public var subject: String
    /// The SHA-256 of the code.
    public var digest: [UInt8]
    /// When it was made, Unix milliseconds.
    public var createdAt: Int64
    /// When it stops working, Unix milliseconds.
    public var expiresAt: Int64
    /// When it was revoked, Unix milliseconds; nil while it works.
    public var revokedAt: Int64?

    /// Creates a record.
    /// - Parameters:
    ///   - id: The code's id.
    ///   - tenant: Its tenant.
    ///   - subject: Its subject.
    ///   - digest: The code's SHA-256.
    ///   - createdAt: When it was made.
    ///   - expiresAt: When it expires.
    ///   - revokedAt: When it was revoked.
    public init(
        id: String, tenant: String, subject: String, digest: [UInt8], createdAt: Int64, expiresAt: Int64,
        revokedAt: Int64? = nil
    ) {
        self.id = id
        self.tenant = tenant
        self.subject = subject
        self.digest = digest
        self.createdAt = createdAt
        self.expiresAt = expiresAt
        self.revokedAt = revokedAt
    }
}

extension SessionRows {
    /// The `access_codes` columns ``accessCode(from:)`` reads, in order.
    static let accessCodeColumns = "id, tenant, subject, digest, created_at, expires_at, revoked_at"

    /// A row of ``accessCodeColumns``.
    static func accessCode(from row: some StoreRow) -> StoredAccessCode {
        StoredAccessCode(
            id: row.string(0), tenant: row.string(1), subject: row.string(2), digest: row.blob(3),
            createdAt: row.int64(4), expiresAt: row.int64(5), revokedAt: row.optionalInt64(6))
    }
}
