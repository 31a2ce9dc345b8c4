import Glibc
import PortableBasics
import Testing
import ZoneInfo

/// Zones read from /usr/share/zoneinfo (Debian's tzdata) against offsets and days known from the tz database's
/// history, and the database's guard on names, its limits and its cache.
@Suite struct TimeZoneDatabaseTests {
    static let zones = TimeZoneDatabase()

    static func day(_ text: String) -> CivilDate { CivilDate(iso: text) ?? CivilDate(daysSinceEpoch: 0) }

    @Test(
        arguments: [
            ("Europe/Madrid", 1_768_478_400, 3600), ("Europe/Madrid", 1_774_745_999, 3600),
            ("Europe/Madrid", 1_774_746_000, 7200), ("Europe/Madrid", 1_792_889_999, 7200),
            ("Europe/Madrid", 1_792_890_000, 3600), ("Europe/Madrid", -2_208_988_800, -884),
            ("America/New_York", 1_772_953_199, -18_000), ("America/New_York", 1_772_953_200, -14_400),
            ("America/New_York", 1_793_512_799, -14_400), ("America/New_York", 1_793_512_800, -18_000),
            ("America/New_York", -5_364_662_400, -17_762),
            ("America/Santiago", 1_767_225_600, -10_800), ("America/Santiago", 1_782_864_000, -14_400),
            ("America/Santiago", 1_788_667_199, -14_400), ("America/Santiago", 1_788_667_200, -10_800),
            ("Australia/Lord_Howe", 1_768_435_200, 39_600), ("Australia/Lord_Howe", 1_784_073_600, 37_800),
            ("Australia/Lord_Howe", 1_775_314_799, 39_600), ("Australia/Lord_Howe", 1_775_314_800, 37_800),
            ("Asia/Kathmandu", 1_780_272_000, 20_700), ("Asia/Kathmandu", 486_432_000, 19_800),
            ("Pacific/Apia", 1_325_239_199, -36_000), ("Pacific/Apia", 1_325_239_200, 50_400),
            ("Pacific/Apia", 1_780_272_000, 46_800),
            // Past 2037, from the footer's rule.
            ("Europe/Madrid", 2_216_249_999, 3600), ("Europe/Madrid", 2_216_250_000, 7200),
            ("Europe/Madrid", 2_540_246_400, 7200), ("America/New_York", 4_102_444_800, -18_000),
            ("America/New_York", 4_118_083_200, -14_400), ("Australia/Lord_Howe", 2_366_841_600, 39_600),
            ("America/Santiago", 2_840_140_800, -10_800),
        ] as [(String, Int64, Int)])
    func knowsTheOffsetAtAnInstant(_ name: String, _ instant: Int64, _ offset: Int) throws {
        #expect(try Self.zones.zone(named: name).offset(at: instant) == offset)
    }

    @Test(
        arguments: [
            ("Europe/Madrid", "2026-12-14", 1_797_202_800), ("Europe/Madrid", "2026-03-29", 1_774_738_800),
            // Midnight skipped: the day starts at 01:00 after the gap.
            ("America/Santiago", "2026-09-06", 1_788_667_200), ("America/Santiago", "2045-09-03", 2_388_024_000),
            ("America/Havana", "2026-03-08", 1_772_946_000), ("Asia/Beirut", "2026-03-29", 1_774_735_200),
            ("America/Sao_Paulo", "2018-11-04", 1_541_300_400),
            // Back from 24:00 to 23:00 the evening before: the day starts at the midnight that follows.
            ("America/Santiago", "2026-04-05", 1_775_361_600),
            ("Australia/Lord_Howe", "2026-10-04", 1_791_034_200), ("Asia/Kathmandu", "2026-01-01", 1_767_204_900),
            // Apia skipped 2011-12-30: that day and the next start at the same instant.
            ("Pacific/Apia", "2011-12-29", 1_325_152_800), ("Pacific/Apia", "2011-12-30", 1_325_239_200),
            ("Pacific/Apia", "2011-12-31", 1_325_239_200),
        ] as [(String, String, Int64)])
    func startsADayAtItsFirstInstant(_ name: String, _ day: String, _ start: Int64) throws {
        let zone = try Self.zones.zone(named: name)
        #expect(zone.startOfDay(Self.day(day)) == start)
        #expect(zone.day(at: start - 1).daysSinceEpoch < Self.day(day).daysSinceEpoch)
        if name != "Pacific/Apia" || day != "2011-12-30" { #expect(zone.day(at: start) == Self.day(day)) }
    }

    @Test func startsEveryDayOfAYearAtTheInstantItBegins() throws {
        for name in ["Europe/Madrid", "America/Santiago", "Australia/Lord_Howe", "America/Havana", "Pacific/Apia"] {
            let zone = try Self.zones.zone(named: name)
            for days in Self.day("2011-01-01").daysSinceEpoch...Self.day("2012-12-31").daysSinceEpoch {
                let start = zone.startOfDay(CivilDate(daysSinceEpoch: days))
                #expect(zone.day(at: start - 1).daysSinceEpoch < days, "\(name) day \(days)")
                #expect(zone.day(at: start).daysSinceEpoch >= days, "\(name) day \(days)")
            }
        }
    }

    @Test func apiaSkippedADay() throws {
        let apia = try Self.zones.zone(named: "Pacific/Apia")
        #expect(apia.day(at: 1_325_239_199) == Self.day("2011-12-29"))
        #expect(apia.day(at: 1_325_239_200) == Self.day("2011-12-31"))
    }

    @Test func utcNeedsNoFile() throws {
        let empty = TimeZoneDatabase(configuration: .init(root: "/nonexistent"))
        for name in ["UTC", "Etc/UTC"] {
            let zone = try empty.zone(named: name)
            #expect(zone.name == name)
            #expect(zone.offset(at: 1_782_864_000) == 0)
            #expect(zone.startOfDay(Self.day("2026-12-07")) == 1_796_601_600)
        }
        #expect(throws: TimeZoneDatabase.LookupError.unknownZone) { try empty.zone(named: "Europe/Madrid") }
    }

    @Test(arguments: [
        "", "../etc/passwd", "/etc/passwd", "Europe/../../etc/passwd", "Europe/..", "..", ".", "./UTC",
        "Europe//Madrid", "Europe/Madrid/", "Europe/Madrid\0", "Europe/Mádrid", "Europe\\Madrid", "Europe/Madrid ",
        "Europe/Madrid?x", "%2e%2e/etc/passwd", String(repeating: "A", count: 65),
    ])
    func refusesNamesThatAreNotZoneNames(_ name: String) {
        #expect(!TimeZoneDatabase.isValidName(name))
        #expect(throws: TimeZoneDatabase.LookupError.invalidName) { try Self.zones.zone(named: name) }
    }

    @Test func acceptsTheNamesOfTzdata() throws {
        for name in ["Etc/GMT+3", "Etc/GMT-14", "America/Port-au-Prince", "America/Argentina/Buenos_Aires", "EST5EDT"] {
            #expect(TimeZoneDatabase.isValidName(name))
            _ = try Self.zones.zone(named: name)
        }
        #expect(TimeZoneDatabase.isValidName(String(repeating: "A", count: 64)))
        #expect(try Self.zones.zone(named: "Etc/GMT+3").offset(at: 0) == -10_800, "POSIX's sign, inverted")
    }

    @Test func unknownNamesAndFoldersAreUnknownZones() {
        for name in ["Mars/Olympus", "Europe", "Europe/Madrid/x", "europe/madrid"] {
            #expect(throws: TimeZoneDatabase.LookupError.unknownZone, "\(name)") { try Self.zones.zone(named: name) }
        }
        #expect(throws: TimeZoneDatabase.LookupError.malformed(.badMagic)) { try Self.zones.zone(named: "leapseconds") }
    }

    @Test func readsFromAConfiguredFolderWithinItsLimits() throws {
        let root = try TemporaryFolder()
        try root.write("TestZone", TZifFixture().bytes)
        try root.write("TestText", Array("not a zone\n".utf8))
        try root.write("TestLongText", Array(String(repeating: "not a zone at all\n", count: 10).utf8))
        try root.write("TestLarge", TZifFixture().bytes + [UInt8](repeating: 0, count: 4096))
        let zones = TimeZoneDatabase(configuration: .init(root: root.path, maxFileSize: 4096))
        #expect(try zones.zone(named: "TestZone").offset(at: 0) == 7200)
        #expect(throws: TimeZoneDatabase.LookupError.malformed(.badMagic)) { try zones.zone(named: "TestText") }
        #expect(throws: TimeZoneDatabase.LookupError.malformed(.badMagic)) { try zones.zone(named: "TestLongText") }
        #expect(throws: TimeZoneDatabase.LookupError.tooLarge) { try zones.zone(named: "TestLarge") }
    }

    @Test func keepsABoundedNumberOfZones() throws {
        let root = try TemporaryFolder()
        for name in ["One", "Two", "Three"] { try root.write(name, TZifFixture().bytes) }
        let zones = TimeZoneDatabase(configuration: .init(root: root.path, cacheCapacity: 2))
        for name in ["One", "Two", "Three"] { _ = try zones.zone(named: name) }
        for name in ["One", "Two", "Three"] { unlink(root.path + "/" + name) }
        #expect(throws: TimeZoneDatabase.LookupError.unknownZone, "the first zone read was dropped") {
            try zones.zone(named: "One")
        }
        #expect(try zones.zone(named: "Two").offset(at: 0) == 7200, "kept")
        #expect(try zones.zone(named: "Three").offset(at: 0) == 7200, "kept")
    }

    @Test func answersManyThreadsAtOnce() async throws {
        let zones = TimeZoneDatabase(configuration: .init(cacheCapacity: 3))
        let names = ["Europe/Madrid", "America/New_York", "Asia/Kathmandu", "Pacific/Apia", "Australia/Lord_Howe"]
        let offsets = try await withThrowingTaskGroup(of: Int.self) { group in
            for index in 0..<200 {
                group.addTask { try zones.zone(named: names[index % names.count]).offset(at: 1_780_272_000) }
            }
            return try await group.reduce(0, +)
        }
        #expect(offsets == 40 * (7200 - 14_400 + 20_700 + 46_800 + 37_800))
    }
}

/// A folder under /tmp, removed with the files written into it when the value goes.
final class TemporaryFolder {
    let path: String
    private var files: [String] = []

    init() throws {
        var template = Array("/tmp/zoneinfo-test-XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw Failure() }
        path = String(cString: made)
    }

    deinit {
        for file in files { unlink(path + "/" + file) }
        rmdir(path)
    }

    struct Failure: Error {}

    /// Writes a file directly in the folder.
    func write(_ name: String, _ bytes: [UInt8]) throws {
        guard let file = fopen(path + "/" + name, "wb") else { throw Failure() }
        defer { fclose(file) }
        files.append(name)
        guard fwrite(bytes, 1, bytes.count, file) == bytes.count else { throw Failure() }
    }
}
