import MotionCore

/// Reading the definition's objects member by member, each error with the pointer of its field.
extension ExerciseDefinition {
    /// The top-level members; each may appear once (``KnownMembers``).
    private enum Member: Int, CaseIterable {
        case id, name, view, kind, sidedness, posture, measurement, direction, unit, thresholds, target, rules
        case smoothing, builtin, version, joints, holdSeconds, faults, names

        var name: StaticString {
            switch self {
            case .id: "id"
            case .name: "name"
            case .view: "view"
            case .kind: "kind"
            case .sidedness: "sidedness"
            case .posture: "posture"
            case .measurement: "measurement"
            case .direction: "direction"
            case .unit: "unit"
            case .thresholds: "thresholds"
            case .target: "target"
            case .rules: "rules"
            case .smoothing: "smoothing"
            case .builtin: "builtin"
            case .version: "version"
            case .joints: "joints"
            case .holdSeconds: "holdSeconds"
            case .faults: "faults"
            case .names: "names"
            }
        }
    }

    private enum ThresholdsMember: Int, CaseIterable {
        case rest, enter, exit, minAmplitude, minDuration, maxDuration, holdSeconds, holdTolerance

        var name: StaticString {
            switch self {
            case .rest: "rest"
            case .enter: "enter"
            case .exit: "exit"
            case .minAmplitude: "minAmplitude"
            case .minDuration: "minDuration"
            case .maxDuration: "maxDuration"
            case .holdSeconds: "holdSeconds"
            case .holdTolerance: "holdTolerance"
            }
        }
    }

    private enum SmoothingMember: Int, CaseIterable {
        case minCutoff, beta, derivativeCutoff

        var name: StaticString {
            switch self {
            case .minCutoff: "minCutoff"
            case .beta: "beta"
            case .derivativeCutoff: "derivativeCutoff"
            }
        }
    }

    private enum RuleMember: Int, CaseIterable {
        case fault, measurement, limit, relativeToStart

        var name: StaticString {
            switch self {
            case .fault: "fault"
            case .measurement: "measurement"
            case .limit: "limit"
            case .relativeToStart: "relativeToStart"
            }
        }
    }

    private enum MeasurementMember: Int, CaseIterable {
        case type, joints, segments, segment, reference, joint, above, per

        var name: StaticString {
            switch self {
            case .type: "type"
            case .joints: "joints"
            case .segments: "segments"
            case .segment: "segment"
            case .reference: "reference"
            case .joint: "joint"
            case .above: "above"
            case .per: "per"
            }
        }
    }

    /// The thresholds as given, before defaults.
    private struct ThresholdsDraft {
        var values: [ThresholdsMember: Double] = [:]
    }

    // MARK: Objects

    /// Reads the definition object at the reader's position (then the caller checks ``Exercise/problems``).
    static func read(_ reader: inout JSONReader, pathID: String?) throws -> Exercise {
        let root = JSONPointer()
        guard try reader.peekKind() == .object else {
            throw invalid(root, "an exercise definition must be a JSON object")
        }
        var id: String?
        var name: String?
        var view: Exercise.View?
        var kind: Exercise.Kind?
        var sidedness = Defaults.sidedness
        var posture: Exercise.Posture?
        var measurement: Measurement?
        var direction = Defaults.direction
        var thresholds: ThresholdsDraft?
        var target: Double?
        var rules: [FormRule] = []
        var smoothing: [SmoothingMember: Double] = [:]
        var seen = KnownMembers()
        try reader.beginObject()
        var first = true
        while let key = try reader.nextKey(&first) {
            guard let member = Self.member(Member.allCases, key, reader, \.name) else {
                throw unknownMember(key, in: root, reader)
            }
            let pointer = root.appending("\(member.name)")
            guard seen.insert(member.rawValue) else { throw invalid(pointer, "duplicate member \"\(member.name)\"") }
            switch member {
            case .id: id = try readString(&reader, pointer)
            case .name: name = try readString(&reader, pointer)
            case .view: view = try readEnum(&reader, pointer, Exercise.View.self)
            case .kind: kind = try readEnum(&reader, pointer, Exercise.Kind.self)
            case .sidedness: sidedness = try readEnum(&reader, pointer, Exercise.Sidedness.self)
            case .posture:
                posture = try reader.readNullIfPresent() ? nil : try readEnum(&reader, pointer, Exercise.Posture.self)
            case .measurement: measurement = try readMeasurement(&reader, pointer)
            case .direction: direction = try readEnum(&reader, pointer, Exercise.Direction.self)
            case .thresholds: thresholds = try readThresholds(&reader, pointer)
            case .target: target = try readNumber(&reader, pointer)
            case .rules: rules = try readRules(&reader, pointer)
            case .smoothing: smoothing = try readSmoothing(&reader, pointer)
            case .unit, .builtin, .version, .joints, .holdSeconds, .faults, .names: try reader.skipValue()
            }
        }

        if let pathID {
            if let id, id != pathID {
                throw invalid(root.appending("id"), "id must be \"\(pathID)\", the id in the path, or left out")
            }
            id = pathID
        }
        guard let id else { throw missing(root.appending("id")) }
        guard let name else { throw missing(root.appending("name")) }
        guard let view else { throw missing(root.appending("view")) }
        guard let kind else { throw missing(root.appending("kind")) }
        guard let measurement else { throw missing(root.appending("measurement")) }
        guard let thresholds else { throw missing(root.appending("thresholds")) }
        let values = thresholds.values
        for required in [ThresholdsMember.rest, .enter, .exit] where values[required] == nil {
            throw missing(root.appending("thresholds").appending("\(required.name)"))
        }
        guard let target else { throw missing(root.appending("target")) }
        let unit = measurement.unit
        let defaultSmoothing = Defaults.smoothing(for: unit)
        return Exercise(
            id: id, name: name, view: view, kind: kind, sidedness: sidedness, posture: posture,
            measurement: measurement, direction: direction,
            thresholds: Thresholds(
                rest: values[.rest] ?? 0, enter: values[.enter] ?? 0, exit: values[.exit] ?? 0,
                minAmplitude: values[.minAmplitude] ?? Defaults.minAmplitude,
                minDuration: values[.minDuration] ?? Defaults.minDuration,
                maxDuration: values[.maxDuration] ?? Defaults.maxDuration,
                holdSeconds: values[.holdSeconds] ?? Defaults.holdSeconds,
                holdTolerance: values[.holdTolerance] ?? Defaults.holdTolerance(for: unit)),
            target: target, rules: rules,
            smoothing: Smoothing(
                minCutoff: smoothing[.minCutoff] ?? defaultSmoothing.minCutoff,
                beta: smoothing[.beta] ?? defaultSmoothing.beta,
                derivativeCutoff: smoothing[.derivativeCutoff] ?? defaultSmoothing.derivativeCutoff),
            version: 1, isBuiltin: false)
    }

    private static func readThresholds(_ reader: inout JSONReader, _ pointer: JSONPointer) throws -> ThresholdsDraft {
        var draft = ThresholdsDraft()
        try readObject(&reader, pointer, ThresholdsMember.allCases, \.name) { reader, member, pointer in
            draft.values[member] = try readNumber(&reader, pointer)
        }
        return draft
    }

    private static func readSmoothing(
        _ reader: inout JSONReader, _ pointer: JSONPointer
    ) throws -> [SmoothingMember: Double] {
        var values: [SmoothingMember: Double] = [:]
        try readObject(&reader, pointer, SmoothingMember.allCases, \.name) { reader, member, pointer in
            values[member] = try readNumber(&reader, pointer)
        }
        return values
    }

    private static func readRules(_ reader: inout JSONReader, _ pointer: JSONPointer) throws -> [FormRule] {
        guard try reader.peekKind() == .array else { throw invalid(pointer, "rules must be an array of form rules") }
        var rules: [FormRule] = []
        try reader.beginArray()
        var first = true
        while try reader.nextElement(&first) {
            guard rules.count < Exercise.maxRules else {
                throw invalid(pointer, "at most \(Exercise.maxRules) form rules")
            }
            rules.append(try readRule(&reader, pointer.appending(rules.count)))
        }
        return rules
    }

    private static func readRule(_ reader: inout JSONReader, _ pointer: JSONPointer) throws -> FormRule {
        var fault: FormFeedback?
        var measurement: Measurement?
        var limit: Double?
        var relativeToStart = false
        try readObject(&reader, pointer, RuleMember.allCases, \.name) { reader, member, pointer in
            switch member {
            case .fault: fault = try readEnum(&reader, pointer, FormFeedback.self)
            case .measurement: measurement = try readMeasurement(&reader, pointer)
            case .limit: limit = try readNumber(&reader, pointer)
            case .relativeToStart: relativeToStart = try readBool(&reader, pointer)
            }
        }
        guard let fault else { throw missing(pointer.appending("fault")) }
        guard let measurement else { throw missing(pointer.appending("measurement")) }
        guard let limit else { throw missing(pointer.appending("limit")) }
        return FormRule(fault: fault, measurement: measurement, limit: limit, relativeToStart: relativeToStart)
    }

    /// Reads a measurement object: its members in any order, then checks that they are those its `type` takes.
    private static func readMeasurement(_ reader: inout JSONReader, _ pointer: JSONPointer) throws -> Measurement {
        var type: MeasurementType?
        var joints: [JointReference] = []
        var segments: [Segment] = []
        var single: [MeasurementMember: Segment] = [:]
        var joint: [MeasurementMember: JointReference] = [:]
        var given: [MeasurementMember] = []
        try readObject(&reader, pointer, MeasurementMember.allCases, \.name) { reader, member, pointer in
            given.append(member)
            switch member {
            case .type: type = try readEnum(&reader, pointer, MeasurementType.self)
            case .joints: joints = try readArray(&reader, pointer, of: "joint names", max: 3, readJoint)
            case .segments: segments = try readArray(&reader, pointer, of: "segments", max: 2, readSegment)
            case .segment, .reference, .per: single[member] = try readSegment(&reader, pointer)
            case .joint, .above: joint[member] = try readJoint(&reader, pointer)
            }
        }
        guard let type else { throw missing(pointer.appending("type")) }
        let takes = type.members
        for member in given where member != .type && !takes.contains("\(member.name)") {
            throw invalid(
                pointer.appending("\(member.name)"),
                "a \(type.rawValue) measurement takes \(takes.map { "\"\($0)\"" }.joined(separator: ", ")) besides type"
            )
        }
        for name in takes where !given.contains(where: { "\($0.name)" == name }) {
            throw missing(pointer.appending(name))
        }
        func count(_ expected: Int, of values: Int, _ member: String, _ what: String) throws {
            guard values == expected else { throw invalid(pointer.appending(member), "\(type.rawValue) takes \(what)") }
        }
        switch type {
        case .flexion:
            try count(3, of: joints.count, "joints", "three joints: proximal, joint, distal")
            return .flexion(proximal: joints[0], joint: joints[1], distal: joints[2])
        case .angleBetween:
            try count(2, of: segments.count, "segments", "two segments")
            return .angleBetween(segments[0], segments[1])
        case .inclination: return .inclination(try present(single[.segment]))
        case .tilt: return .tilt(try present(single[.segment]))
        case .tiltAgainst:
            return .tiltAgainst(try present(single[.segment]), reference: try present(single[.reference]))
        case .inclinationBeyond:
            return .inclinationBeyond(try present(single[.segment]), reference: try present(single[.reference]))
        case .lean: return .lean(try present(single[.segment]), reference: try present(single[.reference]))
        case .distance:
            try count(2, of: joints.count, "joints", "two joints")
            return .distance(joints[0], joints[1], per: try present(single[.per]))
        case .height:
            return .height(
                of: try present(joint[.joint]), above: try present(joint[.above]), per: try present(single[.per]))
        case .rise:
            return .rise(of: try present(joint[.joint]), per: try present(single[.per]))
        }
    }

    /// A member checked present above; a failure here is a bug in the member table, reported rather than trapped.
    private static func present<Value>(_ value: Value?) throws -> Value {
        guard let value else { throw invalid(JSONPointer(), "a measurement member is missing") }
        return value
    }

    // MARK: Values

    /// A segment: a name from ``Segment/named`` or an array of two joint references.
    private static func readSegment(_ reader: inout JSONReader, _ pointer: JSONPointer) throws -> Segment {
        switch try reader.peekKind() {
        case .string:
            let token = try reader.readStringToken()
            if let named = Segment.named.first(where: { reader.string(token) == $0.name }) { return named.segment }
            throw invalid(
                pointer,
                "unknown segment \"\(reader.string(token, maxBytes: 64))\": a segment is one of "
                    + Segment.named.map(\.name).joined(separator: ", ") + ", or two joints")
        case .array:
            let ends = try readArray(&reader, pointer, of: "joint names", max: 2, readJoint)
            guard ends.count == 2 else { throw invalid(pointer, "a segment is two joints: [from, to]") }
            return Segment(from: ends[0], to: ends[1])
        default:
            throw invalid(pointer, "\(pointer.label) must be a segment name or an array of two joint names")
        }
    }

    /// A joint reference: `"elbow"`, `"opposite.shoulder"`, `"neck"`.
    private static func readJoint(_ reader: inout JSONReader, _ pointer: JSONPointer) throws -> JointReference {
        guard try reader.peekKind() == .string else {
            throw invalid(pointer, "\(pointer.label) must be a joint name")
        }
        let token = try reader.readStringToken()
        guard let reference = JointReference(reader.string(token)) else {
            throw invalid(
                pointer,
                "unknown joint \"\(reader.string(token, maxBytes: 64))\": a joint is one of "
                    + JointReference.Part.allCases.map(\.rawValue).joined(separator: ", ")
                    + ", the sided ones optionally as \"opposite.<part>\"")
        }
        return reference
    }

    /// An array of at most `max` values, each read by `element` with its index's pointer.
    private static func readArray<Element>(
        _ reader: inout JSONReader, _ pointer: JSONPointer, of what: String, max: Int,
        _ element: (inout JSONReader, JSONPointer) throws -> Element
    ) throws -> [Element] {
        guard try reader.peekKind() == .array else {
            throw invalid(pointer, "\(pointer.label) must be an array of \(what)")
        }
        var values: [Element] = []
        try reader.beginArray()
        var first = true
        while try reader.nextElement(&first) {
            guard values.count < max else { throw invalid(pointer.appending(values.count), "at most \(max) \(what)") }
            values.append(try element(&reader, pointer.appending(values.count)))
        }
        return values
    }

    /// An object whose members are `members`: each given at most once, any other refused.
    private static func readObject<Known: RawRepresentable>(
        _ reader: inout JSONReader, _ pointer: JSONPointer, _ members: [Known], _ name: (Known) -> StaticString,
        _ body: (inout JSONReader, Known, JSONPointer) throws -> Void
    ) throws where Known.RawValue == Int {
        guard try reader.peekKind() == .object else { throw invalid(pointer, "\(pointer.label) must be an object") }
        var seen = KnownMembers()
        try reader.beginObject()
        var first = true
        while let key = try reader.nextKey(&first) {
            guard let member = Self.member(members, key, reader, name) else {
                throw unknownMember(key, in: pointer, reader)
            }
            let memberPointer = pointer.appending("\(name(member))")
            guard seen.insert(member.rawValue) else {
                throw invalid(memberPointer, "duplicate member \"\(name(member))\"")
            }
            try body(&reader, member, memberPointer)
        }
    }

    private static func member<Known>(
        _ members: [Known], _ key: JSONReader.StringToken, _ reader: JSONReader, _ name: (Known) -> StaticString
    ) -> Known? {
        members.first { reader.key(key, is: name($0)) }
    }

    private static func readString(_ reader: inout JSONReader, _ pointer: JSONPointer) throws -> String {
        guard try reader.peekKind() == .string else { throw invalid(pointer, "\(pointer.label) must be a string") }
        return try reader.readString()
    }

    private static func readBool(_ reader: inout JSONReader, _ pointer: JSONPointer) throws -> Bool {
        guard try reader.peekKind() == .bool else { throw invalid(pointer, "\(pointer.label) must be true or false") }
        return try reader.readBool()
    }

    /// A finite number: JSON reads `1e999` as infinity, which no field can hold.
    private static func readNumber(_ reader: inout JSONReader, _ pointer: JSONPointer) throws -> Double {
        guard try reader.peekKind() == .number else { throw invalid(pointer, "\(pointer.label) must be a number") }
        let value = try reader.readNumber()
        guard value.isFinite else { throw invalid(pointer, "\(pointer.label) is out of range") }
        return value
    }

    private static func readEnum<Value: RawRepresentable & CaseIterable>(
        _ reader: inout JSONReader, _ pointer: JSONPointer, _: Value.Type
    ) throws -> Value where Value.RawValue == String {
        let choices = Value.allCases.map { "\"\($0.rawValue)\"" }.joined(separator: ", ")
        guard try reader.peekKind() == .string else {
            throw invalid(pointer, "\(pointer.label) must be one of \(choices)")
        }
        let token = try reader.readStringToken()
        guard let value = Value(rawValue: reader.string(token)) else {
            throw invalid(
                pointer, "\(pointer.label) must be one of \(choices), not \"\(reader.string(token, maxBytes: 64))\"")
        }
        return value
    }

    // MARK: Errors

    private static func invalid(_ pointer: JSONPointer, _ message: String) -> WireError {
        WireError(code: .invalidExercise, message: message, pointer: pointer.description)
    }

    private static func missing(_ pointer: JSONPointer) -> WireError {
        invalid(pointer, "\(pointer.label) is required")
    }

    private static func unknownMember(
        _ key: JSONReader.StringToken, in object: JSONPointer, _ reader: JSONReader
    ) -> WireError {
        let name = reader.string(key)
        return invalid(
            object.appending(name),
            "unknown member \"\(reader.string(key, maxBytes: 64))\" in \(object.label)")
    }
}
