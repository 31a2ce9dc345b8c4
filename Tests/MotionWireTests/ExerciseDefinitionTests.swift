import Foundation
import MotionCore
import Testing

@testable import MotionWire

/// The exercise definition's JSON form (docs/protocol.md §5.1): what the encoder writes, the decoder reads back.
@Suite struct ExerciseDefinitionTests {
    /// The example of `docs/exercises.md`: every member given.
    static let full = """
        {"id":"kneeBend","name":"Knee bend","view":"sagittal","kind":"rep","sidedness":"oneSided","posture":"standing",
         "measurement":{"type":"flexion","joints":["hip","knee","ankle"]},
         "direction":"rising","unit":"degrees",
         "thresholds":{"rest":20,"enter":50,"exit":30,"minAmplitude":40,"minDuration":0.5,"maxDuration":20,
                       "holdSeconds":5,"holdTolerance":5},
         "target":90,
         "rules":[{"fault":"keepTrunkUpright","measurement":{"type":"inclination","segment":"trunk"},"limit":15,
                   "relativeToStart":false}],
         "smoothing":{"minCutoff":1.5,"beta":0.02,"derivativeCutoff":1.0},
         "builtin":false,"version":1}
        """

    /// The least a definition may say.
    static let minimal = """
        {"id":"wristCurl","name":"Elbow flexion (custom)","view":"sagittal","kind":"rep",
         "measurement":{"type":"flexion","joints":["shoulder","elbow","wrist"]},
         "thresholds":{"rest":25,"enter":55,"exit":35},"target":120}
        """

    static func encode(_ exercise: Exercise) -> [UInt8] {
        var buffer: [UInt8] = []
        WireEncoder.encodeExercise(exercise, into: &buffer)
        return buffer
    }

    /// `exercise` as a client's definition of it decodes: version 1, not built in.
    static func asDecoded(_ exercise: Exercise) -> Exercise {
        var copy = exercise
        copy.isBuiltin = false
        copy.version = 1
        return copy
    }

    @Test(arguments: Exercise.catalog)
    func everyCatalogEntryReadsBackAsItself(_ exercise: Exercise) throws {
        let decoded = try ExerciseDefinition.decode(Self.encode(exercise))
        #expect(decoded == Self.asDecoded(exercise))
        #expect(Self.encode(decoded) == Self.encode(Self.asDecoded(exercise)), "encoding is deterministic")
    }

    /// One exercise per measurement type, with named and two-joint segments, both directions and every posture.
    static let everyMeasurement: [Exercise] = {
        let shoulderToOppositeHip = Segment(from: .shoulder, to: JointReference(.hip, isOpposite: true))
        let measurements: [MotionCore.Measurement] = [
            .flexion(proximal: .hip, joint: .knee, distal: .ankle),
            .flexion(proximal: .shoulder.opposite, joint: .elbow.opposite, distal: .wrist.opposite),
            .angleBetween(.trunk, .upperArm), .angleBetween(shoulderToOppositeHip, .forearm),
            .inclination(.shank), .inclination(Segment(from: .nose, to: .neck)), .tilt(.hipLine), .tilt(.earLine),
            .tiltAgainst(.shoulderLine, reference: .trunk),
            .tiltAgainst(Segment(from: .elbow, to: .elbow.opposite), reference: shoulderToOppositeHip),
            .inclinationBeyond(.trunk, reference: .shank), .inclinationBeyond(.thigh, reference: .forearm),
            .lean(.trunk, reference: .hipLine),
            .lean(Segment(from: .nose, to: .neck), reference: shoulderToOppositeHip),
            .distance(.wrist, .wrist.opposite, per: .shoulderLine), .distance(.ankle, .root, per: .thigh),
            .height(of: .wrist, above: .shoulder, per: .trunk),
            .height(of: .knee, above: .hip.opposite, per: Segment(from: .hip, to: .ankle)),
            .rise(of: .ankle, per: .shank), .rise(of: .nose, per: .trunk),
        ]
        return measurements.enumerated().map { index, measurement in
            let range = measurement.range
            let falling = index % 2 == 1
            let low = range.lowerBound + (range.upperBound - range.lowerBound) * 0.1
            let high = range.lowerBound + (range.upperBound - range.lowerBound) * 0.6
            let span = range.upperBound - range.lowerBound
            let levels: (rest: Double, enter: Double, exit: Double) =
                falling ? (high, low, (low + high) / 2) : (low, high, (low + high) / 2)
            return Exercise(
                id: "m\(index)", name: "Measurement \(index)", view: index % 3 == 0 ? .frontal : .sagittal,
                kind: index % 4 == 0 ? .hold : .rep,
                sidedness: Exercise.Sidedness.allCases[index % 3],
                posture: index % 4 == 3 ? nil : Exercise.Posture.allCases[index % 3], measurement: measurement,
                direction: falling ? .falling : .rising,
                thresholds: Thresholds(
                    rest: levels.rest, enter: levels.enter, exit: levels.exit, minAmplitude: span * 0.05,
                    minDuration: 0.25, maxDuration: 12.5, holdSeconds: 3, holdTolerance: span / 100),
                target: falling ? range.lowerBound + span * 0.05 : range.lowerBound + span * 0.9,
                rules: [
                    FormRule(
                        fault: .keepBodyStraight, measurement: measurement, limit: span / 4, relativeToStart: true),
                    FormRule(
                        fault: .keepHipsLevel, measurement: measurements[(index + 5) % measurements.count],
                        limit: measurements[(index + 5) % measurements.count].range.upperBound / 2),
                ],
                smoothing: Smoothing(minCutoff: 0.75, beta: 0.125, derivativeCutoff: 2))
        }
    }()

    @Test(arguments: everyMeasurement)
    func everyMeasurementTypeReadsBackAsItself(_ exercise: Exercise) throws {
        #expect(exercise.problems == [], "the fixture itself is sound")
        #expect(try ExerciseDefinition.decode(Self.encode(exercise)) == exercise)
    }

    @Test func writesNamedSegmentsByNameAndOthersAsTwoJoints() {
        var buffer: [UInt8] = []
        WireEncoder.encodeMeasurement(
            .tiltAgainst(Segment(from: .shoulder, to: JointReference(.hip, isOpposite: true)), reference: .trunk),
            into: &buffer)
        #expect(text(buffer) == #"{"type":"tiltAgainst","segment":["shoulder","opposite.hip"],"reference":"trunk"}"#)
        for (name, segment) in Segment.named {
            buffer.removeAll()
            WireEncoder.encodeSegment(segment, into: &buffer)
            #expect(text(buffer) == "\"\(name)\"")
        }
        buffer.removeAll()
        WireEncoder.encodeMeasurement(.height(of: .wrist, above: .neck, per: .upperArm), into: &buffer)
        #expect(text(buffer) == #"{"type":"height","joint":"wrist","above":"neck","per":"upperArm"}"#)
        buffer.removeAll()
        WireEncoder.encodeMeasurement(.distance(.wrist, .wrist.opposite, per: .shoulderLine), into: &buffer)
        #expect(text(buffer) == #"{"type":"distance","joints":["wrist","opposite.wrist"],"per":"shoulderLine"}"#)
    }

    @Test func readsASegmentGivenAsTwoJointsThatHasANameAsTheNamedOne() throws {
        let json = Self.minimal.replacingOccurrences(
            of: #"{"type":"flexion","joints":["shoulder","elbow","wrist"]}"#,
            with: #"{"type":"angleBetween","segments":[["neck","root"],"upperArm"]}"#)
        let exercise = try ExerciseDefinition.decode(bytes(json))
        #expect(exercise.measurement == .angleBetween(.trunk, .upperArm))
        #expect(text(Self.encode(exercise)).contains(#""segments":["trunk","upperArm"]"#))
    }

    @Test func readsTheFullExample() throws {
        let exercise = try ExerciseDefinition.decode(bytes(Self.full))
        #expect(
            exercise
                == Exercise(
                    id: "kneeBend", name: "Knee bend", view: .sagittal, kind: .rep, sidedness: .oneSided,
                    posture: .standing, measurement: .flexion(proximal: .hip, joint: .knee, distal: .ankle),
                    thresholds: Thresholds(rest: 20, enter: 50, exit: 30, minAmplitude: 40), target: 90,
                    rules: [FormRule(fault: .keepTrunkUpright, measurement: .inclination(.trunk), limit: 15)]))
    }

    @Test func fillsEveryDefaultOfAMinimalDefinitionAndCountsRepsWithIt() throws {
        let exercise = try ExerciseDefinition.decode(bytes(Self.minimal))
        #expect(exercise.sidedness == .oneSided)
        #expect(exercise.posture == nil)
        #expect(exercise.direction == .rising)
        #expect(exercise.smoothing == Smoothing())
        #expect(
            exercise.thresholds
                == Thresholds(
                    rest: 25, enter: 55, exit: 35, minAmplitude: 0, minDuration: 0.5, maxDuration: 20, holdSeconds: 5,
                    holdTolerance: 5))
        #expect(exercise.rules == [])
        #expect(exercise.version == 1 && !exercise.isBuiltin)

        var engine = try MotionEngine(configuration: SessionConfiguration(exercise: exercise, side: .right))
        var reps = 0
        for pose in elbowCurls(peaks: [110, 100, 90]) {
            for case .repCompleted in try engine.process(pose) { reps += 1 }
        }
        #expect(reps == 3)
    }

    @Test func distancesDefaultToSmoothingAndToleranceScaledForSegmentLengths() throws {
        let json = """
            {"id":"reach","name":"Reach","view":"frontal","kind":"hold",
             "measurement":{"type":"distance","joints":["wrist","opposite.wrist"],"per":"shoulderLine"},
             "thresholds":{"rest":0.5,"enter":2,"exit":1.5},"target":2.5}
            """
        let exercise = try ExerciseDefinition.decode(bytes(json))
        #expect(exercise.unit == .segmentLengths)
        #expect(exercise.smoothing == Smoothing(minCutoff: 1.5, beta: 2.0, derivativeCutoff: 1.0))
        #expect(exercise.thresholds.holdTolerance == 0.1)
        #expect(text(Self.encode(exercise)).contains(#""unit":"segmentLengths""#))
    }

    @Test func ignoresTheReadOnlyMembers() throws {
        let json =
            Self.minimal.dropLast() + """
                ,"builtin":true,"version":7,"unit":"segmentLengths","joints":[1,{"x":null}],"holdSeconds":"x",
                "faults":{"keepSmiling":true}}
                """
        let exercise = try ExerciseDefinition.decode(bytes(String(json)))
        #expect(exercise == (try ExerciseDefinition.decode(bytes(Self.minimal))))
    }

    @Test func whatGetShowsCanBeSentBack() throws {
        for exercise in Exercise.catalog + Self.everyMeasurement {
            let shown = Self.encode(exercise)
            #expect(try ExerciseDefinition.decode(shown, id: exercise.id) == Self.asDecoded(exercise))
        }
    }

    @Test func aPathIDStandsInForAMissingIDAndMustMatchAGivenOne() throws {
        let withoutID = Self.minimal.replacingOccurrences(of: #""id":"wristCurl","#, with: "")
        #expect(try ExerciseDefinition.decode(bytes(withoutID), id: "fromPath").id == "fromPath")
        #expect(try ExerciseDefinition.decode(bytes(Self.minimal), id: "wristCurl").id == "wristCurl")
        #expect(
            wireError { () throws(WireError) in try ExerciseDefinition.decode(bytes(Self.minimal), id: "other") }
                == WireError(
                    code: .invalidExercise, message: #"id must be "other", the id in the path, or left out"#,
                    pointer: "/id"))
        #expect(
            wireError { () throws(WireError) in try ExerciseDefinition.decode(bytes(withoutID)) }?.pointer == "/id")
    }

    @Test func acceptsADefinitionOfExactlyTheSizeLimit() throws {
        let padded =
            Self.minimal
            + String(repeating: " ", count: ExerciseDefinition.defaultLimits.maxMessageBytes - Self.minimal.utf8.count)
        #expect(padded.utf8.count == 16_384)
        #expect(try ExerciseDefinition.decode(bytes(padded)).id == "wristCurl")
    }

    @Test func writesThePointerInRESTErrorBodies() {
        var buffer: [UInt8] = []
        WireEncoder.encodeErrorBody(
            WireError(code: .invalidExercise, message: "m", pointer: "/thresholds/enter"), into: &buffer)
        #expect(text(buffer) == #"{"error":{"code":"invalidExercise","message":"m","pointer":"/thresholds/enter"}}"#)
        buffer.removeAll()
        WireEncoder.encodeErrorBody(WireError(code: .invalidExercise, message: "m", pointer: ""), into: &buffer)
        #expect(text(buffer) == #"{"error":{"code":"invalidExercise","message":"m","pointer":""}}"#)
    }

    @Test func escapesPointersAsRFC6901Says() {
        #expect(JSONPointer().description == "")
        #expect(JSONPointer().appending("a/b").appending("m~n").appending(0).description == "/a~1b/m~0n/0")
        #expect(JSONPointer().appending("~1").description == "/~01")
        #expect(JSONPointer().appending("").description == "/")
        #expect(JSONPointer().appending("rules").appending(1).appending("limit").label == "rules[1].limit")
    }
}

/// Side-view elbow curls of the right arm at 30 fps, one per peak angle, with a rest between them.
func elbowCurls(peaks: [Double]) -> [Pose] {
    var poses: [Pose] = []
    var t = 0.0
    func add(angle: Double) {
        var pose = Pose(timestamp: t, imageSize: ImageSize(width: 1280, height: 720))
        let radians = angle * .pi / 180
        pose[.rightShoulder] = Point(x: 600, y: 250)
        pose[.rightElbow] = Point(x: 600, y: 400)
        pose[.rightWrist] = Point(x: 600 + 150 * sin(radians), y: 400 + 150 * cos(radians))
        pose[.neck] = Point(x: 620, y: 250)
        pose[.root] = Point(x: 620, y: 450)
        poses.append(pose)
        t += 1.0 / 30
    }
    for _ in 0..<30 { add(angle: 10) }
    for peak in peaks {
        for i in 0..<60 { add(angle: 10 + (peak - 10) * sin(Double.pi * Double(i) / 60)) }
        for _ in 0..<30 { add(angle: 10) }
    }
    return poses
}
