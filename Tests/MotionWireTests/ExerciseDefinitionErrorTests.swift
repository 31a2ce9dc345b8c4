import Foundation
import MotionCore
import Testing

@testable import MotionWire

/// Definitions the decoder refuses, each with the pointer of its first bad field: missing, mistyped, unknown or
/// repeated members, unknown vocabulary, values out of range or order; and hostile input — truncated at every
/// byte, oversized, nested deep.
@Suite struct ExerciseDefinitionErrorTests {
    static let full = ExerciseDefinitionTests.full
    static let minimal = ExerciseDefinitionTests.minimal

    static func error(_ json: String, id: String? = nil) -> WireError? {
        wireError { () throws(WireError) in try ExerciseDefinition.decode(bytes(json), id: id) }
    }

    static func pointer(_ json: String) -> String? {
        let error = error(json)
        #expect(error?.code == .invalidExercise, "\(json): \(String(describing: error))")
        return error?.pointer
    }

    /// `full` with `old` replaced by `new` (which must occur).
    static func full(replacing old: String, with new: String) -> String {
        #expect(full.contains(old), "\(old) is not in the fixture")
        return full.replacingOccurrences(of: old, with: new)
    }

    // MARK: Missing members

    @Test(arguments: [
        (#""id":"kneeBend","#, "", "/id"),
        (#""name":"Knee bend","#, "", "/name"),
        (#""view":"sagittal","#, "", "/view"),
        (#""kind":"rep","#, "", "/kind"),
        (#""measurement":{"type":"flexion","joints":["hip","knee","ankle"]},"#, "", "/measurement"),
        (#""rest":20,"#, "", "/thresholds/rest"),
        (#""enter":50,"#, "", "/thresholds/enter"),
        (#""exit":30,"#, "", "/thresholds/exit"),
        (#""target":90,"#, "", "/target"),
        (#"{"fault":"keepTrunkUpright","#, "{", "/rules/0/fault"),
        (#""measurement":{"type":"inclination","segment":"trunk"},"#, "", "/rules/0/measurement"),
        (#","limit":15"#, "", "/rules/0/limit"),
        (#"{"type":"flexion","joints""#, #"{"joints""#, "/measurement/type"),
        (#""joints":["hip","knee","ankle"]"#, #""type2":1"#, "/measurement/type2"),
    ])
    func refusesAMissingRequiredMemberAtItsPointer(_ old: String, _ new: String, _ expected: String) {
        #expect(Self.pointer(Self.full(replacing: old, with: new)) == expected)
    }

    @Test func refusesAMissingThresholdsObject() {
        let json = Self.minimal.replacingOccurrences(of: #""thresholds":{"rest":25,"enter":55,"exit":35},"#, with: "")
        #expect(
            Self.error(json)
                == WireError(code: .invalidExercise, message: "thresholds is required", pointer: "/thresholds"))
    }

    @Test(arguments: [
        (#"{"type":"flexion"}"#, "/measurement/joints"),
        (#"{"type":"angleBetween"}"#, "/measurement/segments"),
        (#"{"type":"inclination"}"#, "/measurement/segment"),
        (#"{"type":"tilt"}"#, "/measurement/segment"),
        (#"{"type":"tiltAgainst","segment":"shoulderLine"}"#, "/measurement/reference"),
        (#"{"type":"inclinationBeyond","reference":"shank"}"#, "/measurement/segment"),
        (#"{"type":"distance","joints":["wrist","opposite.wrist"]}"#, "/measurement/per"),
        (#"{"type":"height","joint":"wrist","per":"trunk"}"#, "/measurement/above"),
        (#"{"type":"rise","per":"shank"}"#, "/measurement/joint"),
        (#"{}"#, "/measurement/type"),
    ])
    func refusesAMeasurementWithoutWhatItsTypeNeeds(_ measurement: String, _ expected: String) {
        let json = Self.full(
            replacing: #"{"type":"flexion","joints":["hip","knee","ankle"]}"#, with: measurement)
        #expect(Self.pointer(json) == expected)
    }

    @Test(arguments: [
        (#"{"type":"flexion","joints":["hip","knee"]}"#, "/measurement/joints"),
        (#"{"type":"flexion","joints":["hip","knee","ankle","wrist"]}"#, "/measurement/joints/3"),
        (#"{"type":"distance","joints":["hip","knee","ankle"],"per":"trunk"}"#, "/measurement/joints"),
        (#"{"type":"angleBetween","segments":["trunk"]}"#, "/measurement/segments"),
        (#"{"type":"angleBetween","segments":["trunk","thigh","shank"]}"#, "/measurement/segments/2"),
        (#"{"type":"inclination","segment":["neck"]}"#, "/measurement/segment"),
        (#"{"type":"inclination","segment":["neck","root","hip"]}"#, "/measurement/segment/2"),
        (#"{"type":"flexion","joints":["hip","knee","ankle"],"segment":"trunk"}"#, "/measurement/segment"),
        (#"{"segment":"trunk","type":"flexion","joints":["hip","knee","ankle"]}"#, "/measurement/segment"),
        (#"{"type":"rise","joint":"ankle","per":"shank","above":"hip"}"#, "/measurement/above"),
        (#"{"type":"inclination","segment":"trunk","per":"trunk"}"#, "/measurement/per"),
    ])
    func refusesTheWrongNumberOrKindOfMeasurementMembers(_ measurement: String, _ expected: String) {
        let json = Self.full(
            replacing: #"{"type":"flexion","joints":["hip","knee","ankle"]}"#, with: measurement)
        #expect(Self.pointer(json) == expected)
    }

    // MARK: Wrong types

    /// Every member path of the full example, with a value of the wrong type for it: each refused at its path.
    static func wrongTypes() -> [(path: [String], value: Any)] {
        var cases: [(path: [String], value: Any)] = []
        let object = try? JSONSerialization.jsonObject(with: Data(full.utf8))
        func walk(_ value: Any, _ path: [String]) {
            switch value {
            case let object as [String: Any]:
                if !path.isEmpty { cases.append((path, [1])) }
                for (key, member) in object where !(path.isEmpty && readOnly.contains(key)) {
                    walk(member, path + [key])
                }
            case let array as [Any]:
                cases.append((path, ["not": "an array"]))
                for (index, element) in array.enumerated() { walk(element, path + [String(index)]) }
            case is NSNumber where path.last == "relativeToStart":  // the fixture's one Boolean outside read-only ones
                cases.append((path, "true"))
                cases.append((path, 0))
            case is NSNumber:
                cases.append((path, "12"))
                cases.append((path, NSNull()))
            case is String:
                cases.append((path, 12))
                cases.append((path, [String]()))
            default: break
            }
        }
        if let object { walk(object, []) }
        return cases
    }
    static let readOnly: Set<String> = ["unit", "builtin", "version"]

    @Test func refusesAWrongTypeAtEveryMemberWithItsPointer() throws {
        let cases = Self.wrongTypes()
        #expect(cases.count > 40)
        for (path, value) in cases {
            var object = try #require(try JSONSerialization.jsonObject(with: Data(Self.full.utf8)) as? [String: Any])
            Self.set(&object, path[...], to: value)
            let json = String(decoding: try JSONSerialization.data(withJSONObject: object), as: UTF8.self)
            let expected = "/" + path.joined(separator: "/")
            let error = Self.error(json)
            #expect(error?.code == .invalidExercise, "\(expected) = \(value)")
            #expect(error?.pointer == expected, "\(expected) = \(value): \(String(describing: error))")
        }
    }

    static func set(_ object: inout [String: Any], _ path: ArraySlice<String>, to value: Any) {
        guard let key = path.first else { return }
        if path.count == 1 {
            object[key] = value
            return
        }
        if var child = object[key] as? [String: Any] {
            set(&child, path.dropFirst(), to: value)
            object[key] = child
        } else if var array = object[key] as? [Any], let index = Int(path[path.startIndex + 1]) {
            if path.count == 2 {
                array[index] = value
            } else if var child = array[index] as? [String: Any] {
                set(&child, path.dropFirst(2), to: value)
                array[index] = child
            } else if var inner = array[index] as? [Any], let innerIndex = Int(path[path.startIndex + 2]) {
                inner[innerIndex] = value
                array[index] = inner
            }
            object[key] = array
        }
    }

    @Test(arguments: [
        ("[]", ""), (#""kneeBend""#, ""), ("12", ""), ("null", ""), ("true", ""),
        (#"{"id":"a","name":"b","view":"frontal","kind":"rep","measurement":"flexion"}"#, "/measurement"),
        (#"{"rules":{"fault":"keepTrunkUpright"}}"#, "/rules"), (#"{"rules":[1]}"#, "/rules/0"),
        (#"{"thresholds":[20,50,30]}"#, "/thresholds"), (#"{"smoothing":null}"#, "/smoothing"),
        (#"{"sidedness":null}"#, "/sidedness"), (#"{"posture":1}"#, "/posture"),
        (#"{"measurement":{"type":"flexion","joints":"hip,knee,ankle"}}"#, "/measurement/joints"),
        (#"{"measurement":{"type":"flexion","joints":[1,2,3]}}"#, "/measurement/joints/0"),
        (#"{"measurement":{"type":"inclination","segment":7}}"#, "/measurement/segment"),
        (#"{"measurement":{"type":"inclination","segment":["neck",{}]}}"#, "/measurement/segment/1"),
        (
            #"{"measurement":{"type":"angleBetween","segments":[["neck","root"],[null,"elbow"]]}}"#,
            "/measurement/segments/1/0"
        ),
    ])
    func refusesAWrongTypeWhereverItIs(_ json: String, _ expected: String) {
        #expect(Self.pointer(json) == expected)
    }

    // MARK: Unknown vocabulary

    @Test(arguments: [
        (#""joints":["hip","knee","ankle"]"#, #""joints":["hip","kneecap","ankle"]"#, "/measurement/joints/1"),
        (#""joints":["hip","knee","ankle"]"#, #""joints":["hip","knee","leftAnkle"]"#, "/measurement/joints/2"),
        (#""joints":["hip","knee","ankle"]"#, #""joints":["opposite.neck","knee","ankle"]"#, "/measurement/joints/0"),
        (#""joints":["hip","knee","ankle"]"#, #""joints":["Hip","knee","ankle"]"#, "/measurement/joints/0"),
        (#""segment":"trunk""#, #""segment":"torso""#, "/rules/0/measurement/segment"),
        (#""segment":"trunk""#, #""segment":["neck","pelvis"]"#, "/rules/0/measurement/segment/1"),
        (#""fault":"keepTrunkUpright""#, #""fault":"keepSmiling""#, "/rules/0/fault"),
        (#""view":"sagittal""#, #""view":"top""#, "/view"),
        (#""kind":"rep""#, #""kind":"reps""#, "/kind"),
        (#""sidedness":"oneSided""#, #""sidedness":"both""#, "/sidedness"),
        (#""posture":"standing""#, #""posture":"kneeling""#, "/posture"),
        (#""direction":"rising""#, #""direction":"up""#, "/direction"),
        (#""type":"flexion""#, #""type":"twist""#, "/measurement/type"),
        (#""type":"inclination""#, #""type":"Inclination""#, "/rules/0/measurement/type"),
    ])
    func refusesUnknownVocabularyAtItsPointer(_ old: String, _ new: String, _ expected: String) {
        #expect(Self.pointer(Self.full(replacing: old, with: new)) == expected)
    }

    @Test func namesTheUnknownJointInTheMessage() {
        let error = Self.error(Self.full(replacing: #""knee","ankle""#, with: #""wing","ankle""#))
        #expect(error?.message.hasPrefix(#"unknown joint "wing": a joint is one of nose, neck, root, eye"#) == true)
    }

    // MARK: Unknown and repeated members

    @Test(arguments: [
        (#""target":90,"#, #""target":90,"targets":91,"#, "/targets"),
        (#""rest":20,"#, #""rest":20,"resting":1,"#, "/thresholds/resting"),
        (#""beta":0.02,"#, #""beta":0.02,"gamma":1,"#, "/smoothing/gamma"),
        (#""limit":15,"#, #""limit":15,"limits":15,"#, "/rules/0/limits"),
        (#""segment":"trunk""#, #""segment":"trunk","side":"left""#, "/rules/0/measurement/side"),
        (#""target":90,"#, #""a/b~c":1,"target":90,"#, "/a~1b~0c"),
        (#""target":90,"#, #""":1,"target":90,"#, "/"),
        (#""target":90,"#, #""Target":90,"#, "/Target"),
        (#""target":90,"#, #""t\u0061rget ":90,"#, "/target "),
    ])
    func refusesAnUnknownMemberAtItsPointer(_ old: String, _ new: String, _ expected: String) {
        #expect(Self.pointer(Self.full(replacing: old, with: new)) == expected)
    }

    @Test(arguments: [
        (#""target":90,"#, #""target":90,"target":90,"#, "/target"),
        (#""target":90,"#, #""target":90,"t\u0061rget":91,"#, "/target"),
        (#""id":"kneeBend","#, #""id":"kneeBend","id":"kneeBend","#, "/id"),
        (#""unit":"degrees","#, #""unit":"degrees","unit":"degrees","#, "/unit"),
        (#""rest":20,"#, #""rest":20,"rest":20,"#, "/thresholds/rest"),
        (#""beta":0.02,"#, #""beta":0.02,"beta":0.02,"#, "/smoothing/beta"),
        (#""limit":15,"#, #""limit":15,"limit":16,"#, "/rules/0/limit"),
        (#""segment":"trunk""#, #""segment":"trunk","segment":"trunk""#, "/rules/0/measurement/segment"),
        (#""type":"flexion","#, #""type":"flexion","type":"flexion","#, "/measurement/type"),
    ])
    func refusesAMemberGivenTwice(_ old: String, _ new: String, _ expected: String) {
        let error = Self.error(Self.full(replacing: old, with: new))
        #expect(error?.code == .invalidExercise)
        #expect(error?.pointer == expected)
        #expect(error?.message.hasPrefix("duplicate member") == true)
    }

    // MARK: Values out of range or order

    @Test(arguments: [
        (#""target":90"#, #""target":1e999"#, "/target"),
        (#""target":90"#, #""target":-1e999"#, "/target"),
        (#""target":90"#, #""target":181"#, "/target"),
        (#""target":90"#, #""target":10"#, "/target"),
        (#""rest":20"#, #""rest":-5"#, "/thresholds/rest"),
        (#""enter":50"#, #""enter":1e400"#, "/thresholds/enter"),
        (#""minAmplitude":40"#, #""minAmplitude":-1"#, "/thresholds/minAmplitude"),
        (#""minDuration":0.5"#, #""minDuration":-0.5"#, "/thresholds/minDuration"),
        (#""maxDuration":20"#, #""maxDuration":0.25"#, "/thresholds/maxDuration"),
        (#""maxDuration":20"#, #""maxDuration":601"#, "/thresholds/maxDuration"),
        (#""holdSeconds":5"#, #""holdSeconds":1e999"#, "/thresholds/holdSeconds"),
        (#""holdTolerance":5"#, #""holdTolerance":-1"#, "/thresholds/holdTolerance"),
        (#""limit":15"#, #""limit":0"#, "/rules/0/limit"),
        (#""limit":15"#, #""limit":180"#, "/rules/0/limit"),
        (#""minCutoff":1.5"#, #""minCutoff":0"#, "/smoothing/minCutoff"),
        (#""beta":0.02"#, #""beta":-0.02"#, "/smoothing/beta"),
        (#""derivativeCutoff":1.0"#, #""derivativeCutoff":1e9"#, "/smoothing/derivativeCutoff"),
        (#""id":"kneeBend""#, #""id":"knee bend""#, "/id"),
        (#""id":"kneeBend""#, #""id":"""#, "/id"),
        (#""name":"Knee bend""#, #""name":"""#, "/name"),
        (#""name":"Knee bend""#, #""name":"Knee\nbend""#, "/name"),
        (#""joints":["hip","knee","ankle"]"#, #""joints":["hip","knee","knee"]"#, "/measurement"),
        (#""segment":"trunk""#, #""segment":["neck","neck"]"#, "/rules/0/measurement"),
    ])
    func refusesValuesOutOfRangeAtTheirPointer(_ old: String, _ new: String, _ expected: String) {
        #expect(Self.pointer(Self.full(replacing: old, with: new)) == expected)
    }

    @Test func refusesAnIDOrNameThatIsTooLong() {
        #expect(Self.pointer(Self.full(replacing: "kneeBend", with: String(repeating: "k", count: 65))) == "/id")
        #expect(Self.pointer(Self.full(replacing: "Knee bend", with: String(repeating: "é", count: 101))) == "/name")
        #expect(Self.error(Self.full(replacing: "kneeBend", with: String(repeating: "k", count: 64))) == nil)
    }

    /// A name is refused as a subject is (``TextRule``): C0 and C1 controls, bidirectional controls and line
    /// separators, raw or escaped; ordinary text from any script is kept.
    @Test(arguments: [
        #"Knee\u202ebend"#, "Knee\u{202E}bend", #"Knee\u2066bend\u2069"#, #"Knee\u200fbend"#, #"Knee\u061cbend"#,
        #"Knee\u0085bend"#, "Knee\u{85}bend", #"Knee\u009fbend"#, #"Knee\u2028bend"#, #"Knee\u0007bend"#,
        #"Knee\u007fbend"#,
    ])
    func refusesANameWithControlOrBidirectionalCharacters(_ name: String) {
        let error = Self.error(Self.full(replacing: #""name":"Knee bend""#, with: #""name":"\#(name)""#))
        #expect(error?.pointer == "/name")
        #expect(
            error?.message == "name must not contain control, bidirectional formatting or line separator characters")
    }

    @Test(arguments: ["Flexión de rodilla", "膝の屈曲", "ثني الركبة", "Knee bend 💪", "e\u{301}"])
    func keepsANameInAnyScript(_ name: String) {
        #expect(Self.error(Self.full(replacing: "Knee bend", with: name)) == nil)
    }

    @Test func refusesMoreThanEightRules() {
        let rule = #"{"fault":"keepTrunkUpright","measurement":{"type":"inclination","segment":"trunk"},"limit":15}"#
        func withRules(_ count: Int) -> String {
            String(Self.minimal.dropLast()) + #","rules":["#
                + Array(repeating: rule, count: count).joined(separator: ",")
                + "]}"
        }
        #expect(Self.error(withRules(8)) == nil)
        #expect(
            Self.error(withRules(9))
                == WireError(code: .invalidExercise, message: "at most 8 form rules", pointer: "/rules"))
    }

    @Test(arguments: [
        // Rising: rest ≤ exit < enter, target above rest.
        ("rising", 20.0, 50.0, 30.0, 90.0, nil as String?),
        ("rising", 20.0, 30.0, 50.0, 90.0, "/thresholds/enter"),
        ("rising", 20.0, 30.0, 30.0, 90.0, "/thresholds/enter"),
        ("rising", 40.0, 50.0, 30.0, 90.0, "/thresholds/exit"),
        ("rising", 20.0, 50.0, 30.0, 20.0, "/target"),
        // Falling: rest ≥ exit > enter, target below rest.
        ("falling", 90.0, 20.0, 40.0, 10.0, nil),
        ("falling", 90.0, 40.0, 20.0, 10.0, "/thresholds/enter"),
        ("falling", 90.0, 40.0, 40.0, 10.0, "/thresholds/enter"),
        ("falling", 30.0, 20.0, 40.0, 10.0, "/thresholds/exit"),
        ("falling", 90.0, 20.0, 40.0, 95.0, "/target"),
        ("falling", 20.0, 50.0, 30.0, 90.0, "/thresholds/exit"),
    ])
    func refusesThresholdsOutOfOrderForTheDirection(
        _ direction: String, _ rest: Double, _ enter: Double, _ exit: Double, _ target: Double, _ expected: String?
    ) {
        let json = """
            {"id":"x","name":"X","view":"sagittal","kind":"rep","direction":"\(direction)",
             "measurement":{"type":"flexion","joints":["hip","knee","ankle"]},
             "thresholds":{"rest":\(rest),"enter":\(enter),"exit":\(exit)},"target":\(target)}
            """
        let error = Self.error(json)
        #expect(error?.pointer == expected, "\(String(describing: error))")
        if expected != nil { #expect(error?.code == .invalidExercise) }
    }

    @Test func refusesATargetOutsideWhatADistanceCanRead() {
        let json = """
            {"id":"reach","name":"Reach","view":"frontal","kind":"rep",
             "measurement":{"type":"distance","joints":["wrist","opposite.wrist"],"per":"shoulderLine"},
             "thresholds":{"rest":0.5,"enter":2,"exit":1.5},"target":45}
            """
        #expect(Self.pointer(json) == "/target")
    }

    // MARK: Hostile input

    @Test func refusesTheDefinitionTruncatedAtEveryByteAsInvalidJSON() {
        let whole = bytes(Self.full)
        for count in 0..<whole.count {
            let error = wireError { () throws(WireError) in try ExerciseDefinition.decode(Array(whole[..<count])) }
            #expect(error?.code == .invalidJSON, "truncated at \(count): \(String(describing: error))")
            #expect(error?.pointer == nil)
        }
        #expect(wireError { () throws(WireError) in try ExerciseDefinition.decode(whole) } == nil)
    }

    @Test func aSyntaxErrorOutranksAnEarlierSemanticOne() {
        let json = #"{"id":1,"name":"x",}"#
        #expect(Self.error(json)?.code == .invalidJSON)
        #expect(Self.error(Self.full + "x")?.code == .invalidJSON)
        #expect(Self.error(#"{"targets":1} {"#)?.code == .invalidJSON)
    }

    @Test func refusesADefinitionOverTheSizeLimitBeforeReadingIt() {
        let padded = Self.minimal + String(repeating: " ", count: 16_384 - Self.minimal.utf8.count + 1)
        let error = Self.error(padded)
        #expect(error == WireError(code: .messageTooBig, message: "an exercise definition is at most 16384 bytes"))
        let huge = #"{"id":""# + String(repeating: "a", count: 1 << 20) + #""}"#
        #expect(Self.error(huge)?.code == .messageTooBig)
        let smaller = WireLimits(maxMessageBytes: 64, maxDepth: 8)
        #expect(
            wireError { () throws(WireError) in try ExerciseDefinition.decode(bytes(Self.minimal), limits: smaller) }?
                .code == .messageTooBig)
    }

    @Test(arguments: [8, 9, 64, 2_000])
    func refusesNestingDeeperThanTheLimitAsInvalidJSON(_ depth: Int) {
        let deep = #"{"id":"# + String(repeating: "[", count: depth) + String(repeating: "]", count: depth) + "}"
        let error = Self.error(deep)
        #expect(error?.code == .invalidJSON)
        #expect(error?.message.hasPrefix("nesting too deep") == true)
        let unknown =
            #"{"x":"# + String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth) + "}"
        #expect(Self.error(unknown)?.code == .invalidJSON)
    }

    @Test func acceptsTheDeepestNestingTheFormNeeds() throws {
        let json =
            Self.minimal.dropLast() + """
                ,"rules":[{"fault":"keepUpperArmStill","limit":25,"relativeToStart":true,
                 "measurement":{"type":"angleBetween","segments":[["neck","root"],["shoulder","elbow"]]}}]}
                """
        let exercise = try ExerciseDefinition.decode(bytes(String(json)))
        #expect(exercise.rules.first?.measurement == .angleBetween(.trunk, .upperArm))
    }

    @Test func refusesInvalidUTF8AndControlCharactersAsInvalidJSON() {
        var broken = bytes(Self.minimal)
        broken[10] = 0xFF
        #expect(wireError { () throws(WireError) in try ExerciseDefinition.decode(broken) }?.code == .invalidJSON)
        #expect(
            Self.error(Self.minimal.replacingOccurrences(of: "wristCurl", with: "wrist\u{1}Curl"))?.code == .invalidJSON
        )
    }

    @Test func seededRandomMutationsNeverCrashAndAreAnsweredWithACode() {
        var random = SeededGenerator(seed: 17)
        let whole = bytes(Self.full)
        let codes: Set<ErrorCode> = [.invalidJSON, .invalidExercise, .messageTooBig]
        for _ in 0..<2_000 {
            var mutated = whole
            for _ in 0..<Int.random(in: 1...4, using: &random) {
                let index = Int.random(in: 0..<mutated.count, using: &random)
                mutated[index] = UInt8.random(in: 0x20...0x7E, using: &random)
            }
            if let error = wireError({ () throws(WireError) in try ExerciseDefinition.decode(mutated) }) {
                #expect(codes.contains(error.code), "\(error)")
                #expect((error.code == .invalidExercise) == (error.pointer != nil))
            }
        }
    }
}
