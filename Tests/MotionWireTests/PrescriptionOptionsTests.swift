import MotionCore
import Testing

@testable import MotionWire

/// `start.options` as a prescription (docs/protocol.md §5.1): what the decoder takes, and the exact error for what it
/// refuses. Whether the exercise can use the values is the engine's check (MotionServerTests).
@Suite struct PrescriptionOptionsTests {
    static func start(_ options: String) -> String { #"{"type":"start","exercise":"x","options":\#(options)}"# }

    static func error(_ options: String) -> WireError? {
        wireError { () throws(WireError) in try MessageDecoder().decode(bytes(start(options))) }
    }

    @Test func decodesEveryPrescriptionField() throws {
        let json = Self.start(
            #"{"target":50,"rest":-12.5,"enter":35.25,"exit":32,"holdSeconds":8,"reps":10,"sets":3,"baselineReps":2,"#
                + #""snapshots":"off"}"#)
        let expected = StartRequest.Options(
            prescription: Prescription(
                target: 50, rest: -12.5, enter: 35.25, exit: 32, holdSeconds: 8, reps: 10, sets: 3),
            baselineReps: 2, snapshots: .off)
        #expect(try decodeMessage(json) == .start(StartRequest(exercise: "x", options: expected)))
        #expect(
            expected.prescription
                == Prescription(target: 50, rest: -12.5, enter: 35.25, exit: 32, holdSeconds: 8, reps: 10, sets: 3))
        // The same object as a REST body.
        let body = try StartRequest(decoding: bytes(#"{"exercise":"x","options":{"reps":12,"sets":2}}"#))
        #expect(body.options == StartRequest.Options(prescription: Prescription(reps: 12, sets: 2)))
    }

    @Test func takesNullForEveryFieldAsTheExercisesDefault() throws {
        let json = Self.start(
            #"{"target":null,"rest":null,"enter":null,"exit":null,"holdSeconds":null,"reps":null,"sets":null}"#)
        #expect(try decodeMessage(json) == .start(StartRequest(exercise: "x")))
        #expect(StartRequest.Options().prescription == Prescription())
    }

    @Test(arguments: [
        #"{"target":360}"#, #"{"target":-360}"#, #"{"rest":0}"#, #"{"enter":-0.0}"#, #"{"exit":1e-300}"#,
        #"{"reps":1}"#, #"{"reps":1000}"#, #"{"sets":1}"#, #"{"sets":100}"#, #"{"reps":1e3}"#, #"{"sets":5.0}"#,
        #"{"enter":10,"exit":20}"#,  // out of order: the engine's to judge, not the decoder's
    ])
    func acceptsTheBounds(_ options: String) throws {
        guard case .start = try decodeMessage(Self.start(options)) else {
            Issue.record("\(options) not decoded as a start")
            return
        }
    }

    @Test(arguments: [
        (#"{"target":"50"}"#, "options.target must be a number"),
        (#"{"rest":true}"#, "options.rest must be a number"),
        (#"{"enter":[35]}"#, "options.enter must be a number"),
        (#"{"exit":{}}"#, "options.exit must be a number"),
        (#"{"target":360.0000001}"#, "options.target must be a finite number within -360…360"),
        (#"{"rest":-361}"#, "options.rest must be a finite number within -360…360"),
        (#"{"enter":1e400}"#, "options.enter must be a finite number within -360…360"),
        (#"{"exit":-1e400}"#, "options.exit must be a finite number within -360…360"),
        (#"{"reps":0}"#, "options.reps must be a whole number within 1…1000"),
        (#"{"reps":1001}"#, "options.reps must be a whole number within 1…1000"),
        (#"{"reps":2.5}"#, "options.reps must be a whole number within 1…1000"),
        (#"{"reps":-3}"#, "options.reps must be a whole number within 1…1000"),
        (#"{"reps":"10"}"#, "options.reps must be a whole number within 1…1000"),
        (#"{"reps":1e400}"#, "options.reps must be a whole number within 1…1000"),
        (#"{"reps":9223372036854775808}"#, "options.reps must be a whole number within 1…1000"),
        (#"{"sets":0}"#, "options.sets must be a whole number within 1…100"),
        (#"{"sets":101}"#, "options.sets must be a whole number within 1…100"),
        (#"{"sets":1.5}"#, "options.sets must be a whole number within 1…100"),
        (#"{"sets":false}"#, "options.sets must be a whole number within 1…100"),
        (#"{"baselineReps":101}"#, "options.baselineReps must be a whole number within 1…100"),
        (#"{"holdSeconds":0}"#, "options.holdSeconds must be > 0 and ≤ 3600"),
    ])
    func refusesAWrongTypeOrAValueOutOfRange(_ options: String, _ message: String) {
        #expect(Self.error(options) == WireError(code: .invalidMessage, message: message), "\(options)")
        let body = #"{"exercise":"x","options":\#(options)}"#
        let rest = wireError { () throws(WireError) in try StartRequest(decoding: bytes(body)) }
        #expect(rest == WireError(code: .invalidMessage, message: message), "REST body \(body)")
    }

    @Test(arguments: ["rest", "enter", "exit", "reps", "sets"])
    func refusesANewOptionGivenTwice(_ name: String) {
        #expect(
            Self.error(#"{"\#(name)":1,"\#(name)":2}"#)
                == WireError.duplicateMember(name, in: "options", code: .invalidMessage))
    }

    @Test func refusesEveryTruncationOfAFullStart() {
        let full = bytes(
            Self.start(#"{"target":50,"rest":30,"enter":35,"exit":32,"holdSeconds":5,"reps":10,"sets":3}"#))
        for end in 0..<full.count {
            let error = wireError { () throws(WireError) in try MessageDecoder().decode(Array(full[..<end])) }
            #expect(error?.code == .invalidJSON, "cut at \(end)")
        }
    }

    @Test func refusesAnOversizedOrDeepOptionsObjectWithoutReadingIt() {
        let padding = String(repeating: " ", count: 1 << 20)
        let huge = Self.start(#"{"target":50,"# + padding + #""reps":3}"#)
        #expect(decodingErrorCode(huge) == .messageTooBig)
        let deep = Self.start(
            #"{"future":"# + String(repeating: "[", count: 100) + String(repeating: "]", count: 100) + "}")
        #expect(decodingErrorCode(deep) == .invalidJSON)
        let long = #"{"reps":1"# + String(repeating: "0", count: 400) + "}"
        #expect(
            Self.error(long)
                == WireError(code: .invalidMessage, message: "options.reps must be a whole number within 1…1000"))
    }

    @Test func skipsUnknownOptionsOfLaterVersions() throws {
        let json = Self.start(#"{"tempo":[2,1,2],"reps":4,"goalPerSide":{"left":3}}"#)
        #expect(
            try decodeMessage(json)
                == .start(StartRequest(exercise: "x", options: .init(prescription: Prescription(reps: 4)))))
    }
}
