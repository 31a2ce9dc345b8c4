import Foundation
import Testing

/// The EmbedFiles plugin (Plugins/EmbedFiles) on this target's own `.json` files: every byte survives, whatever
/// Swift string literals would make of it (quotes, backslashes, `\(`, carriage returns, NUL, a final line without
/// a newline), and members are named after the files.
@Suite("EmbedFiles plugin")
struct EmbedFilesTests {
    static func contents(of name: String) throws -> [UInt8] {
        Array(
            try Data(
                contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(name)))
    }

    @Test func embedsEveryByteExactly() throws {
        let file = try Self.contents(of: "escapes.json")
        #expect(file.contains(0) && file.contains(13) && file.contains(0x5C), "the fixture holds NUL, CR and \\")
        #expect(EmbeddedFiles.escapesJSON.withUTF8Buffer { Array($0) } == file)
    }

    @Test func namesMembersAfterTheFiles() throws {
        #expect(
            EmbeddedFiles.errorCodesV2JSON.withUTF8Buffer { Array($0) }
                == (try Self.contents(of: "error-codes.v2.json")))
    }
}
