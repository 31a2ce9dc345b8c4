/// One `name=value` pair of a request query, percent-decoded with `+` read as a space.
public struct HTTPQueryItem: Sendable, Hashable {
    /// The decoded name.
    public var name: String
    /// The decoded value; empty when the pair had no `=`.
    public var value: String

    /// Creates a query item.
    ///
    /// - Parameters:
    ///   - name: The decoded name.
    ///   - value: The decoded value.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}
