/// An ordered list of header fields with case-insensitive name lookup (RFC 9110 §5).
///
/// Names and values are stored as received (values with surrounding whitespace trimmed). Repeated names are kept
/// as separate entries, in order. Parsed values are decoded as UTF-8; obs-text bytes that are not valid UTF-8 are
/// replaced with U+FFFD.
public struct HTTPHeaders: Sendable, Equatable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    /// One field: its name as written and its value.
    public typealias Element = (name: String, value: String)

    private var fields: [Element]

    /// Creates an empty header list.
    public init() {
        fields = []
    }

    /// Creates an empty header list with room for `capacity` fields, so that adding up to that many allocates once.
    ///
    /// - Parameter capacity: The fields it will hold without growing.
    public init(minimumCapacity capacity: Int) {
        fields = []
        fields.reserveCapacity(capacity)
    }

    /// Creates a header list from name/value pairs, preserving their order.
    ///
    /// - Parameter fields: The fields in order; duplicate names are allowed.
    public init(_ fields: [(String, String)]) {
        self.fields = fields.map { (name: $0.0, value: $0.1) }
    }

    /// Creates a header list from a literal such as `["Content-Type": "text/plain"]`.
    ///
    /// - Parameter elements: The fields in order.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The index of the first field.
    public var startIndex: Int { fields.startIndex }

    /// The index past the last field.
    public var endIndex: Int { fields.endIndex }

    /// Accesses the field at `position`.
    ///
    /// - Parameter position: A valid index.
    /// - Returns: The field.
    public subscript(position: Int) -> Element {
        fields[position]
    }

    /// The first value for `name` (case-insensitive), or `nil`.
    ///
    /// - Parameter name: The field name.
    /// - Returns: The first matching value.
    public subscript(name: String) -> String? {
        fields.first { ASCII.equalsIgnoringCase($0.name.utf8, name.utf8) }?.value
    }

    /// Appends a field.
    ///
    /// - Parameters:
    ///   - name: The field name.
    ///   - value: The field value.
    public mutating func add(name: String, value: String) {
        fields.append((name: name, value: value))
    }

    /// Removes every field called `name` and appends one with `value`.
    ///
    /// - Parameters:
    ///   - name: The field name (case-insensitive for removal).
    ///   - value: The new value.
    public mutating func replaceOrAdd(name: String, value: String) {
        remove(name: name)
        add(name: name, value: value)
    }

    /// Removes every field called `name` (case-insensitive).
    ///
    /// - Parameter name: The field name.
    public mutating func remove(name: String) {
        fields.removeAll { ASCII.equalsIgnoringCase($0.name.utf8, name.utf8) }
    }

    /// Whether at least one field called `name` exists (case-insensitive).
    ///
    /// - Parameter name: The field name.
    /// - Returns: `true` when present.
    public func contains(name: String) -> Bool {
        fields.contains { ASCII.equalsIgnoringCase($0.name.utf8, name.utf8) }
    }

    /// All values of the fields called `name` (case-insensitive), in order.
    ///
    /// - Parameter name: The field name.
    /// - Returns: The values; empty when absent.
    public func values(for name: String) -> [String] {
        fields.compactMap { ASCII.equalsIgnoringCase($0.name.utf8, name.utf8) ? $0.value : nil }
    }

    /// The comma-separated list elements of every `name` field, OWS-trimmed, empty elements dropped
    /// (RFC 9110 §5.6.1).
    ///
    /// - Parameter name: The field name, e.g. `"Connection"`.
    /// - Returns: The elements in order, e.g. `["keep-alive", "Upgrade"]`.
    public func tokens(in name: String) -> [String] {
        values(for: name).flatMap { ASCII.listElements($0).map { String(Substring($0)) } }
    }

    /// Whether the comma-separated list in the `name` fields contains `token` (case-insensitive), as used for
    /// `Connection: keep-alive, Upgrade`.
    ///
    /// - Parameters:
    ///   - token: The token to look for, e.g. `"upgrade"`.
    ///   - name: The field name, e.g. `"Connection"`.
    /// - Returns: `true` when an element matches.
    public func contains(token: String, in name: String) -> Bool {
        for field in fields where ASCII.equalsIgnoringCase(field.name.utf8, name.utf8) {
            for element in ASCII.listElements(field.value) where ASCII.equalsIgnoringCase(element, token.utf8) {
                return true
            }
        }
        return false
    }

    /// Compares names and values exactly and in order.
    ///
    /// - Parameters:
    ///   - lhs: A header list.
    ///   - rhs: Another header list.
    /// - Returns: `true` when both hold the same fields in the same order.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.elementsEqual(rhs.fields) { $0.name == $1.name && $0.value == $1.value }
    }
}
