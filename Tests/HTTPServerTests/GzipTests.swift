import HTTPWire
import Testing

@Suite("gzip")
struct GzipTests {
    @Test func roundTripsAndShrinksText() throws {
        let text = Array(String(repeating: "pose frame ", count: 500).utf8)
        let compressed = Gzip.compress(text)
        #expect(compressed.count < text.count / 10)
        #expect(compressed.prefix(2) == [0x1F, 0x8B])
        #expect(try Gzip.decompress(compressed, limit: text.count) == text)
    }

    @Test func refusesTruncatedCorruptAndOversizedInput() throws {
        let compressed = Gzip.compress(Array(repeating: 0, count: 1 << 20))
        #expect(throws: Gzip.Error.tooLarge(limit: 1000)) { _ = try Gzip.decompress(compressed, limit: 1000) }
        #expect(throws: Gzip.Error.invalidData) {
            _ = try Gzip.decompress(Array(compressed.dropLast(10)), limit: 1 << 21)
        }
        #expect(throws: Gzip.Error.invalidData) { _ = try Gzip.decompress([1, 2, 3, 4], limit: 100) }
        #expect(throws: Gzip.Error.invalidData) { _ = try Gzip.decompress([], limit: 100) }
    }
}
