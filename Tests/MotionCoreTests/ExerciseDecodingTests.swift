import Foundation
import MotionCore
import MotionSimulation
import Testing

@Suite("Exercises as JSON data")
struct ExerciseDecodingTests {
    static let minimal = """
        {"id":"wristCurl","name":"Elbow flexion (custom)","view":"sagittal","kind":"rep",
         "measurement":{"flexion":{"proximal":"shoulder","joint":"elbow","distal":"wrist"}},
         "thresholds":{"rest":25,"enter":55,"exit":35,"minAmplitude":30},
         "target":120,
         "rules":[{"fault":"keepUpperArmStill","limit":25,"relativeToStart":true,
                   "measurement":{"angleBetween":{"_0":{"from":"neck","to":"root"},"_1":{"from":"shoulder","to":"elbow"}}}}]}
        """

    @Test func decodesAMinimalEntryWithDefaultsAndCountsWithIt() throws {
        let exercise = try JSONDecoder().decode(Exercise.self, from: Data(Self.minimal.utf8))
        #expect(exercise.sidedness == .oneSided)
        #expect(exercise.smoothing == Smoothing())
        #expect(exercise.thresholds.minDuration == 0.5)
        #expect(exercise.thresholds.maxDuration == 20)
        #expect(exercise.validationErrors.isEmpty)
        #expect(exercise.possibleFaults == [.keepUpperArmStill])
        let simulation = Simulation(exercise: exercise, side: .left, reps: [.init(peak: 110), .init(peak: 100)])
        var engine = try MotionEngine(configuration: SessionConfiguration(exercise: exercise, side: .left))
        var reps = 0
        for pose in simulation.poses() {
            for case .repCompleted in try engine.process(pose) { reps += 1 }
        }
        #expect(reps == 2)
    }

    static let malformed: [(String, String)] = [
        ("missing target", minimal.replacingOccurrences(of: "\"target\":120,", with: "")),
        ("unknown joint", minimal.replacingOccurrences(of: "\"elbow\",\"distal\"", with: "\"wing\",\"distal\"")),
        ("unknown fault", minimal.replacingOccurrences(of: "keepUpperArmStill", with: "keepSmiling")),
        ("wrong type", minimal.replacingOccurrences(of: "\"rest\":25", with: "\"rest\":\"25\"")),
        ("unknown measurement", minimal.replacingOccurrences(of: "{\"flexion\"", with: "{\"twist\"")),
        ("truncated", String(minimal.prefix(120))),
        ("not an object", "[1,2,3]"),
    ]

    @Test(arguments: malformed)
    func refusesMalformedEntriesWithADecodingError(name: String, json: String) {
        #expect(throws: DecodingError.self, "\(name)") {
            _ = try JSONDecoder().decode(Exercise.self, from: Data(json.utf8))
        }
    }

    @Test func decodedButUnsoundEntriesAreRefusedByTheEngine() throws {
        let inverted = Self.minimal.replacingOccurrences(of: "\"exit\":35", with: "\"exit\":70")
        let exercise = try JSONDecoder().decode(Exercise.self, from: Data(inverted.utf8))
        #expect(!exercise.validationErrors.isEmpty)
        #expect(throws: SessionError.self) {
            _ = try MotionEngine(configuration: SessionConfiguration(exercise: exercise, side: .right))
        }
    }
}
