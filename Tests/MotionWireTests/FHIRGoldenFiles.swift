import Foundation
import Testing

/// The golden files of the FHIR export, `Fixtures/fhir/*.json` beside this file: pretty-printed, compared with the
/// encoder's output byte for byte once their whitespace outside strings is taken out (member order, number forms and
/// escapes all count).
///
/// `FHIR_GOLDEN=write swift test --filter FHIREncoderTests` writes them again from the encoder's output; a file that
/// is missing fails the test, which writes nothing unless asked.
enum FHIRGoldenFiles {
    /// The directory of the golden files.
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .appendingPathComponent("Fixtures/fhir")

    /// Whether the run writes the golden files rather than reading them.
    static var writes: Bool { ProcessInfo.processInfo.environment["FHIR_GOLDEN"] == "write" }

    /// The golden file `name`, compact; or, when writing, `encoded` written pretty-printed and returned.
    static func expected(_ name: String, encoded: [UInt8]) throws -> [UInt8] {
        let url = directory.appendingPathComponent(name + ".json")
        if writes {
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try Data(prettyPrinted(encoded)).write(to: url)
            return encoded
        }
        guard let data = FileManager.default.contents(atPath: url.path) else {
            Issue.record("\(url.path) is missing: FHIR_GOLDEN=write writes it")
            return []
        }
        return compact(Array(data))
    }

    /// JSON text without the whitespace outside strings.
    static func compact(_ json: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var inString = false
        var escaped = false
        for byte in json {
            if inString {
                output.append(byte)
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
                output.append(byte)
            } else if ![0x20, 0x0A, 0x0D, 0x09].contains(byte) {
                output.append(byte)
            }
        }
        return output
    }

    /// Compact JSON text indented by one space a level, each member and element on a line of its own; the text of
    /// every token kept as it is.
    static func prettyPrinted(_ json: [UInt8]) -> [UInt8] {
        var output: [UInt8] = []
        var depth = 0
        var inString = false
        var escaped = false
        func newline() {
            output.append(0x0A)
            output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: depth))
        }
        for byte in json {
            if inString {
                output.append(byte)
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""):
                inString = true
                output.append(byte)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                output.append(byte)
                depth += 1
                newline()
            case UInt8(ascii: "}"), UInt8(ascii: "]"):
                depth -= 1
                newline()
                output.append(byte)
            case UInt8(ascii: ","):
                output.append(byte)
                newline()
            case UInt8(ascii: ":"):
                output.append(contentsOf: [byte, UInt8(ascii: " ")])
            default:
                output.append(byte)
            }
        }
        output.append(0x0A)
        return output
    }
}
