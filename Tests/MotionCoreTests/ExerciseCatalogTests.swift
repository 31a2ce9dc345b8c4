import Foundation
import Testing

@testable import MotionCore

@Suite("Exercise catalog")
struct ExerciseCatalogTests {
    static let expectedIDs = [
        "elbowFlexion", "shoulderFlexion", "shoulderAbduction", "shoulderAbductionHold", "hipAbduction",
        "kneeExtension", "squat", "ankleDorsiflexion",
    ]

    @Test func catalogHasTheEightExpectedUniqueIDs() {
        let ids = Exercise.catalog.map(\.id)
        #expect(ids == Self.expectedIDs)
        #expect(Set(ids).count == ids.count)
    }

    @Test(arguments: expectedIDs)
    func namedFindsEachEntry(_ id: String) throws {
        let exercise = try #require(Exercise.named(id))
        #expect(exercise.id == id)
        #expect(exercise == Exercise.catalog.first { $0.id == id })
    }

    @Test(arguments: ["", "Squat", "squats", "unknown"])
    func namedReturnsNilForUnknownIDs(_ id: String) {
        #expect(Exercise.named(id) == nil)
    }

    @Test(arguments: expectedIDs)
    func everyEntryIsValid(_ id: String) throws {
        let exercise = try #require(Exercise.named(id))
        #expect(exercise.validationErrors.isEmpty, "\(exercise.validationErrors)")
        #expect(!exercise.name.isEmpty)
        #expect(exercise.target > exercise.thresholds.enter || exercise.kind == .hold)
    }

    static let expectedFaults: [(String, FormFeedbackSet)] = [
        ("elbowFlexion", [.keepUpperArmStill, .keepTrunkUpright]),
        ("shoulderFlexion", [.keepElbowStraight, .keepTrunkUpright]),
        ("shoulderAbduction", [.keepElbowStraight, .keepTrunkUpright, .keepShouldersLevel]),
        ("shoulderAbductionHold", [.keepElbowStraight, .keepTrunkUpright, .keepShouldersLevel]),
        ("hipAbduction", [.keepKneeStraight, .keepTrunkUpright, .keepHipsLevel]),
        ("kneeExtension", [.keepThighStill]),
        ("squat", [.keepTrunkUpright]),
        ("ankleDorsiflexion", []),
    ]

    @Test(arguments: expectedFaults)
    func possibleFaultsMatchTheTable(_ id: String, _ faults: FormFeedbackSet) throws {
        let exercise = try #require(Exercise.named(id))
        #expect(FormFeedbackSet(exercise.possibleFaults) == faults)
        #expect(exercise.possibleFaults == Array(faults), "in vocabulary order, without duplicates")
    }

    @Test func kindsSidednessAndViews() throws {
        let hold = try #require(Exercise.named("shoulderAbductionHold"))
        #expect(hold.kind == .hold)
        #expect(Exercise.catalog.filter { $0.kind == .hold }.map(\.id) == ["shoulderAbductionHold"])
        #expect(Exercise.catalog.filter { $0.sidedness == .bilateral }.map(\.id) == ["squat"])
        #expect(
            Exercise.catalog.filter { $0.view == .frontal }.map(\.id)
                == ["shoulderAbduction", "shoulderAbductionHold", "hipAbduction"])
    }

    // MARK: Validation

    private static func elbow(_ change: (inout Exercise) -> Void) -> Exercise {
        var exercise = Exercise.elbowFlexion
        change(&exercise)
        return exercise
    }

    @Test(arguments: [40.0, 60, 61])
    func exitAtOrAboveEnterIsInvalid(exit: Double) {
        let exercise = Self.elbow {
            $0.thresholds.rest = 30
            $0.thresholds.exit = exit
            $0.thresholds.enter = 40
        }
        #expect(exercise.problems.map(\.pointer).contains("/thresholds/enter"))
    }

    @Test func restAboveExitIsInvalid() {
        let exercise = Self.elbow { $0.thresholds.rest = 41 }
        #expect(exercise.problems.map(\.pointer) == ["/thresholds/exit"])
        #expect(Self.elbow { $0.thresholds.rest = 40 }.validationErrors.isEmpty, "rest may equal exit")
    }

    @Test(arguments: [0.0, -1, .nan])
    func nonPositiveHoldTimeIsInvalidForAHold(holdSeconds: Double) {
        var exercise = Exercise.shoulderAbductionHold
        exercise.thresholds.holdSeconds = holdSeconds
        #expect(exercise.problems.map(\.pointer) == ["/thresholds/holdSeconds"])
    }

    @Test func holdTimeIsNotCheckedForRepsUnlessNonFinite() {
        #expect(Self.elbow { $0.thresholds.holdSeconds = 0 }.validationErrors.isEmpty)
        #expect(
            Self.elbow { $0.thresholds.holdSeconds = .infinity }.problems.map(\.pointer) == ["/thresholds/holdSeconds"])
    }

    @Test(arguments: [Double.nan, .infinity, -.infinity])
    func nonFiniteTargetIsInvalid(target: Double) {
        let exercise = Self.elbow { $0.target = target }
        #expect(exercise.problems.map(\.pointer) == ["/target"])
    }

    @Test func otherBrokenFieldsAreReported() {
        #expect(!Self.elbow { $0.thresholds.minAmplitude = -1 }.validationErrors.isEmpty)
        #expect(!Self.elbow { $0.thresholds.minDuration = 30 }.validationErrors.isEmpty)
        #expect(!Self.elbow { $0.thresholds.minDuration = -0.1 }.validationErrors.isEmpty)
        #expect(!Self.elbow { $0.thresholds.holdTolerance = -1 }.validationErrors.isEmpty)
        #expect(!Self.elbow { $0.smoothing.minCutoff = 0 }.validationErrors.isEmpty)
        #expect(!Self.elbow { $0.smoothing.derivativeCutoff = .nan }.validationErrors.isEmpty)
        #expect(!Self.elbow { $0.smoothing.beta = -0.1 }.validationErrors.isEmpty)
        #expect(!Self.elbow { $0.rules[0].limit = 0 }.validationErrors.isEmpty)
        #expect(!Self.elbow { $0.thresholds.enter = .nan }.validationErrors.isEmpty)
    }

    @Test func everyProblemIsListed() {
        let exercise = Self.elbow {
            $0.thresholds.rest = 50
            $0.thresholds.exit = 45
            $0.thresholds.enter = 45
        }
        #expect(
            exercise.problems.map(\.pointer) == ["/thresholds/exit", "/thresholds/enter"])
        #expect(throws: SessionError.invalidConfiguration(exercise.validationErrors)) {
            try MotionSession(exercise: exercise)
        }
    }
}
