import MotionCore
import Testing

@testable import MotionWire

@Suite("The resume message (docs/protocol.md §3.1)")
struct ResumeMessageTests {
    @Test func decodesSessionAndToken() throws {
        let message = try decodeMessage(#"{"type":"resume","session":"01JD3ZQ7","token":"k3Y_-x9"}"#)
        #expect(message == .resume(ResumeRequest(session: "01JD3ZQ7", token: "k3Y_-x9")))
        let reordered = try decodeMessage(#"{"token":"abc","extra":[1,{"a":2}],"session":"s","type":"resume"}"#)
        #expect(reordered == .resume(ResumeRequest(session: "s", token: "abc")))
    }

    @Test(arguments: [
        #"{"type":"resume","token":"abc"}"#,
        #"{"type":"resume","session":"s"}"#,
        #"{"type":"resume","session":7,"token":"abc"}"#,
        #"{"type":"resume","session":"s","token":null}"#,
        #"{"type":"resume","session":"","token":"abc"}"#,
        #"{"type":"resume","session":"s s","token":"abc"}"#,
        #"{"type":"resume","session":"s","token":"caf\u00e9"}"#,
        #"{"type":"resume","session":"s","token":"é"}"#,
        #"{"type":"resume","session":"s","session":"t","token":"abc"}"#,
        #"{"type":"resume","type":"resume","session":"s","token":"abc"}"#,
    ])
    func refusesMalformedResumes(json: String) {
        #expect(decodingErrorCode(json) == .invalidMessage, "\(json)")
    }

    @Test func refusesOverlongFields() {
        let long = String(repeating: "a", count: ResumeRequest.maxFieldBytes + 1)
        let fits = String(repeating: "a", count: ResumeRequest.maxFieldBytes)
        #expect(decodingErrorCode(#"{"type":"resume","session":"\#(long)","token":"t"}"#) == .invalidMessage)
        #expect(decodingErrorCode(#"{"type":"resume","session":"s","token":"\#(long)"}"#) == .invalidMessage)
        #expect(decodingErrorCode(#"{"type":"resume","session":"\#(fits)","token":"\#(fits)"}"#) == nil)
    }

    @Test func truncatedResumesAreInvalidJSON() {
        let json = #"{"type":"resume","session":"s","token":"abc"}"#
        for length in 1..<json.utf8.count {
            let code = decodingErrorCode(String(json.prefix(length)))
            #expect(
                code == .invalidJSON || code == .unknownType || code == .invalidMessage,
                "\(length): \(String(describing: code))")
            #expect(code != nil)
        }
    }
}

@Suite("The start request kept for resuming, and the resume answers")
struct StartRequestEncodingTests {
    static let requests: [StartRequest] = [
        StartRequest(exercise: "squat"),
        StartRequest(
            exercise: "shoulderAbduction", side: .left, subject: "Zoë \"the\" patient \\ 17 😀", format: .mediapipe,
            mirrored: true, minConfidence: 0.35, normalized: false,
            options: .init(
                prescription: Prescription(
                    target: 50, rest: 30.25, enter: 35.333333333333336, exit: 32, holdSeconds: 0.1, reps: 10,
                    sets: 3),
                baselineReps: 3, snapshots: .interval(0.25))),
        StartRequest(
            exercise: "a-custom_exercise", format: .coco, normalized: true,
            options: .init(prescription: Prescription(target: -12.5, rest: -360), snapshots: .off)),
        StartRequest(exercise: "plank", format: .vision, options: .init(prescription: Prescription(holdSeconds: 3600))),
        StartRequest(
            exercise: "sitToStand", subject: "patient-17",
            options: .init(prescription: Prescription(reps: 10, sets: 3)),
            programme: ProgrammeLink(id: "01KBZ0000000000000000000AA", version: 4, item: "a1"), demo: true),
    ]

    @Test(arguments: requests)
    func readsBackAsTheSameRequest(request: StartRequest) throws {
        let text = request.encoded()
        #expect(try StartRequest(decoding: text) == request, "\(String(decoding: text, as: UTF8.self))")
        let message = try MessageDecoder().decode(text)
        guard case .start(let decoded) = message else {
            Issue.record("not a start message: \(message)")
            return
        }
        #expect(decoded == request)
    }

    @Test func writesEveryMemberInAFixedOrder() {
        #expect(
            String(decoding: StartRequest(exercise: "squat").encoded(), as: UTF8.self)
                == #"{"type":"start","exercise":"squat","side":null,"subject":null,"format":"joints","#
                + #""mirrored":false,"normalized":false,"minConfidence":null,"options":{"target":null,"rest":null,"#
                + #""enter":null,"exit":null,"holdSeconds":null,"reps":null,"sets":null,"baselineReps":null,"#
                + #""snapshots":"every"}}"#)
    }

    @Test func writesTheResumeMessages() {
        let exercise = Exercise.elbowFlexion
        var exerciseText: [UInt8] = []
        WireEncoder.encodeExercise(exercise, into: &exerciseText)
        let exerciseJSON = String(decoding: exerciseText, as: UTF8.self)
        var buffer: [UInt8] = []
        WireEncoder.encodeStarted(session: "S", exercise: exercise, resume: "tok-en_1", into: &buffer)
        #expect(
            String(decoding: buffer, as: UTF8.self)
                == #"{"type":"started","session":"S","exercise":"# + exerciseJSON + #","resume":"tok-en_1"}"#)
        buffer.removeAll()
        WireEncoder.encodeStarted(session: "S", exercise: exercise, into: &buffer)
        #expect(!String(decoding: buffer, as: UTF8.self).contains("resume"), "watchers get no token")
        buffer.removeAll()
        WireEncoder.encodeResumed(session: "S", t: 12.5, exercise: exercise, into: &buffer)
        #expect(
            String(decoding: buffer, as: UTF8.self)
                == #"{"type":"resumed","session":"S","t":12.5,"exercise":"# + exerciseJSON + "}")
        buffer.removeAll()
        WireEncoder.encodeResumed(session: "S", t: nil, exercise: exercise, into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self).hasPrefix(#"{"type":"resumed","session":"S","t":null,"#))
        buffer.removeAll()
        WireEncoder.encodeConnection(connected: false, into: &buffer)
        #expect(String(decoding: buffer, as: UTF8.self) == #"{"type":"connection","connected":false}"#)
    }
}
