/// The programme item a session was started for (docs/protocol.md §5.3): the programme, the version whose item
/// applied, and the item's id.
public struct ProgrammeLink: Sendable, Hashable {
    /// The programme's id.
    public var id: String
    /// The programme version the session started from (0 while a `start` has not been resolved yet).
    public var version: Int
    /// The item's id within the programme.
    public var item: String

    /// Creates a link.
    /// - Parameters:
    ///   - id: The programme's id.
    ///   - version: The programme version.
    ///   - item: The item's id.
    public init(id: String, version: Int = 0, item: String) {
        self.id = id
        self.version = version
        self.item = item
    }
}
