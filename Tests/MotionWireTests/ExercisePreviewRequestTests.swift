import MotionCore
import Testing

@testable import MotionWire

/// `POST /v1/exercises/preview`'s body (``ExercisePreviewRequest``): the draft read as a save reads it, refusals
/// pointing into the body, and no crash on any cut of a valid body.
@Suite struct ExercisePreviewRequestTests {
    static let definition =
        #"{"id":"curl","name":"Curl","view":"sagittal","kind":"rep","#
        + #""measurement":{"type":"flexion","joints":["shoulder","elbow","wrist"]},"#
        + #""thresholds":{"rest":25,"enter":55,"exit":35,"minAmplitude":20},"target":120}"#
    static let body = #"{"side":"right","exercise":\#(definition),"frames":[{"t":1,"points":{}}]}"#

    static func decode(_ text: String) throws(WireError) -> ExercisePreviewRequest {
        try ExercisePreviewRequest(
            decoding: Array(text.utf8), limits: WireLimits(), definitionLimits: ExerciseDefinition.defaultLimits)
    }

    @Test func readsTheDraftAsASaveWould() throws {
        let request = try Self.decode(Self.body)
        #expect(request.exercise == (try ExerciseDefinition.decode(Array(Self.definition.utf8))))
        #expect(request.side == .right)
        #expect(try Self.decode(#"{"exercise":\#(Self.definition),"side":null}"#).side == nil)
    }

    @Test func pointsIntoTheBody() {
        let bad = Self.definition.replacingOccurrences(of: #""enter":55"#, with: #""enter":"high""#)
        #expect(
            throws: WireError(
                code: .invalidExercise, message: "thresholds.enter must be a number",
                pointer: "/exercise/thresholds/enter")
        ) {
            try Self.decode(#"{"exercise":\#(bad)}"#)
        }
        #expect(throws: WireError.self) { try Self.decode(#"{"exercise":[]}"#) }
        #expect(throws: WireError.self) { try Self.decode(#"{"frames":[]}"#) }
    }

    @Test func refusesEveryCutOfAValidBody() {
        let bytes = Array(Self.body.utf8)
        for end in 0..<bytes.count {
            #expect(throws: WireError.self, "cut at \(end)") {
                try ExercisePreviewRequest(
                    decoding: Array(bytes[..<end]), limits: WireLimits(),
                    definitionLimits: ExerciseDefinition.defaultLimits)
            }
        }
    }
}
