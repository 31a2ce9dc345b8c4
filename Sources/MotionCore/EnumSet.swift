/// A small vocabulary whose cases are numbered `0..<32`, so sets of them fit in a bit mask.
public protocol BitIndexed: Hashable, Sendable {
    /// The case's number, `0..<32`, stable within a build.
    var bitIndex: Int { get }
    /// The case numbered `bitIndex`, or nil.
    /// - Parameter bitIndex: The number.
    init?(bitIndex: Int)
}

/// A set of ``BitIndexed`` values stored as a bit mask: no allocation, constant-time membership.
///
/// Iterates in the vocabulary's order (for joints, wire order of docs/protocol.md §1).
public struct EnumSet<Element: BitIndexed>: SetAlgebra, Sendable, Hashable {
    /// The bits, one per member at its ``BitIndexed/bitIndex``.
    public var rawValue: UInt32

    /// Creates a set from its bit mask.
    /// - Parameter rawValue: The mask.
    @inlinable
    public init(rawValue: UInt32) { self.rawValue = rawValue }

    /// Creates an empty set.
    @inlinable
    public init() { rawValue = 0 }

    /// Creates a set from any sequence of members.
    /// - Parameter members: The members.
    @inlinable
    public init(_ members: some Sequence<Element>) {
        rawValue = 0
        for member in members { rawValue |= Self.bit(member) }
    }

    @inlinable @inline(__always) static func bit(_ member: Element) -> UInt32 { 1 << UInt32(member.bitIndex) }

    /// Whether `member` is in the set.
    /// - Parameter member: The value to look for.
    @inlinable
    public func contains(_ member: Element) -> Bool { rawValue & Self.bit(member) != 0 }

    /// Whether the set has no members.
    @inlinable
    public var isEmpty: Bool { rawValue == 0 }

    /// The number of members.
    @inlinable
    public var count: Int { rawValue.nonzeroBitCount }

    /// The members of either set.
    /// - Parameter other: The other set.
    @inlinable
    public func union(_ other: Self) -> Self { Self(rawValue: rawValue | other.rawValue) }

    /// The members of both sets.
    /// - Parameter other: The other set.
    @inlinable
    public func intersection(_ other: Self) -> Self { Self(rawValue: rawValue & other.rawValue) }

    /// The members of exactly one of the sets.
    /// - Parameter other: The other set.
    @inlinable
    public func symmetricDifference(_ other: Self) -> Self { Self(rawValue: rawValue ^ other.rawValue) }

    /// The members of `self` that are not in `other`.
    /// - Parameter other: The set to take away.
    @inlinable
    public func subtracting(_ other: Self) -> Self { Self(rawValue: rawValue & ~other.rawValue) }

    /// Adds `member`.
    /// - Parameter member: The value to add.
    /// - Returns: Whether it was new, and the member.
    @discardableResult
    @inlinable
    public mutating func insert(_ member: Element) -> (inserted: Bool, memberAfterInsert: Element) {
        let inserted = !contains(member)
        rawValue |= Self.bit(member)
        return (inserted, member)
    }

    /// Removes `member`.
    /// - Parameter member: The value to remove.
    /// - Returns: The value if it was a member.
    @discardableResult
    @inlinable
    public mutating func remove(_ member: Element) -> Element? {
        guard contains(member) else { return nil }
        rawValue &= ~Self.bit(member)
        return member
    }

    /// Adds `member`.
    /// - Parameter member: The value to add.
    /// - Returns: The value if it was already a member.
    @discardableResult
    @inlinable
    public mutating func update(with member: Element) -> Element? { insert(member).inserted ? nil : member }

    /// Adds the members of `other`.
    /// - Parameter other: The other set.
    @inlinable
    public mutating func formUnion(_ other: Self) { rawValue |= other.rawValue }

    /// Keeps only the members also in `other`.
    /// - Parameter other: The other set.
    @inlinable
    public mutating func formIntersection(_ other: Self) { rawValue &= other.rawValue }

    /// Keeps the members in exactly one of the sets.
    /// - Parameter other: The other set.
    @inlinable
    public mutating func formSymmetricDifference(_ other: Self) { rawValue ^= other.rawValue }
}

extension EnumSet: Sequence {
    /// Iterates the members in vocabulary order.
    public struct Iterator: IteratorProtocol {
        @usableFromInline var remaining: UInt32

        @inlinable init(remaining: UInt32) { self.remaining = remaining }

        /// The next member, or nil at the end.
        @inlinable
        public mutating func next() -> Element? {
            while remaining != 0 {
                let index = remaining.trailingZeroBitCount
                remaining &= remaining - 1
                if let member = Element(bitIndex: index) { return member }
            }
            return nil
        }
    }

    /// An iterator over the members in vocabulary order.
    @inlinable
    public func makeIterator() -> Iterator { Iterator(remaining: rawValue) }

    /// The number of members, so `Array(set)` reserves exactly.
    @inlinable
    public var underestimatedCount: Int { count }
}

extension EnumSet: ExpressibleByArrayLiteral {
    /// Creates a set from a literal list of members.
    /// - Parameter elements: The members.
    @inlinable public init(arrayLiteral elements: Element...) { self.init(elements) }
}

extension EnumSet: CustomStringConvertible where Element: RawRepresentable<String> {
    /// The members' raw values, e.g. `[rightElbow, rightWrist]`.
    public var description: String { "[" + map(\.rawValue).joined(separator: ", ") + "]" }
}

extension EnumSet: Codable where Element: Codable {
    /// Decodes the set from an array of members.
    /// - Parameter decoder: The decoder.
    /// - Throws: What decoding the array throws.
    public init(from decoder: any Decoder) throws { self.init(try [Element](from: decoder)) }

    /// Encodes the set as an array of members in vocabulary order.
    /// - Parameter encoder: The encoder.
    /// - Throws: What encoding the array throws.
    public func encode(to encoder: any Encoder) throws { try Array(self).encode(to: encoder) }
}

/// A set of joints.
public typealias JointSet = EnumSet<Joint>

extension Joint: BitIndexed {
    /// The joint's wire-order position.
    public var bitIndex: Int { index }

    /// The joint at a wire-order position.
    /// - Parameter bitIndex: The position.
    public init?(bitIndex: Int) { self.init(index: bitIndex) }
}
