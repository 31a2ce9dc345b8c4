import HTTPServer

/// Who a request runs as: what ``Authentication`` resolved from its token. It is attached to the request
/// (`request.context[Caller.self]`, the type is its own key) and handed typed to every handler of ``CallerRoutes``.
struct Caller: Sendable, Equatable, RequestContextKey {
    typealias Value = Caller

    /// What a caller may see beyond its own tenant's data.
    enum Role: Sendable, Equatable {
        /// A tenant's client: its own sessions and exercises.
        case tenant
        /// Also the operations endpoints that show every tenant's figures (`/metrics`): a token marked `operator`,
        /// and every request of a server without tokens.
        case `operator`
    }

    /// The tenant whose sessions and exercises the request sees (never empty; `default` without tokens).
    let tenant: String
    /// What the token grants beyond the tenant's data.
    let role: Role
    /// For a patient code (docs/protocol.md §6.1): the one subject whose data it reaches; nil for a tenant's token.
    var subject: String? = nil
    /// For a patient code: the code's id, by which its live sessions are closed when it is revoked.
    var codeID: String? = nil

    /// Whether the caller holds a patient code: limited to ``subject`` as each route states (``PatientAccess``).
    var isPatient: Bool { subject != nil }

    /// Whether the caller may see data of `subject`: any of the tenant's for a tenant's token, only its own for a
    /// patient code.
    func reaches(subject other: String?) -> Bool { subject == nil || subject == other }
}

extension Caller {
    /// The caller a token's grant makes.
    init(_ grant: TokenTable.Grant) {
        self.init(tenant: grant.tenant, role: grant.isOperator ? .operator : .tenant)
    }
}
