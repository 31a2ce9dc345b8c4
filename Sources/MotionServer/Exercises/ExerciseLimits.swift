/// Limits of tenants' custom exercises (docs/protocol.md §5.1). Every field has a safe default.
public struct ExerciseLimits: Sendable, Equatable {
    /// The largest definition accepted by `POST` and `PUT /v1/exercises`, in bytes (`413 messageTooBig` beyond).
    /// The largest catalog entry, with its rules, is under 2 KiB.
    public var maxDefinitionBytes = 16 << 10
    /// Current custom exercises per tenant; a `POST` beyond is refused with `409 tooManyExercises` (deleted
    /// exercises do not count).
    public var maxExercisesPerTenant = 200
    /// Stored versions per tenant, of every custom exercise, deleted ones included (stored sessions may name them);
    /// a save beyond is refused with `409 tooManyVersions`. With ``maxDefinitionBytes`` it bounds what one tenant
    /// can store: 10,000 × 16 KiB = 160 MiB at worst, about 20 MiB for definitions of a usual size.
    public var maxVersionsPerTenant = 10_000

    /// Creates the defaults.
    public init() {}
}
