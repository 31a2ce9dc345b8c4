import Testing
import ZoneInfo

/// TZif files (RFC 8536) read at the byte level: the real files of tzdata, files built field by field, and files
/// spoiled on purpose.
@Suite struct TZifTests {
    @Test func readsABuiltFileOfEachVersion() throws {
        for version in [0, UInt8(ascii: "2"), UInt8(ascii: "3"), UInt8(ascii: "4")] {
            var fixture = TZifFixture()
            fixture.version = version
            let zone = try TZif.parse(fixture.bytes, name: "Test/Zone")
            #expect(zone.name == "Test/Zone")
            #expect(zone.offset(at: -1) == 3600, "time type 0 before the first transition (\(version))")
            #expect(zone.offset(at: 0) == 7200, "at the first transition")
            #expect(zone.offset(at: 999_999) == 7200)
            #expect(zone.offset(at: 1_000_000) == 3600)
            // After the last transition: the footer from version 2 on (summer time in July 2026), the last type in 1.
            #expect(zone.offset(at: 1_782_864_000) == (version == 0 ? 3600 : 7200), "\(version)")
        }
    }

    @Test func anEmptyFooterKeepsTheLastTransitionsOffset() throws {
        var fixture = TZifFixture()
        fixture.footer = ""
        let zone = try TZif.parse(fixture.bytes, name: "Test/Zone")
        #expect(zone.offset(at: 1_782_864_000) == 3600)
    }

    @Test func withoutTransitionsTheFooterRulesEveryInstant() throws {
        var fixture = TZifFixture()
        fixture.transitions = []
        fixture.transitionTypes = []
        let zone = try TZif.parse(fixture.bytes, name: "Test/Zone")
        #expect(zone.offset(at: -2_018_476_800) == 3600, "January 1906")
        #expect(zone.offset(at: 1_782_864_000) == 7200, "July 2026")
    }

    @Test func readsTheRealMadridFile() throws {
        let bytes = TZifFixture.system("Europe/Madrid")
        try #require(!bytes.isEmpty, "tzdata is installed")
        let zone = try TZif.parse(bytes, name: "Europe/Madrid")
        #expect(zone.offset(at: 1_768_478_400) == 3600)
        #expect(zone.offset(at: 1_774_746_000) == 7200)
        #expect(zone.offset(at: -2_208_988_800) == -884, "local mean time in 1900")
    }

    @Test func aFileCutAtAnyByteIsTruncated() throws {
        for name in ["Europe/Madrid", "America/Santiago"] {
            let bytes = TZifFixture.system(name)
            try #require(bytes.count > 100)
            for length in 0..<bytes.count {
                #expect(throws: TZif.ParseError.truncated, "\(name) cut at \(length)") {
                    try TZif.parse(Array(bytes[0..<length]), name: name)
                }
            }
        }
        let built = TZifFixture().bytes
        for length in 0..<built.count {
            #expect(throws: TZif.ParseError.truncated) { try TZif.parse(Array(built[0..<length]), name: "x") }
        }
    }

    @Test func refusesAWrongMagicInEitherHeader() {
        var bytes = TZifFixture().bytes
        bytes[0] = UInt8(ascii: "t")
        #expect(throws: TZif.ParseError.badMagic) { try TZif.parse(bytes, name: "x") }
        let second = TZifFixture().block(timeSize: 4, version: UInt8(ascii: "2")).count
        bytes = TZifFixture().bytes
        bytes[second + 3] = UInt8(ascii: "F")
        #expect(throws: TZif.ParseError.badMagic) { try TZif.parse(bytes, name: "x") }
        #expect(throws: TZif.ParseError.badMagic) { try TZif.parse(Array("<html>".utf8) + bytes, name: "x") }
        #expect(Self.error(Array("<h".utf8)) == .badMagic, "another kind of file, however short")
        #expect(Self.error(Array("TZ".utf8)) == .truncated)
    }

    @Test(arguments: [UInt8(ascii: "1"), UInt8(ascii: "5"), UInt8(ascii: "A"), 0xFF])
    func refusesAnUnknownVersion(_ version: UInt8) {
        var fixture = TZifFixture()
        fixture.version = version
        #expect(throws: TZif.ParseError.unsupportedVersion(version)) { try TZif.parse(fixture.bytes, name: "x") }
    }

    /// Every count at its largest (2³²−1), and counts one past what the file holds: refused before anything of that
    /// size is allocated (the whole test takes milliseconds and no memory).
    @Test(arguments: 0..<6)
    func refusesCountsBeyondTheFile(_ field: Int) {
        // isutcnt and isstdcnt must be 0 or typecnt; any other count overflows the file.
        let expected: TZif.ParseError = field < 2 ? .inconsistentCounts : .truncated
        var plain = TZifFixture()
        plain.standardIndicators = []
        plain.utIndicators = []
        for count in [UInt32.max, UInt32(Int32.max), 100_000] {
            var fixture = plain
            fixture.counts[field] = count
            #expect(Self.error(fixture.bytes) == expected, "field \(field) = \(count)")
        }
        // Only the 64-bit block's header spoiled: it is read after the first block is skipped.
        var bytes = plain.bytes
        let offset = plain.block(timeSize: 4, version: UInt8(ascii: "2")).count + 20 + 4 * field
        bytes.replaceSubrange(offset..<offset + 4, with: [0xFF, 0xFF, 0xFF, 0xFF])
        #expect(Self.error(bytes) == expected)
    }

    @Test func aHeaderAloneClaimingEverythingIsTruncated() {
        var header = Array("TZif2".utf8) + [UInt8](repeating: 0, count: 15)
        header += [0, 0, 0, 0, 0, 0, 0, 0] + [UInt8](repeating: 0xFF, count: 8) + [0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF]
        #expect(Self.error(header) == .truncated)
    }

    @Test func refusesCountsTheRFCForbids() {
        var noTypes = TZifFixture()
        noTypes.counts[4] = 0
        #expect(Self.error(noTypes.bytes) == .inconsistentCounts)
        var noDesignations = TZifFixture()
        noDesignations.counts[5] = 0
        #expect(Self.error(noDesignations.bytes) == .inconsistentCounts)
        var indicators = TZifFixture()
        indicators.utIndicators = [0]
        #expect(Self.error(indicators.bytes) == .inconsistentCounts)
    }

    @Test(arguments: [[5, 5], [6, 5], [-(1 << 60), 0], [0, 1 << 60]] as [[Int64]])
    func refusesTransitionsOutOfOrderOrOutOfRange(_ times: [Int64]) {
        // The 32-bit block of a version 2 file is skipped, so only the 64-bit times count.
        var fixture = TZifFixture()
        fixture.transitions = times
        #expect(Self.error(fixture.bytes) == .badTransitionTimes)
        guard times.allSatisfy({ Int32(exactly: $0) != nil }) else { return }
        fixture.version = 0
        #expect(Self.error(fixture.bytes) == .badTransitionTimes, "version 1")
    }

    @Test func refusesBadTypesAndIndexes() {
        var type = TZifFixture()
        type.transitionTypes = [1, 2]
        #expect(Self.error(type.bytes) == .badTransitionType)
        for spoiled: (Int32, UInt8, UInt8) in [
            (Int32.min, 0, 0), (93_600, 0, 0), (-90_000, 0, 0), (0, 2, 0), (0, 0, 9),
        ] {
            var fixture = TZifFixture()
            fixture.types[1] = spoiled
            #expect(Self.error(fixture.bytes) == .badLocalTimeType, "\(spoiled)")
        }
    }

    @Test func refusesLeapSecondFiles() throws {
        var fixture = TZifFixture()
        fixture.leapSeconds = [(78_796_800, 1)]
        #expect(Self.error(fixture.bytes) == .leapSeconds)
        let right = TZifFixture.system("right/Europe/Madrid")
        if !right.isEmpty { #expect(Self.error(right) == .leapSeconds) }
    }

    @Test(arguments: [
        ("CET-1CEST", 9), ("EST5EDT,M3.2.0", 14), ("garbage", 7), ("<+1>0", 3), ("CET-25", 4), ("CET", 3),
        ("EST5EDT,J0,J365", 9), ("EST5EDT,M13.1.0,M11.1.0", 9), ("EST5EDT,M3.6.0,M11.1.0", 11),
        ("EST5EDT,M3.5.7,M11.1.0", 13), ("EST5EDT,M3.2.0/168,M11.1.0", 15), ("EST5EDT,366,M11.1.0", 8),
        ("CET-1:60", 6), ("CET-1 ", 5), ("CET-1\u{0}", 5), ("<-03>3<-02>,M3.5.0/-168,M10.5.0/-1", 20),
    ])
    func refusesABadFooter(_ footer: String, _ position: Int) {
        var fixture = TZifFixture()
        fixture.footer = footer
        #expect(Self.error(fixture.bytes) == .badFooter(POSIXTimeZone.SyntaxError(position: position)), "\(footer)")
    }

    @Test func refusesAFooterWithoutItsNewlines() {
        var bytes = TZifFixture().bytes
        bytes.removeLast()
        #expect(Self.error(bytes) == .truncated)
        var fixture = TZifFixture()
        fixture.footer = nil
        #expect(Self.error(fixture.bytes + Array("CET-1\n".utf8)) == .badFooter(POSIXTimeZone.SyntaxError(position: 0)))
    }

    /// Seeded random damage to real files: every result is a zone or a ``TZif/ParseError``, never a crash.
    @Test func survivesRandomDamage() {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func random(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        var parsed = 0
        for name in ["Europe/Madrid", "Australia/Lord_Howe", "Pacific/Apia"] {
            let original = TZifFixture.system(name)
            guard !original.isEmpty else { continue }
            for _ in 0..<700 {
                var bytes = original
                for _ in 0...random(4) { bytes[random(bytes.count)] = UInt8(random(256)) }
                if let zone = try? TZif.parse(bytes, name: name) {
                    parsed += 1
                    _ = zone.offset(at: Int64(random(4_000_000_000)) - 2_000_000_000)
                    _ = zone.startOfDay(zone.day(at: Int64(random(4_000_000_000))))
                }
            }
        }
        #expect(parsed > 0, "some damage (in designations, indicators) leaves a usable file")
    }

    static func error(_ bytes: [UInt8]) -> TZif.ParseError? {
        do {
            _ = try TZif.parse(bytes, name: "x")
            return nil
        } catch {
            return error
        }
    }
}
