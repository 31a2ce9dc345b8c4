import Testing

@testable import SessionStore

@Suite struct SessionCursorTests {
    private let cursor = SessionCursor(
        startedAt: 1_764_424_800_123, id: SessionID(time: 1_764_424_800_123, random: 0xABCD_EF01_2345))

    @Test func roundTrips() throws {
        let text = cursor.encoded
        #expect(text.utf8.count == 39)
        #expect(text.utf8.allSatisfy { $0 < 128 && $0 != UInt8(ascii: "=") })
        #expect(try SessionCursor(parsing: text) == cursor)
    }

    @Test func roundTripsNegativeAndExtremeTimes() throws {
        for time in [Int64.min, -1, 0, .max] {
            let extreme = SessionCursor(startedAt: time, id: SessionID(rawValue: .max))
            #expect(try SessionCursor(parsing: extreme.encoded) == extreme)
        }
    }

    @Test func refusesEverySingleCharacterEdit() {
        let text = Array(cursor.encoded.utf8)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        for position in text.indices {
            for replacement in alphabet where replacement != text[position] {
                var edited = text
                edited[position] = replacement
                #expect(throws: SessionStoreError.invalidCursor) {
                    try SessionCursor(parsing: String(decoding: edited, as: UTF8.self))
                }
            }
        }
    }

    @Test func refusesTruncatedAndExtendedText() {
        let text = cursor.encoded
        for length in 0..<text.count {
            #expect(throws: SessionStoreError.invalidCursor) { try SessionCursor(parsing: String(text.prefix(length))) }
        }
        for suffix in ["A", "AA", "=", "==", " ", "\n"] {
            #expect(throws: SessionStoreError.invalidCursor) { try SessionCursor(parsing: text + suffix) }
        }
    }

    @Test(arguments: [
        "", "garbage", "!!!!", "eyJzdGFydGVkQXQiOjF9", "'; DROP TABLE sessions; --", String(repeating: "A", count: 39),
        String(repeating: "A", count: 10_000), "01ARZ3NDEKTSV4RRFFQ69G5FAV",
    ])
    func refusesGarbage(_ text: String) {
        #expect(throws: SessionStoreError.invalidCursor) { try SessionCursor(parsing: text) }
    }

    @Test func base64URLIsStrict() {
        #expect(Base64URL.encode([0xFB, 0xFF]) == "-_8")
        #expect(Base64URL.decode("-_8") == [0xFB, 0xFF])
        #expect(Base64URL.decode("-_9") == nil)  // non-zero unused bits
        #expect(Base64URL.decode("A") == nil)  // a lone sixth of a byte
        #expect(Base64URL.decode("+/8") == nil)  // the standard alphabet
        #expect(Base64URL.decode("-_8=") == nil)  // padding
    }
}
