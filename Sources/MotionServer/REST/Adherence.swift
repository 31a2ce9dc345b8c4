import MotionCore
import MotionWire
import PortableBasics
import SessionStore
import ZoneInfo

/// A subject's adherence to its programmes (docs/protocol.md §5.3): per ISO week (from Monday, in a time zone) and
/// programme item, the sessions prescribed, the sessions done and how many of them met their goal.
///
/// Pure: it is given the programmes, the sessions and the time zone, and reads no clock.
struct Adherence {
    /// One item's figures in one week.
    struct Entry: Equatable {
        var programme: String
        var item: String
        var exercise: String
        /// Sessions a week the item prescribes in this week (0 when the week is outside the programme's period, or
        /// for an item no longer in its latest version).
        var prescribed: Int
        var sessions: Int
        var goalMet: Int
    }

    /// One ISO week.
    struct Week: Equatable {
        /// `2026-W50`.
        var label: String
        /// Its Monday.
        var startsOn: CivilDate
        var items: [Entry]
    }

    /// The weeks, oldest first.
    var weeks: [Week]

    /// The most weeks one answer covers: 106 (two years).
    static let maxWeeks = 106

    /// Computes the weeks from `from` to `to` (days, both included, in `zone`).
    /// - Parameters:
    ///   - programmes: The subject's programmes at their latest versions, with when each was ended (Unix ms).
    ///   - sessions: The subject's sessions in the window (programme items' among them).
    ///   - from: The first day.
    ///   - to: The last day.
    ///   - zone: The time zone of the weeks.
    init(
        programmes: [(programme: Programme, endedAt: Int64?)], sessions: [ProgressEntry], from: CivilDate,
        to: CivilDate, zone: TimeZoneRules
    ) {
        let firstMonday = from.daysSinceEpoch - Self.weekday(of: from)
        var weeks: [Week] = []
        var monday = firstMonday
        while monday <= to.daysSinceEpoch {
            let start = CivilDate(daysSinceEpoch: monday)
            var entries: [Entry] = []
            for (programme, endedAt) in programmes {
                let ended = endedAt.map { Self.day(ofMilliseconds: $0, zone: zone).daysSinceEpoch }
                let last = min(programme.endsOn?.daysSinceEpoch ?? .max, ended ?? .max)
                let runs = programme.startsOn.daysSinceEpoch <= monday + 6 && last >= monday
                for item in programme.items {
                    entries.append(
                        Entry(
                            programme: programme.id, item: item.item, exercise: item.exercise,
                            prescribed: runs ? item.perWeek : 0, sessions: 0, goalMet: 0))
                }
            }
            weeks.append(Week(label: Self.label(of: start), startsOn: start, items: entries))
            monday += 7
        }
        for session in sessions {
            guard let link = session.programme else { continue }
            let day = Self.day(ofMilliseconds: Int64(session.startedAt * 1000), zone: zone).daysSinceEpoch
            let index = (day - firstMonday).quotient(dividingBy: 7)
            guard weeks.indices.contains(index) else { continue }
            let position =
                weeks[index].items.firstIndex { $0.programme == link.id && $0.item == link.item }
                ?? {
                    weeks[index].items.append(
                        Entry(
                            programme: link.id, item: link.item, exercise: session.exercise, prescribed: 0,
                            sessions: 0, goalMet: 0))
                    return weeks[index].items.count - 1
                }()
            weeks[index].items[position].sessions += 1
            // A session without a goal (an item prescribing no reps) meets it by being finished.
            if session.goal?.met ?? (session.status == .finished) { weeks[index].items[position].goalMet += 1 }
        }
        self.weeks = weeks
    }

    /// Days since Monday: 0 for a Monday, 6 for a Sunday (1970-01-01 was a Thursday).
    static func weekday(of date: CivilDate) -> Int { (date.daysSinceEpoch + 3).remainder(dividingBy: 7) }

    /// The ISO week of the Monday `monday`, `2026-W50`: its week-year is the year of its Thursday.
    static func label(of monday: CivilDate) -> String {
        let thursday = CivilDate(daysSinceEpoch: monday.daysSinceEpoch + 3)
        let january1 = CivilDate(year: thursday.year, month: 1, day: 1)?.daysSinceEpoch ?? thursday.daysSinceEpoch
        let week = (thursday.daysSinceEpoch - january1) / 7 + 1
        return "\(thursday.year)-W\(week < 10 ? "0" : "")\(week)"
    }

    /// The day, in `zone`, of an instant.
    static func day(ofMilliseconds milliseconds: Int64, zone: TimeZoneRules) -> CivilDate {
        // Floor division, so that an instant before 1970 counts in the second it falls in.
        let (seconds, rest) = milliseconds.quotientAndRemainder(dividingBy: 1000)
        return zone.day(at: rest < 0 ? seconds - 1 : seconds)
    }

    /// The instant a day begins in `zone` (its first instant when a change of offset skips midnight), Unix
    /// milliseconds.
    static func start(of day: CivilDate, zone: TimeZoneRules) -> Int64 { zone.startOfDay(day) * 1000 }

    /// Writes `{"subject":…,"timeZone":…,"weeks":[{"week","startsOn","items":[{"programme","item","exercise",
    /// "prescribed","sessions","goalMet"}]}]}`.
    func encode(subject: String, timeZone: String, into body: inout [UInt8]) {
        body.appendLiteral(#"{"subject":"#)
        body.appendJSONString(subject)
        body.appendLiteral(#","timeZone":"#)
        body.appendJSONString(timeZone)
        body.appendLiteral(#","weeks":["#)
        for (index, week) in weeks.enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.appendLiteral(#"{"week":"#)
            body.appendJSONString(week.label)
            body.appendLiteral(#","startsOn":"#)
            body.appendJSONString(week.startsOn.description)
            body.appendLiteral(#","items":["#)
            for (position, entry) in week.items.enumerated() {
                if position > 0 { body.append(UInt8(ascii: ",")) }
                body.appendLiteral(#"{"programme":"#)
                body.appendJSONString(entry.programme)
                body.appendLiteral(#","item":"#)
                body.appendJSONString(entry.item)
                body.appendLiteral(#","exercise":"#)
                body.appendJSONString(entry.exercise)
                body.appendLiteral(#","prescribed":"#)
                body.appendJSONInteger(entry.prescribed)
                body.appendLiteral(#","sessions":"#)
                body.appendJSONInteger(entry.sessions)
                body.appendLiteral(#","goalMet":"#)
                body.appendJSONInteger(entry.goalMet)
                body.append(UInt8(ascii: "}"))
            }
            body.appendLiteral("]}")
        }
        body.appendLiteral("]}")
    }
}

extension Int {
    /// The floor quotient (towards minus infinity), so days before a Monday fall in the week before.
    fileprivate func quotient(dividingBy divisor: Int) -> Int {
        let (q, r) = quotientAndRemainder(dividingBy: divisor)
        return r < 0 ? q - 1 : q
    }

    /// The non-negative remainder.
    fileprivate func remainder(dividingBy divisor: Int) -> Int {
        let r = self % divisor
        return r < 0 ? r + divisor : r
    }
}
