import Foundation
import MotionCore
import Testing

/// Why the reference could not run or answered something unreadable.
private struct ReferenceError: Error, CustomStringConvertible {
    let description: String

    init(_ description: String) { self.description = description }
}

/// The Swift analysis against an independent numpy implementation (blackbox/motion/sparc_reference.py: numpy's
/// `interp`, `fft.rfft`, and SPARC from its definition in Balasubramanian et al. 2015 on one zero-padded `fft.rfft`),
/// on the same raw samples.
///
/// Runs on the interpreter in `PYTHON` (the Makefile sets it to the project's `.venv`), else `.venv/bin/python` when
/// it exists, else `python3` from `PATH`; it needs numpy (`make deps` installs it into `.venv`). Without it the test
/// fails with a message saying what to run; it never skips.
@Suite struct MotionReferenceTests {
    /// A case: a name, raw samples, and the windows to judge.
    private struct Case {
        var name: String
        var samples: [MotionSample]
        var windows: [(start: Double, end: Double)]
    }

    private static let cases: [Case] = {
        let reach = [MotionSignal.reachWindow, (start: 0.5, end: 3.0)]
        return [
            Case(
                name: "reach", samples: MotionSignal.samples(rate: 100, duration: 3.5, MotionSignal.reach()),
                windows: reach),
            Case(
                name: "reach with tremor",
                samples: MotionSignal.samples(rate: 100, duration: 3.5, MotionSignal.reach(tremor: 2)), windows: reach),
            Case(
                name: "reach with tremor, 50 Hz",
                samples: MotionSignal.samples(rate: 50, duration: 3.5, MotionSignal.reach(tremor: 2)), windows: reach),
            Case(
                name: "reach, 60 Hz jittered",
                samples: MotionSignal.samples(rate: 60, duration: 3.5, jitter: 0.4, seed: 3, MotionSignal.reach()),
                windows: reach),
            Case(
                name: "8 Hz sine",
                samples: MotionSignal.samples(rate: 100, duration: 4, MotionSignal.sine(frequency: 8, amplitude: 1.5)),
                windows: [(1, 3), (0.2, 3.9)]),
            Case(
                name: "1 Hz sine",
                samples: MotionSignal.samples(rate: 100, duration: 4, MotionSignal.sine(frequency: 1, amplitude: 1.5)),
                windows: [(1, 3)]),
            Case(
                name: "5 and 2 Hz, 50 Hz jittered",
                samples: MotionSignal.samples(rate: 50, duration: 5, jitter: 0.5, seed: 9) { t in
                    sin(2 * Double.pi * 5 * t) + 2 * sin(2 * Double.pi * 2 * t + 1)
                },
                windows: [(0.7, 4.1), (2, 3)]),
        ]
    }()

    /// The request the script reads: the analysis settings and every case's raw samples and windows.
    private static func request(_ configuration: MotionAnalysisConfiguration) -> [String: Any] {
        [
            "rate": configuration.rate, "gravityCutoff": configuration.gravityCutoff,
            "recentSeconds": configuration.recentSeconds,
            "tremorBand": [configuration.tremorBand.lowerBound, configuration.tremorBand.upperBound],
            "cases": cases.map { item in
                [
                    "name": item.name,
                    "samples": item.samples.map { [$0.t, $0.acceleration.x, $0.acceleration.y, $0.acceleration.z] },
                    "windows": item.windows.map { [$0.start, $0.end] },
                ] as [String: Any]
            },
        ]
    }

    /// Runs the reference on `request` and returns its parsed answer.
    private static func runReference(_ request: [String: Any]) throws -> [[String: Any]] {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let script = root.appendingPathComponent("blackbox/motion/sparc_reference.py")
        let input = FileManager.default.temporaryDirectory.appendingPathComponent("motion-reference-\(UUID()).json")
        try JSONSerialization.data(withJSONObject: request).write(to: input)
        defer { try? FileManager.default.removeItem(at: input) }
        let python: String = {
            if let python = ProcessInfo.processInfo.environment["PYTHON"], !python.isEmpty { return python }
            let venv = root.appendingPathComponent(".venv/bin/python").path
            return FileManager.default.isExecutableFile(atPath: venv) ? venv : "python3"
        }()
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = [python, script.path, input.path]
        let output = Pipe()
        let errors = Pipe()
        process.standardOutput = output
        process.standardError = errors
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        let log = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw ReferenceError(
                """
                \(script.path) on \(python) exited with \(process.terminationStatus); it needs numpy: `make deps` \
                installs it into .venv. Its stderr: \(log.suffix(1500))
                """)
        }
        guard let answer = try JSONSerialization.jsonObject(with: data) as? [String: Any],
            let cases = answer["cases"] as? [[String: Any]]
        else { throw ReferenceError("unreadable answer: \(String(decoding: data.prefix(500), as: UTF8.self))") }
        return cases
    }

    private static func number(_ object: Any?, _ key: String) throws -> Double {
        guard let dictionary = object as? [String: Any], let value = dictionary[key] as? Double else {
            throw ReferenceError("no number \(key) in \(String(describing: object))")
        }
        return value
    }

    /// Agreement expected: the same arithmetic in another order, so rounding only (observed below 1e-12).
    private static let tolerance = 1e-9

    @Test func agreesWithTheNumpyReference() throws {
        let configuration = MotionAnalysisConfiguration()
        let answers = try Self.runReference(Self.request(configuration))
        try #require(answers.count == Self.cases.count)
        var largest = (sparc: 0.0, tremor: 0.0, rms: 0.0)
        for (item, answer) in zip(Self.cases, answers) {
            #expect(answer["name"] as? String == item.name)
            let analyzer = try MotionSignal.analyzer(item.samples, configuration: configuration)
            let levelResult = analyzer.recentLevel()
            let level = try #require(levelResult)
            let recent = answer["recent"]
            #expect(abs(level.rms - (try Self.number(recent, "rms"))) < Self.tolerance, "\(item.name): recent rms")
            #expect(
                abs(level.tremor - (try Self.number(recent, "tremor"))) < Self.tolerance, "\(item.name): recent tremor")
            let windows = try #require(answer["windows"] as? [[String: Any]])
            try #require(windows.count == item.windows.count)
            for (window, expected) in zip(item.windows, windows) {
                let repResult = analyzer.rep(from: window.start, to: window.end)
                let rep = try #require(repResult)
                let smoothness = try #require(rep.smoothness)
                let differences = (
                    sparc: abs(smoothness - (try Self.number(expected, "sparc"))),
                    tremor: abs(rep.tremor - (try Self.number(expected, "tremor"))),
                    rms: abs(rep.rms - (try Self.number(expected, "rms")))
                )
                #expect(
                    differences.sparc < Self.tolerance, "\(item.name) \(window): SPARC \(smoothness) vs \(expected)")
                #expect(
                    differences.tremor < Self.tolerance, "\(item.name) \(window): tremor \(rep.tremor) vs \(expected)")
                #expect(differences.rms < Self.tolerance, "\(item.name) \(window): rms \(rep.rms) vs \(expected)")
                largest = (
                    max(largest.sparc, differences.sparc), max(largest.tremor, differences.tremor),
                    max(largest.rms, differences.rms)
                )
            }
        }
        print(
            "motion reference: largest differences SPARC \(largest.sparc), tremor \(largest.tremor), rms \(largest.rms)"
        )
    }
}
