import Foundation
import Testing

@testable import MotionCore

@Suite("Exercise catalog")
struct ExerciseCatalogTests {
    /// The catalog as documented in docs/catalog.md: id, view, kind, sidedness, direction, posture, unit, faults.
    static let expected: [Entry] = [
        Entry("elbowFlexion", .sagittal, .rep, .oneSided, faults: [.keepUpperArmStill, .keepTrunkUpright]),
        Entry("shoulderFlexion", .sagittal, .rep, .oneSided, faults: [.keepElbowStraight, .keepTrunkUpright]),
        Entry(
            "shoulderAbduction", .frontal, .rep, .oneSided,
            faults: [.keepElbowStraight, .keepTrunkUpright, .keepShouldersLevel]),
        Entry(
            "shoulderAbductionHold", .frontal, .hold, .oneSided,
            faults: [.keepElbowStraight, .keepTrunkUpright, .keepShouldersLevel]),
        Entry(
            "hipAbduction", .frontal, .rep, .oneSided, posture: .standing,
            faults: [.keepKneeStraight, .keepTrunkUpright, .keepHipsLevel]),
        Entry("kneeExtension", .sagittal, .rep, .oneSided, posture: .seated, faults: [.keepThighStill]),
        Entry("squat", .sagittal, .rep, .bilateral, posture: .standing, faults: [.keepTrunkUpright]),
        Entry("ankleDorsiflexion", .sagittal, .rep, .oneSided, posture: .standing),
        Entry(
            "shoulderExternalRotation", .frontal, .rep, .oneSided, unit: .segmentLengths,
            faults: [.keepUpperArmStill, .keepShouldersLevel]),
        Entry("wallSlide", .sagittal, .rep, .bilateral, posture: .standing, faults: [.keepTrunkUpright]),
        Entry("cervicalLateralFlexion", .frontal, .rep, .alternating, faults: [.keepShouldersLevel]),
        Entry("trunkLateralFlexion", .frontal, .rep, .alternating, posture: .standing, faults: [.keepHipsLevel]),
        Entry("standingHipFlexion", .sagittal, .rep, .alternating, posture: .standing, faults: [.keepTrunkUpright]),
        Entry(
            "standingKneeFlexion", .sagittal, .rep, .oneSided, posture: .standing,
            faults: [.keepThighStill, .keepTrunkUpright]),
        Entry(
            "heelRaise", .sagittal, .rep, .bilateral, posture: .standing, unit: .segmentLengths,
            faults: [.keepKneeStraight]),
        Entry("miniSquat", .sagittal, .rep, .bilateral, posture: .standing, faults: [.keepTrunkUpright]),
        Entry("lunge", .sagittal, .rep, .oneSided, posture: .standing, faults: [.keepTrunkUpright]),
        Entry(
            "sitToStand", .sagittal, .rep, .bilateral, direction: .falling, posture: .seated,
            faults: [.keepTrunkUpright]),
        Entry("heelSlide", .sagittal, .rep, .oneSided, posture: .lying),
        Entry("straightLegRaise", .sagittal, .rep, .oneSided, posture: .lying, faults: [.keepKneeStraight]),
        Entry("gluteBridge", .sagittal, .rep, .bilateral, direction: .falling, posture: .lying),
        Entry("gluteBridgeHold", .sagittal, .hold, .bilateral, direction: .falling, posture: .lying),
        Entry(
            "plankHold", .sagittal, .hold, .bilateral, posture: .lying, unit: .segmentLengths,
            faults: [.keepBodyStraight]),
        Entry(
            "sidePlankHold", .frontal, .hold, .oneSided, posture: .lying, unit: .segmentLengths,
            faults: [.keepBodyStraight]),
    ]

    struct Entry: Sendable, CustomStringConvertible {
        var id: String
        var view: Exercise.View
        var kind: Exercise.Kind
        var sidedness: Exercise.Sidedness
        var direction: Exercise.Direction
        var posture: Exercise.Posture?
        var unit: MotionCore.Measurement.Unit
        var faults: FormFeedbackSet

        init(
            _ id: String, _ view: Exercise.View, _ kind: Exercise.Kind, _ sidedness: Exercise.Sidedness,
            direction: Exercise.Direction = .rising, posture: Exercise.Posture? = nil,
            unit: MotionCore.Measurement.Unit = .degrees, faults: FormFeedbackSet = []
        ) {
            self.id = id
            self.view = view
            self.kind = kind
            self.sidedness = sidedness
            self.direction = direction
            self.posture = posture
            self.unit = unit
            self.faults = faults
        }

        var description: String { id }
    }

    static let expectedIDs = expected.map(\.id)

    @Test func catalogHasTheExpectedUniqueIDsInOrder() {
        let ids = Exercise.catalog.map(\.id)
        #expect(ids == Self.expectedIDs)
        #expect(Set(ids).count == ids.count)
        #expect(ids.count >= 20)
        #expect(
            Array(ids.prefix(8)) == [
                "elbowFlexion", "shoulderFlexion", "shoulderAbduction", "shoulderAbductionHold", "hipAbduction",
                "kneeExtension", "squat", "ankleDorsiflexion",
            ], "the original eight keep their ids and places")
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
    func everyEntryIsValidAndBuiltIn(_ id: String) throws {
        let exercise = try #require(Exercise.named(id))
        #expect(exercise.validationErrors.isEmpty, "\(exercise.validationErrors)")
        #expect(!exercise.name.isEmpty)
        #expect(exercise.isBuiltin)
        #expect(exercise.version == 1)
        let sign = exercise.direction.sign
        #expect(sign * (exercise.target - exercise.thresholds.enter) > 0 || exercise.kind == .hold)
        #expect(sign * (exercise.target - exercise.thresholds.enter) >= 0, "the target is at or past the entry")
    }

    @Test(arguments: expected)
    func viewsKindsSidesDirectionsPosturesUnitsAndFaultsMatchTheTable(_ entry: Entry) throws {
        let exercise = try #require(Exercise.named(entry.id))
        #expect(exercise.view == entry.view)
        #expect(exercise.kind == entry.kind)
        #expect(exercise.sidedness == entry.sidedness)
        #expect(exercise.direction == entry.direction)
        #expect(exercise.posture == entry.posture)
        #expect(exercise.unit == entry.unit)
        #expect(FormFeedbackSet(exercise.possibleFaults) == entry.faults)
        #expect(exercise.possibleFaults == Array(entry.faults), "in vocabulary order, without duplicates")
    }

    @Test func segmentLengthEntriesScaleTheirSmoothingToTheUnit() {
        for exercise in Exercise.catalog {
            if exercise.unit == .degrees {
                #expect(exercise.smoothing == Smoothing(), "\(exercise.id)")
            } else {
                // beta = 0.5 / the rep's span in segment lengths (a quarter of the unit conversion 0.02 × 100° /
                // span, for the jitter); these reps go from 0 to the target.
                #expect(abs(exercise.smoothing.beta * exercise.target - 0.5) < 1e-9, "\(exercise.id)")
                #expect(exercise.smoothing.minCutoff == Smoothing().minCutoff)
            }
        }
    }

    @Test func theSquatFamilyJudgesTheTrunkAgainstTheShin() {
        for id in ["squat", "miniSquat", "lunge", "sitToStand"] {
            #expect(Exercise.named(id)?.rules == [Exercise.trunkAlongShin], "\(id)")
        }
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
