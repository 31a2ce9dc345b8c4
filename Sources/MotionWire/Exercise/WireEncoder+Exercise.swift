public import MotionCore
import PortableBasics

/// The exercise definition's JSON form (docs/protocol.md §5.1), as `GET /v1/exercises[/{id}]` and `started` show it.
extension WireEncoder {
    /// Writes an exercise: the whole definition, which ``ExerciseDefinition/decode(_:limits:id:)`` reads back to
    /// the same exercise, then the v1 catalog members kept for older clients:
    ///
    ///     {"id":"elbowFlexion","name":"Elbow flexion","view":"sagittal","kind":"rep","sidedness":"oneSided",
    ///      "posture":null,"measurement":{"type":"flexion","joints":["shoulder","elbow","wrist"]},
    ///      "direction":"rising","unit":"degrees",
    ///      "thresholds":{"rest":30.0,"enter":60.0,"exit":40.0,"minAmplitude":40.0,"minDuration":0.5,
    ///                    "maxDuration":20.0,"holdSeconds":5.0,"holdTolerance":5.0},
    ///      "target":150.0,
    ///      "rules":[{"fault":"keepUpperArmStill","measurement":{"type":"angleBetween","segments":["trunk","upperArm"]},
    ///                "limit":25.0,"relativeToStart":true}, …],
    ///      "smoothing":{"minCutoff":1.5,"beta":0.02,"derivativeCutoff":1.0},
    ///      "builtin":true,"version":1,
    ///      "joints":["shoulder","elbow","wrist"],"holdSeconds":null,"faults":["keepUpperArmStill","keepTrunkUpright"],
    ///      "names":{"en":"Elbow flexion","es":"Flexión de codo"}}
    ///
    /// Every member is written, defaults included, so what a client reads is what it may send back. A segment is
    /// written by its name when ``Segment/named`` has one, else as its two joints (`["shoulder","opposite.hip"]`).
    /// `unit`, `builtin`, `version`, `names` and the v1 members are read-only: the decoder ignores them. `names` holds
    /// a built-in entry's name in each language the catalog speaks (``Exercise/localizedNames``), and is empty for a
    /// custom one. The v1 members:
    /// `joints` are the measured joints relative to the working side, first mention first; `holdSeconds` is the
    /// hold time for `hold` exercises and `null` for `rep` ones; `faults` the possible faults in vocabulary order.
    /// - Parameters:
    ///   - exercise: The exercise.
    ///   - buffer: The buffer to append to.
    public static func encodeExercise(_ exercise: Exercise, into buffer: inout [UInt8]) {
        buffer.appendLiteral(#"{"id":"#)
        buffer.appendJSONString(exercise.id)
        buffer.appendLiteral(#","name":"#)
        buffer.appendJSONString(exercise.name)
        buffer.appendLiteral(#","view":"#)
        buffer.appendJSONString(exercise.view.rawValue)
        buffer.appendLiteral(#","kind":"#)
        buffer.appendJSONString(exercise.kind.rawValue)
        buffer.appendLiteral(#","sidedness":"#)
        buffer.appendJSONString(exercise.sidedness.rawValue)
        buffer.appendLiteral(#","posture":"#)
        if let posture = exercise.posture {
            buffer.appendJSONString(posture.rawValue)
        } else {
            buffer.appendLiteral("null")
        }
        buffer.appendLiteral(#","measurement":"#)
        encodeMeasurement(exercise.measurement, into: &buffer)
        buffer.appendLiteral(#","direction":"#)
        buffer.appendJSONString(exercise.direction.rawValue)
        buffer.appendLiteral(#","unit":"#)
        buffer.appendJSONString(exercise.unit.rawValue)
        let thresholds = exercise.thresholds
        buffer.appendLiteral(#","thresholds":{"rest":"#)
        buffer.appendJSONNumber(thresholds.rest)
        buffer.appendLiteral(#","enter":"#)
        buffer.appendJSONNumber(thresholds.enter)
        buffer.appendLiteral(#","exit":"#)
        buffer.appendJSONNumber(thresholds.exit)
        buffer.appendLiteral(#","minAmplitude":"#)
        buffer.appendJSONNumber(thresholds.minAmplitude)
        buffer.appendLiteral(#","minDuration":"#)
        buffer.appendJSONNumber(thresholds.minDuration)
        buffer.appendLiteral(#","maxDuration":"#)
        buffer.appendJSONNumber(thresholds.maxDuration)
        buffer.appendLiteral(#","holdSeconds":"#)
        buffer.appendJSONNumber(thresholds.holdSeconds)
        buffer.appendLiteral(#","holdTolerance":"#)
        buffer.appendJSONNumber(thresholds.holdTolerance)
        buffer.appendLiteral(#"},"target":"#)
        buffer.appendJSONNumber(exercise.target)
        buffer.appendLiteral(#","rules":["#)
        for (index, rule) in exercise.rules.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            buffer.appendLiteral(#"{"fault":"#)
            buffer.appendJSONString(rule.fault.rawValue)
            buffer.appendLiteral(#","measurement":"#)
            encodeMeasurement(rule.measurement, into: &buffer)
            buffer.appendLiteral(#","limit":"#)
            buffer.appendJSONNumber(rule.limit)
            buffer.appendLiteral(#","relativeToStart":"#)
            buffer.appendJSONBool(rule.relativeToStart)
            buffer.append(UInt8(ascii: "}"))
        }
        let smoothing = exercise.smoothing
        buffer.appendLiteral(#"],"smoothing":{"minCutoff":"#)
        buffer.appendJSONNumber(smoothing.minCutoff)
        buffer.appendLiteral(#","beta":"#)
        buffer.appendJSONNumber(smoothing.beta)
        buffer.appendLiteral(#","derivativeCutoff":"#)
        buffer.appendJSONNumber(smoothing.derivativeCutoff)
        buffer.appendLiteral(#"},"builtin":"#)
        buffer.appendJSONBool(exercise.isBuiltin)
        buffer.appendLiteral(#","version":"#)
        buffer.appendJSONInteger(exercise.version)
        buffer.appendLiteral(#","joints":["#)
        for (position, reference) in exercise.measurement.namedJoints.enumerated() {
            if position > 0 { buffer.append(UInt8(ascii: ",")) }
            buffer.appendJSONString(reference.description)
        }
        buffer.appendLiteral(#"],"holdSeconds":"#)
        buffer.appendJSONNumber(exercise.kind == .hold ? thresholds.holdSeconds : nil)
        buffer.appendLiteral(#","faults":"#)
        buffer.appendJSONStrings(exercise.possibleFaults)
        buffer.appendLiteral(#","names":{"#)
        for (position, entry) in exercise.localizedNames.enumerated() {
            if position > 0 { buffer.append(UInt8(ascii: ",")) }
            buffer.appendJSONString(entry.language)
            buffer.append(UInt8(ascii: ":"))
            buffer.appendJSONString(entry.name)
        }
        buffer.appendLiteral("}}")
    }

    /// Writes a measurement object: `{"type":"flexion","joints":["hip","knee","ankle"]}`,
    /// `{"type":"tiltAgainst","segment":"shoulderLine","reference":"trunk"}`, `{"type":"rise","joint":"ankle",
    /// "per":"shank"}`… (docs/protocol.md §5.1; ``MeasurementType`` names the types).
    /// - Parameters:
    ///   - measurement: The measurement.
    ///   - buffer: The buffer to append to.
    public static func encodeMeasurement(_ measurement: Measurement, into buffer: inout [UInt8]) {
        buffer.appendLiteral(#"{"type":"#)
        buffer.appendJSONString(MeasurementType(measurement).rawValue)
        switch measurement {
        case .flexion(let proximal, let joint, let distal):
            buffer.appendLiteral(#","joints":"#)
            appendJoints([proximal, joint, distal], into: &buffer)
        case .angleBetween(let first, let second):
            buffer.appendLiteral(#","segments":["#)
            encodeSegment(first, into: &buffer)
            buffer.append(UInt8(ascii: ","))
            encodeSegment(second, into: &buffer)
            buffer.append(UInt8(ascii: "]"))
        case .inclination(let segment), .tilt(let segment):
            buffer.appendLiteral(#","segment":"#)
            encodeSegment(segment, into: &buffer)
        case .tiltAgainst(let segment, let reference), .inclinationBeyond(let segment, let reference),
            .lean(let segment, let reference):
            buffer.appendLiteral(#","segment":"#)
            encodeSegment(segment, into: &buffer)
            buffer.appendLiteral(#","reference":"#)
            encodeSegment(reference, into: &buffer)
        case .distance(let first, let second, let per):
            buffer.appendLiteral(#","joints":"#)
            appendJoints([first, second], into: &buffer)
            buffer.appendLiteral(#","per":"#)
            encodeSegment(per, into: &buffer)
        case .height(let joint, let above, let per):
            buffer.appendLiteral(#","joint":"#)
            buffer.appendJSONString(joint.description)
            buffer.appendLiteral(#","above":"#)
            buffer.appendJSONString(above.description)
            buffer.appendLiteral(#","per":"#)
            encodeSegment(per, into: &buffer)
        case .rise(let joint, let per):
            buffer.appendLiteral(#","joint":"#)
            buffer.appendJSONString(joint.description)
            buffer.appendLiteral(#","per":"#)
            encodeSegment(per, into: &buffer)
        }
        buffer.append(UInt8(ascii: "}"))
    }

    /// Writes a segment: its name when ``Segment/named`` has one (`"upperArm"`), else its two joints
    /// (`["shoulder","opposite.hip"]`).
    /// - Parameters:
    ///   - segment: The segment.
    ///   - buffer: The buffer to append to.
    public static func encodeSegment(_ segment: Segment, into buffer: inout [UInt8]) {
        if let named = Segment.named.first(where: { $0.segment == segment }) {
            buffer.appendJSONString(named.name)
        } else {
            appendJoints([segment.from, segment.to], into: &buffer)
        }
    }

    private static func appendJoints(_ joints: [JointReference], into buffer: inout [UInt8]) {
        buffer.append(UInt8(ascii: "["))
        for (index, joint) in joints.enumerated() {
            if index > 0 { buffer.append(UInt8(ascii: ",")) }
            buffer.appendJSONString(joint.description)
        }
        buffer.append(UInt8(ascii: "]"))
    }
}
