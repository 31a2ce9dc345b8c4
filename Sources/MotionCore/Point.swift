/// A position in image pixels, origin top-left, y growing downwards (docs/protocol.md §2).
public struct Point: Sendable, Hashable, Codable {
    /// Horizontal position in pixels.
    public var x: Double
    /// Vertical position in pixels, growing downwards.
    public var y: Double

    /// Creates a point.
    /// - Parameters:
    ///   - x: Horizontal position in pixels.
    ///   - y: Vertical position in pixels, growing downwards.
    public init(x: Double, y: Double) {
        self.x = x
        self.y = y
    }

    /// The point halfway between `self` and `other`.
    /// - Parameter other: The other end.
    public func midpoint(to other: Point) -> Point {
        Point(x: (x + other.x) / 2, y: (y + other.y) / 2)
    }

    /// The Euclidean distance to `other`.
    /// - Parameter other: The other point.
    public func distance(to other: Point) -> Double {
        ((other.x - x) * (other.x - x) + (other.y - y) * (other.y - y)).squareRoot()
    }

    /// Whether both coordinates are finite numbers.
    public var isFinite: Bool { x.isFinite && y.isFinite }
}

/// The size of the camera image a pose was detected in, in pixels.
public struct ImageSize: Sendable, Hashable, Codable {
    /// Width in pixels.
    public var width: Double
    /// Height in pixels.
    public var height: Double

    /// Creates an image size.
    /// - Parameters:
    ///   - width: Width in pixels.
    ///   - height: Height in pixels.
    public init(width: Double, height: Double) {
        self.width = width
        self.height = height
    }
}
