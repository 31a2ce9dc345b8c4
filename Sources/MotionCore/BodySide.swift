/// A side of the body, anatomical: the patient's own left or right.
public enum BodySide: String, Sendable, Hashable, CaseIterable, Codable {
    case left
    case right

    /// The other side.
    public var opposite: BodySide { self == .left ? .right : .left }
}
