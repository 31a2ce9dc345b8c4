/// The resampled, gravity-free acceleration of the last seconds: a fixed-capacity ring of grid samples, allocated
/// once.
///
/// Grid sample `k` (counted from the grid's origin) is at `origin + k / rate` seconds.
struct MotionHistory: Sendable {
    let capacity: Int
    let rate: Double
    private var x: [Double]
    private var y: [Double]
    private var z: [Double]
    /// Time of grid index 0.
    private(set) var origin = 0.0
    /// Grid index one past the newest sample.
    private(set) var endIndex = 0
    /// Samples held.
    private(set) var count = 0

    init(capacity: Int, rate: Double) {
        self.capacity = max(1, capacity)
        self.rate = rate
        x = Array(repeating: 0, count: self.capacity)
        y = x
        z = x
    }

    /// Grid index of the oldest sample held.
    var startIndex: Int { endIndex - count }

    /// Forgets every sample and starts a grid at `origin`.
    mutating func restart(at origin: Double) {
        self.origin = origin
        endIndex = 0
        count = 0
    }

    /// Time of grid index `k`.
    func time(_ k: Int) -> Double { origin + Double(k) / rate }

    /// Appends the next grid sample, dropping the oldest when full.
    mutating func append(_ value: (x: Double, y: Double, z: Double)) {
        let slot = endIndex % capacity
        x[slot] = value.x
        y[slot] = value.y
        z[slot] = value.z
        endIndex += 1
        count = min(count + 1, capacity)
    }

    /// Grid sample `k`, which must be held.
    subscript(k: Int) -> (x: Double, y: Double, z: Double) {
        let slot = k % capacity
        return (x[slot], y[slot], z[slot])
    }

    /// Component `axis` (0, 1, 2) of grid sample `k`.
    func component(_ axis: Int, _ k: Int) -> Double {
        let slot = k % capacity
        return axis == 0 ? x[slot] : axis == 1 ? y[slot] : z[slot]
    }

    /// The grid indices held whose times lie in `start...end`.
    func indices(from start: Double, to end: Double) -> Range<Int> {
        guard count > 0, start <= end else { return startIndex..<startIndex }
        let first = ((start - origin) * rate - 1e-9).rounded(.up)
        let last = ((end - origin) * rate + 1e-9).rounded(.down)
        let lower = first < Double(startIndex) ? startIndex : first > Double(endIndex) ? endIndex : Int(first)
        let upper = last >= Double(endIndex - 1) ? endIndex : last < Double(lower) ? lower : Int(last) + 1
        return lower..<max(lower, upper)
    }
}
