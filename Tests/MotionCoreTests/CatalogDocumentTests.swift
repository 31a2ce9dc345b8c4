import Foundation
import Testing

@testable import MotionCore

typealias DocumentedMeasurement = MotionCore.Measurement

/// `docs/catalog.md` is kept in step with `Exercise.catalog`: its tables are generated from the catalog (and
/// checked here), and every entry has a section with its clinical source and normal range.
///
/// To regenerate the tables after changing the catalog:
///
///     REGENERATE_CATALOG_DOC=1 swift test --filter CatalogDocumentTests
@Suite("docs/catalog.md")
struct CatalogDocumentTests {
    static let begin = "<!-- BEGIN GENERATED FROM Exercise.catalog: edit the catalog, then regenerate (see below) -->"
    static let end = "<!-- END GENERATED -->"

    static let documentURL = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("docs/catalog.md")

    @Test func theTablesAreTheCatalogs() throws {
        let document = try String(contentsOf: Self.documentURL, encoding: .utf8)
        let start = try #require(document.range(of: Self.begin), "docs/catalog.md lacks the line \(Self.begin)")
        let stop = try #require(document.range(of: Self.end), "docs/catalog.md lacks the line \(Self.end)")
        let current = String(document[start.upperBound..<stop.lowerBound])
        let expected = "\n" + Self.renderTables() + "\n"
        if current != expected, ProcessInfo.processInfo.environment["REGENERATE_CATALOG_DOC"] == "1" {
            let updated = document.replacingCharacters(in: start.upperBound..<stop.lowerBound, with: expected)
            try updated.write(to: Self.documentURL, atomically: true, encoding: .utf8)
            return
        }
        let currentLines = current.split(separator: "\n", omittingEmptySubsequences: false)
        let expectedLines = expected.split(separator: "\n", omittingEmptySubsequences: false)
        let differing = zip(currentLines, expectedLines).enumerated().first { $0.element.0 != $0.element.1 }
        let firstDifference = differing.map {
            "first difference, line \($0.offset + 1):\n- \($0.element.0)\n+ \($0.element.1)"
        }
        #expect(
            current == expected,
            """
            docs/catalog.md's generated tables differ from Exercise.catalog (\(firstDifference ?? "lengths differ")).
            Regenerate them with: REGENERATE_CATALOG_DOC=1 swift test --filter CatalogDocumentTests
            """)
    }

    @Test(arguments: Exercise.catalog.map(\.id))
    func everyEntryHasASectionWithItsSourceAndNormalRange(_ id: String) throws {
        let document = try String(contentsOf: Self.documentURL, encoding: .utf8)
        let heading = try #require(document.range(of: "\n### `\(id)` "), "no section '### `\(id)` …'")
        let rest = document[heading.upperBound...]
        let section = rest[..<(rest.range(of: "\n#")?.lowerBound ?? rest.endIndex)]
        #expect(section.contains("- **Target**"), "the section of \(id) gives its target")
        #expect(section.contains("- **Source**"), "the section of \(id) gives its source and normal range")
        #expect(section.contains("- **Measures**"))
    }

    @Test func theDocumentDoesNotDescribeTheJSONForm() throws {
        let document = try String(contentsOf: Self.documentURL, encoding: .utf8)
        #expect(!document.contains("Every key is required"))
        #expect(document.contains("docs/exercises.md"))
    }

    // MARK: Rendering

    static func renderTables() -> String {
        var lines = [
            "| id | view | kind | sides | direction | posture | measured | unit | rest / enter / exit | min. amplitude "
                + "| target | faults (limit) |",
            "|---|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for exercise in Exercise.catalog {
            let t = exercise.thresholds
            let kind =
                exercise.kind == .hold
                ? "hold \(number(t.holdSeconds)) s, tolerance \(number(t.holdTolerance))" : "rep"
            let faults =
                exercise.rules.isEmpty
                ? "—"
                : exercise.rules.map { "`\($0.fault.rawValue)` (\($0.relativeToStart ? "±" : "")\(number($0.limit)))" }
                    .joined(separator: ", ")
            let cells = [
                "`\(exercise.id)`", exercise.view.rawValue, kind, exercise.sidedness.rawValue,
                exercise.direction.rawValue, exercise.posture?.rawValue ?? "any", describe(exercise.measurement),
                unit(exercise.unit), "\(number(t.rest)) / \(number(t.enter)) / \(number(t.exit))",
                exercise.kind == .hold ? "—" : number(t.minAmplitude), number(exercise.target), faults,
            ]
            lines.append("| " + cells.joined(separator: " | ") + " |")
        }
        lines += [
            "",
            "Form rules (± marks a limit on the change since the start position):",
            "",
            "| exercise | fault | measured | limit |",
            "|---|---|---|---|",
        ]
        for exercise in Exercise.catalog {
            for rule in exercise.rules {
                let limit = (rule.relativeToStart ? "±" : "") + number(rule.limit) + unitSuffix(rule.measurement.unit)
                lines.append(
                    "| `\(exercise.id)` | `\(rule.fault.rawValue)` | \(describe(rule.measurement)) | \(limit) |")
            }
        }
        lines += [
            "",
            "Timing and smoothing (One Euro: `minCutoff` Hz, `beta` per unit of speed, `derivativeCutoff` Hz):",
            "",
            "| exercise | min. / max. duration, s | minCutoff / beta / derivativeCutoff |",
            "|---|---|---|",
        ]
        for exercise in Exercise.catalog {
            let t = exercise.thresholds
            let s = exercise.smoothing
            lines.append(
                "| `\(exercise.id)` | \(number(t.minDuration)) / \(number(t.maxDuration)) | "
                    + "\(number(s.minCutoff)) / \(number(s.beta)) / \(number(s.derivativeCutoff)) |")
        }
        return lines.joined(separator: "\n")
    }

    static func describe(_ measurement: DocumentedMeasurement) -> String {
        switch measurement {
        case .flexion(let proximal, let joint, let distal): "180 − ∠\(proximal)-\(joint)-\(distal)"
        case .angleBetween(let a, let b): "∠(\(name(a)), \(name(b)))"
        case .inclination(let s): "inclination of \(name(s))"
        case .tilt(let s): "tilt of \(name(s))"
        case .tiltAgainst(let s, let reference): "tilt of \(name(s)) against \(name(reference))"
        case .inclinationBeyond(let s, let reference): "inclination of \(name(s)) − of \(name(reference))"
        case .lean(let s, let reference): "lean of \(name(s)) towards the start of \(name(reference))"
        case .distance(let a, let b, let per): "distance \(a)–\(b) / \(name(per))"
        case .height(let joint, let reference, let per): "height of \(joint) above \(reference) / \(name(per))"
        case .rise(let joint, let per): "rise of \(joint) above the floor / \(name(per))"
        }
    }

    static func name(_ segment: Segment) -> String {
        Segment.named.first { $0.segment == segment }?.name ?? segment.description
    }

    static func unit(_ unit: DocumentedMeasurement.Unit) -> String { unit == .degrees ? "°" : "segment lengths" }

    static func unitSuffix(_ unit: DocumentedMeasurement.Unit) -> String { unit == .degrees ? "°" : "" }

    /// `30`, `0.15`, `0.641`: whole numbers without a decimal point, others to three decimals at most.
    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e9 { return String(Int(value)) }
        var text = String(format: "%.3f", value)
        while text.hasSuffix("0") { text.removeLast() }
        return text
    }
}
