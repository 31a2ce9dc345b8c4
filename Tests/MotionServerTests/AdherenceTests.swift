import Foundation
import MotionCore
import MotionWire
import PortableBasics
import SessionStore
import Testing
import ZoneInfo

@testable import MotionServer

/// Adherence (docs/protocol.md §5.3) as computed from programmes and sessions: ISO weeks from Monday in a time zone,
/// items prescribed within their programme's period, sessions and goals counted per week.
@Suite struct AdherenceTests {
    static func day(_ text: String) -> CivilDate { CivilDate(iso: text) ?? CivilDate(daysSinceEpoch: 0) }

    static func zone(_ name: String = "UTC") -> TimeZoneRules {
        (try? TimeZoneDatabase().zone(named: name)) ?? .utc
    }

    static let programme = Programme(
        id: "P1", version: 2, subject: "patient-17", startsOn: day("2026-12-09"), endsOn: day("2026-12-20"),
        items: [
            Programme.Item(item: "a1", exercise: "sitToStand", perWeek: 5, prescription: Prescription(reps: 2)),
            Programme.Item(item: "b2", exercise: "squat", perWeek: 2, prescription: Prescription(reps: 5)),
        ])

    static func session(_ iso: String, item: String, repCount: Int, programme: String = "P1") -> ProgressEntry {
        let seconds = ISO8601DateFormatter().date(from: iso)?.timeIntervalSince1970 ?? 0
        var entry = ProgressEntry(
            id: "s", startedAt: seconds, exercise: "sitToStand", status: .finished, best: nil, repCount: repCount,
            rejectedCount: 0, meanPeak: nil)
        entry.programme = ProgrammeLink(id: programme, version: 2, item: item)
        entry.goal = Goal(prescription: Prescription(reps: 2), setsDone: nil, repCount: repCount)
        return entry
    }

    @Test(arguments: [
        ("2026-12-07", "2026-W50"), ("2026-12-28", "2026-W53"), ("2027-01-04", "2027-W01"),
        ("2024-12-30", "2025-W01"), ("2020-12-28", "2020-W53"), ("2026-01-05", "2026-W02"),
    ])
    func labelsWeeksByTheYearOfTheirThursday(_ monday: String, _ label: String) {
        #expect(Adherence.weekday(of: Self.day(monday)) == 0)
        #expect(Adherence.label(of: Self.day(monday)) == label)
    }

    @Test func countsSessionsAndGoalsPerWeekAndItem() {
        let sessions = [
            Self.session("2026-12-09T10:00:00Z", item: "a1", repCount: 2),
            Self.session("2026-12-10T10:00:00Z", item: "a1", repCount: 1),
            Self.session("2026-12-14T00:30:00Z", item: "a1", repCount: 4),
            Self.session("2026-12-14T09:00:00Z", item: "gone", repCount: 4),
            Self.session("2026-12-14T09:00:00Z", item: "a1", repCount: 4, programme: "another"),
            Self.session("2026-11-01T09:00:00Z", item: "a1", repCount: 4),
        ]
        let adherence = Adherence(
            programmes: [(Self.programme, nil)], sessions: sessions, from: Self.day("2026-11-30"),
            to: Self.day("2026-12-21"), zone: Self.zone())
        #expect(adherence.weeks.map(\.label) == ["2026-W49", "2026-W50", "2026-W51", "2026-W52"])
        let first = adherence.weeks[0].items
        #expect(first.map(\.prescribed) == [0, 0], "before the programme starts")
        let second = adherence.weeks[1].items
        #expect(
            second[0]
                == Adherence.Entry(
                    programme: "P1", item: "a1", exercise: "sitToStand", prescribed: 5, sessions: 2, goalMet: 1))
        #expect(second[1].sessions == 0)
        let third = adherence.weeks[2].items
        #expect(third.first { $0.item == "a1" && $0.programme == "P1" }?.goalMet == 1)
        #expect(third.first { $0.item == "gone" }?.prescribed == 0, "an item no longer prescribed still counts")
        #expect(third.first { $0.programme == "another" }?.sessions == 1)
        #expect(adherence.weeks[3].items.map(\.prescribed) == [0, 0], "after endsOn")
    }

    @Test func aSessionWithoutAGoalMeetsItByFinishing() {
        var finished = Self.session("2026-12-09T10:00:00Z", item: "a1", repCount: 0)
        finished.goal = nil
        var abandoned = finished
        abandoned.status = .abandoned
        let adherence = Adherence(
            programmes: [(Self.programme, nil)], sessions: [finished, abandoned], from: Self.day("2026-12-09"),
            to: Self.day("2026-12-09"), zone: Self.zone())
        #expect(adherence.weeks[0].items[0].sessions == 2)
        #expect(adherence.weeks[0].items[0].goalMet == 1)
    }

    @Test func weeksBeginOnMondayInTheTimeZone() {
        // Sunday 23:30 in UTC is Monday 00:30 in Madrid: the next week there.
        let late = Self.session("2026-12-13T23:30:00Z", item: "a1", repCount: 2)
        let utc = Adherence(
            programmes: [(Self.programme, nil)], sessions: [late], from: Self.day("2026-12-07"),
            to: Self.day("2026-12-14"), zone: Self.zone())
        #expect(utc.weeks.map { $0.items[0].sessions } == [1, 0])
        let madrid = Adherence(
            programmes: [(Self.programme, nil)], sessions: [late], from: Self.day("2026-12-07"),
            to: Self.day("2026-12-14"), zone: Self.zone("Europe/Madrid"))
        #expect(madrid.weeks.map { $0.items[0].sessions } == [0, 1])
    }

    @Test func daysStartAtTheirFirstInstantInTheZone() {
        #expect(Adherence.start(of: Self.day("2026-12-14"), zone: Self.zone()) == 1_797_206_400_000)
        #expect(Adherence.start(of: Self.day("2026-12-14"), zone: Self.zone("Europe/Madrid")) == 1_797_202_800_000)
        // Santiago's summer time starts at 24:00 on 2026-09-05: the 6th starts at 01:00 there, 04:00 UTC.
        #expect(
            Adherence.start(of: Self.day("2026-09-06"), zone: Self.zone("America/Santiago")) == 1_788_667_200_000)
        let madrid = Self.zone("Europe/Madrid")
        #expect(Adherence.day(ofMilliseconds: 1_797_202_800_000, zone: madrid) == Self.day("2026-12-14"))
        #expect(Adherence.day(ofMilliseconds: 1_797_202_799_999, zone: madrid) == Self.day("2026-12-13"))
        #expect(Adherence.day(ofMilliseconds: -1, zone: Self.zone()) == Self.day("1969-12-31"), "floor, not truncation")
        _ = Adherence.day(ofMilliseconds: .min, zone: madrid)
        _ = Adherence.day(ofMilliseconds: .max, zone: madrid)
    }

    @Test func anEndedProgrammePrescribesNothingAfterItsEnd() {
        let ended = Adherence.start(of: Self.day("2026-12-12"), zone: Self.zone())
        let adherence = Adherence(
            programmes: [(Self.programme, ended)], sessions: [], from: Self.day("2026-12-07"),
            to: Self.day("2026-12-20"), zone: Self.zone())
        #expect(adherence.weeks.map { $0.items[0].prescribed } == [5, 0])
    }

    @Test func writesTheDocumentedShape() {
        let adherence = Adherence(
            programmes: [(Self.programme, nil)],
            sessions: [Self.session("2026-12-09T10:00:00Z", item: "a1", repCount: 2)],
            from: Self.day("2026-12-09"), to: Self.day("2026-12-09"), zone: Self.zone())
        var body: [UInt8] = []
        adherence.encode(subject: "patient-17", timeZone: "UTC", into: &body)
        #expect(
            String(decoding: body, as: UTF8.self)
                == #"{"subject":"patient-17","timeZone":"UTC","weeks":[{"week":"2026-W50","startsOn":"2026-12-07","#
                + #""items":[{"programme":"P1","item":"a1","exercise":"sitToStand","prescribed":5,"sessions":1,"#
                + #""goalMet":1},{"programme":"P1","item":"b2","exercise":"squat","prescribed":2,"sessions":0,"#
                + #""goalMet":0}]}]}"#)
    }
}

/// Patient codes as the table of a node resolves them (docs/protocol.md §6.1).
@Suite struct PatientCodesTests {
    static let code = "bdv56GiIlVjDiZW5gToAXVW2jyeBGjH_BzU44Cv-OCM"

    static func record(expiresAt: Int64 = 2_000, revokedAt: Int64? = nil) -> StoredAccessCode {
        StoredAccessCode(
            id: "C1", tenant: "clinic-1", subject: "patient-17", digest: ResumeToken.digest(of: code), createdAt: 0,
            expiresAt: expiresAt, revokedAt: revokedAt)
    }

    @Test func makesACallerLimitedToTheSubjectUntilItExpires() {
        let codes = PatientCodes()
        codes.load([Self.record()])
        #expect(
            codes.lookup(Self.code, now: 1_999)
                == .patient(Caller(tenant: "clinic-1", role: .tenant, subject: "patient-17", codeID: "C1")))
        #expect(codes.lookup(Self.code, now: 2_000) == .refused, "expired")
        #expect(codes.lookup(String(Self.code.dropLast()) + "N", now: 0) == .unknown)
        #expect(codes.lookup("short", now: 0) == .unknown)
        codes.stored(Self.record(revokedAt: 5))
        #expect(codes.lookup(Self.code, now: 10) == .refused, "revoked")
    }

    @Test func aCallerReachesOnlyItsSubject() {
        let patient = Caller(tenant: "t", role: .tenant, subject: "p-1", codeID: "C1")
        #expect(patient.isPatient)
        #expect(patient.reaches(subject: "p-1"))
        #expect(!patient.reaches(subject: "p-2"))
        #expect(!patient.reaches(subject: nil))
        let clinic = Caller(tenant: "t", role: .tenant)
        #expect(!clinic.isPatient)
        #expect(clinic.reaches(subject: "anyone"))
    }

    @Test(arguments: [
        (#"{"expiresInSeconds":3600}"#, 3600 as Int?), ("{}", nil), (#"{"expiresInSeconds":null,"x":1}"#, nil),
    ])
    func readsTheLifeOfANewCode(_ body: String, _ seconds: Int?) throws {
        #expect(try AccessRequest.expiresInSeconds(Array(body.utf8), range: 60...31_536_000) == seconds)
    }

    @Test(arguments: [
        #"{"expiresInSeconds":59}"#, #"{"expiresInSeconds":31536001}"#, #"{"expiresInSeconds":1.5}"#,
        #"{"expiresInSeconds":"3600"}"#, #"{"expiresInSeconds":60,"expiresInSeconds":60}"#, "[]", "{", "nope",
    ])
    func refusesABadLife(_ body: String) {
        #expect(throws: WireError.self) { try AccessRequest.expiresInSeconds(Array(body.utf8), range: 60...31_536_000) }
    }
}
