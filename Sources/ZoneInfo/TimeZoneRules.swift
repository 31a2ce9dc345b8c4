public import PortableBasics

/// A time zone's offsets from UTC through time, as its TZif file gives them: the transitions it lists, then its
/// footer's POSIX rule (RFC 8536 §3.3), and the civil days that follow from them.
///
/// ```swift
/// let madrid = try TimeZoneDatabase().zone(named: "Europe/Madrid")
/// madrid.offset(at: 1_782_864_000)                                      // 7200 (summer time)
/// madrid.day(at: 1_797_204_600)                                         // 2026-12-14 (00:30 there)
/// madrid.startOfDay(CivilDate(year: 2026, month: 12, day: 14)!)         // 1_797_202_800 (23:00 UTC the day before)
/// ```
public struct TimeZoneRules: Sendable, Hashable {
    /// The zone's name, `Europe/Madrid`.
    public let name: String
    /// The offset before the first transition (local time type 0, RFC 8536 §3.2), seconds east of UTC.
    let initialOffset: Int
    /// Unix instants at which the offset changes, strictly increasing.
    let transitions: [Int64]
    /// The offset from each transition on.
    let offsets: [Int32]
    /// The rule after the last transition (for every instant when there is none).
    let footer: POSIXTimeZone?

    /// Coordinated Universal Time: offset 0 at every instant.
    public static let utc = TimeZoneRules(name: "UTC", initialOffset: 0, transitions: [], offsets: [], footer: nil)

    /// A zone with these rules and another name (`Etc/UTC` for ``utc``).
    public func named(_ name: String) -> TimeZoneRules {
        TimeZoneRules(
            name: name, initialOffset: initialOffset, transitions: transitions, offsets: offsets, footer: footer)
    }

    /// The seconds east of UTC at an instant.
    /// - Parameter instant: Unix seconds.
    /// - Returns: The offset of local time then (3600 for Madrid in winter, −18000 for New York).
    /// - Complexity: O(log n) in the zone's transitions.
    public func offset(at instant: Int64) -> Int {
        let instant = POSIXTimeZone.clamped(instant)
        guard let last = transitions.last else { return footer?.offset(at: instant) ?? initialOffset }
        if instant < transitions[0] { return initialOffset }
        if instant >= last, let footer { return footer.offset(at: instant) }
        return Int(offsets[lastTransition(atOrBefore: instant)])
    }

    /// The civil day, in this zone, of an instant.
    /// - Parameter instant: Unix seconds.
    /// - Returns: The local date then.
    public func day(at instant: Int64) -> CivilDate {
        let instant = POSIXTimeZone.clamped(instant)
        return CivilDate(daysSinceEpoch: POSIXTimeZone.floorDays(instant + Int64(offset(at: instant))))
    }

    /// The first instant of a civil day in this zone: its local midnight, or, when a change of offset skips
    /// midnight (America/Santiago's daylight-saving time starts at 24:00), the first instant after the gap. A day
    /// the zone skipped altogether (Pacific/Apia's 2011-12-30) starts when the next one does; a midnight that comes
    /// twice (a change back across it) counts the first time.
    /// - Parameter day: The day.
    /// - Returns: Unix seconds: the least instant whose local time is at or after the day's midnight.
    /// - Complexity: O(log n) in the zone's transitions.
    public func startOfDay(_ day: CivilDate) -> Int64 {
        let (product, overflows) = Int64(day.daysSinceEpoch).multipliedReportingOverflow(by: 86_400)
        let midnight = POSIXTimeZone.clamped(overflows ? (day.daysSinceEpoch < 0 ? .min : .max) : product)
        // Offsets lie within −89999…93599 s (RFC 8536 §3.2), so the instant lies within this window.
        let window = (midnight - 93_600)...(midnight + 90_000)
        let changes = self.changes(in: window)
        var offset = changes.offset
        var start = window.lowerBound
        for change in changes.changes + [(window.upperBound + 1, 0)] {
            let candidate = max(start, midnight - Int64(offset))
            if candidate < change.0 { return candidate }
            (start, offset) = (change.0, change.1)
        }
        return window.upperBound
    }

    /// The offset at the start of `window` and its changes after that, in time order, within it.
    func changes(in window: ClosedRange<Int64>) -> (offset: Int, changes: [(Int64, Int)]) {
        var changes: [(Int64, Int)] = []
        if let first = transitions.first, window.upperBound >= first {
            var index = window.lowerBound < first ? 0 : lastTransition(atOrBefore: window.lowerBound) + 1
            while index < transitions.count, transitions[index] <= window.upperBound {
                changes.append((transitions[index], Int(offsets[index])))
                index += 1
            }
        }
        if let footer, footer.daylight != nil, window.upperBound >= (transitions.last ?? .min) {
            let after = max(window.lowerBound, transitions.last ?? .min)
            let first = CivilDate(daysSinceEpoch: POSIXTimeZone.floorDays(after)).year - 1
            let last = CivilDate(daysSinceEpoch: POSIXTimeZone.floorDays(window.upperBound)).year + 1
            for change in footer.changes(inYears: first...last)
            where change.instant > after && change.instant <= window.upperBound {
                changes.append((change.instant, change.offset))
            }
        }
        return (offset(at: window.lowerBound), changes)
    }

    /// The index of the last transition at or before `instant` (which is at or after the first).
    private func lastTransition(atOrBefore instant: Int64) -> Int {
        var low = 0
        var high = transitions.count
        while high - low > 1 {
            let middle = (low + high) / 2
            if transitions[middle] <= instant { low = middle } else { high = middle }
        }
        return low
    }
}
