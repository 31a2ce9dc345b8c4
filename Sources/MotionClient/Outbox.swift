import MotionCore

/// The bounded queue of what a client sends, and keeps until the server confirms it (docs/protocol.md §3.1): pure
/// bookkeeping, no I/O. Entries are sent in order; a `checkpoint` removes those it covers; after a drop the kept
/// entries the server does not hold are sent again: the poses after `resumed.t`, the controls given at or after
/// the pose at it (a `reset` or `baseline` given twice at the same pose acts once), the motion samples after
/// `resumed.motionT`.
///
/// Full (``capacity``): the oldest entries are dropped to keep the newest, and ``append(_:)`` returns how many,
/// for the owner to report.
struct Outbox {
    /// One thing to send.
    enum Item: Sendable, Equatable {
        case pose(Pose)
        case motion([MotionSample])
        case reset
        case baseline
    }

    struct Entry: Equatable {
        var item: Item
        /// The t of the pose this entry is, or of the last pose queued before it (nil: none yet).
        var t: Double?
        var sent = false

        /// Whether the server holds this entry durably once it holds the poses up to `t`: a pose up to it, a
        /// control before it, motion samples all up to it.
        func isCovered(through checkpoint: Double) -> Bool {
            switch item {
            case .pose: t.map { $0 <= checkpoint } ?? true
            case .reset, .baseline: t.map { $0 < checkpoint } ?? true
            case .motion(let samples): samples.allSatisfy { $0.t <= checkpoint }
            }
        }
    }

    /// The most entries kept.
    let capacity: Int
    private(set) var entries: [Entry] = []
    /// The t of the last pose queued.
    private(set) var lastPoseTime: Double?

    init(capacity: Int) { self.capacity = max(1, capacity) }

    /// Queues an item.
    /// - Returns: How many of the oldest entries were dropped to make room, and the t of the last one dropped.
    mutating func append(_ item: Item) -> (dropped: Int, through: Double?) {
        if case .pose(let pose) = item { lastPoseTime = pose.timestamp }
        entries.append(Entry(item: item, t: lastPoseTime))
        let excess = entries.count - capacity
        guard excess > 0 else { return (0, nil) }
        let through = entries[excess - 1].t
        entries.removeFirst(excess)
        return (excess, through)
    }

    /// The entries not sent yet, in order, now marked sent.
    mutating func takeUnsent() -> [Item] {
        var items: [Item] = []
        for index in entries.indices where !entries[index].sent {
            items.append(entries[index].item)
            entries[index].sent = true
        }
        return items
    }

    /// Forgets the sent entries the server holds durably once it holds the poses up to `t` (`checkpoint`).
    mutating func acknowledge(through t: Double) {
        let count = entries.prefix { $0.sent && $0.isCovered(through: t) }.count
        entries.removeFirst(count)
    }

    /// After a `resumed` at `t` holding motion samples up to `motionT`: forgets what the server holds and marks
    /// every other entry to be sent again.
    /// - Parameters:
    ///   - t: The last pose the server holds; nil for none (every entry is sent again).
    ///   - motionT: The last motion sample the server holds; nil for none (every kept sample is sent again).
    /// - Returns: How many entries will be sent again.
    mutating func rewind(after t: Double?, motionAfter motionT: Double? = nil) -> Int {
        entries = entries.compactMap { entry in
            var entry = entry
            switch entry.item {
            case .pose, .reset, .baseline:
                if let t, entry.isCovered(through: t) { return nil }
            case .motion(let samples):
                guard let motionT else { break }
                let newer = samples.filter { $0.t > motionT }
                if newer.isEmpty { return nil }
                entry.item = .motion(newer)
            }
            return entry
        }
        var resent = 0
        for index in entries.indices {
            if entries[index].sent { resent += 1 }
            entries[index].sent = false
        }
        return resent
    }
}
