import Basics
import Testing

@testable import SessionStore

@Suite struct SessionIDTests {
    @Test func writesTheSpecExample() {
        // The ULID specification's example time, 1469918176385, is written 01ARYZ6S41.
        let id = SessionID("01ARYZ6S41TSV4RRFFQ69G5FAV")
        #expect(id?.time == 1_469_918_176_385)
        #expect(id?.description == "01ARYZ6S41TSV4RRFFQ69G5FAV")
        #expect(SessionID("01ARZ3NDEKTSV4RRFFQ69G5FAV")?.time == 1_469_922_850_259)
    }

    @Test func writesTheExtremes() {
        #expect(SessionID(time: 0, random: 0).description == "00000000000000000000000000")
        let largest = SessionID(time: SessionID.maximumTime, random: SessionID.randomMask)
        #expect(largest.description == "7ZZZZZZZZZZZZZZZZZZZZZZZZZ")
        #expect(SessionID(largest.description) == largest)
    }

    @Test func roundTripsThroughText() {
        var generator = SeededGenerator(seed: 42)
        for i in 0..<1_000 {
            let id = SessionID.generate(at: 1_700_000_000_000 + Int64(i) * 7_919, using: &generator)
            #expect(SessionID(id.description) == id)
            #expect(id.description.utf8.count == 26)
            #expect(id.time == UInt64(1_700_000_000_000 + Int64(i) * 7_919))
        }
    }

    @Test func sortsByTimeAsValueAndAsText() {
        var generator = SeededGenerator(seed: 7)
        let ids = (0..<200).map { SessionID.generate(at: 1_700_000_000_000 + Int64($0), using: &generator) }
        #expect(ids == ids.sorted())
        #expect(ids.map(\.description) == ids.map(\.description).sorted())
    }

    @Test func keepsOnlyEightyRandomBits() {
        let id = SessionID(time: 5, random: UInt128.max)
        #expect(id.time == 5)
        #expect(id.random == SessionID.randomMask)
    }

    @Test(arguments: [
        "", "01ARZ3NDEKTSV4RRFFQ69G5FA", "01ARZ3NDEKTSV4RRFFQ69G5FAVX", "01arz3ndektsv4rrffq69g5fav",
        "01ARZ3NDEKTSV4RRFFQ69G5FAI", "01ARZ3NDEKTSV4RRFFQ69G5FAL", "01ARZ3NDEKTSV4RRFFQ69G5FAO",
        "01ARZ3NDEKTSV4RRFFQ69G5FAU", "81ARZ3NDEKTSV4RRFFQ69G5FAV", "01ARZ3NDEKTSV4RRFFQ69G5FA ",
        "01ARZ3NDEKTSV4RRFFQ69G5FA\u{0}", "01ARZ3NDEKTSV4RRFFQ69G5FAÉ",
    ])
    func refusesNonCanonicalText(_ text: String) {
        #expect(SessionID(text) == nil)
    }

    @Test func clampsGeneratedTimes() {
        #expect(SessionID.generate(at: -5).time == 0)
        #expect(SessionID.generate(at: .max).time == SessionID.maximumTime)
    }
}

/// The seeded generator of the base module (SplitMix64).
typealias SeededGenerator = SeededRandom
