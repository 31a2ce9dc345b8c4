import MotionCore

/// The bounded queue of what a client sends, and keeps until the server confirms it (PROTOCOL.md §3.1): pure
/// bookkeeping, no I/O. Entries are sent in order; a `checkpoint` removes those it covers; after a drop the kept
/// entries after the `resumed` t are sent again.
///
/// Full (``capacity``): the oldest entries are dropped to keep the newest, and ``append(_:)`` returns how many,
/// for the owner to report. Motion samples are sent once and not kept (the server's motion stream refuses
/// samples it already has).
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

    /// The entries not sent yet, in order, now marked sent; sent motion batches are forgotten.
    mutating func takeUnsent() -> [Item] {
        var items: [Item] = []
        for index in entries.indices where !entries[index].sent {
            items.append(entries[index].item)
            entries[index].sent = true
        }
        entries.removeAll { entry in
            if case .motion = entry.item { return entry.sent }
            return false
        }
        return items
    }

    /// Forgets the sent entries up to the pose at `t`, which the server holds durably (`checkpoint`).
    mutating func acknowledge(through t: Double) {
        let count = entries.prefix { $0.sent && ($0.t.map { $0 <= t } ?? true) }.count
        entries.removeFirst(count)
    }

    /// After a `resumed` at `t`: forgets what the server holds (entries up to the pose at `t`; nothing when `t` is
    /// nil) and marks every other entry to be sent again.
    /// - Returns: How many entries will be sent again.
    mutating func rewind(after t: Double?) -> Int {
        if let t { entries.removeAll { entry in entry.t.map { $0 <= t } ?? true } }
        var resent = 0
        for index in entries.indices {
            if entries[index].sent { resent += 1 }
            entries[index].sent = false
        }
        return resent
    }
}
