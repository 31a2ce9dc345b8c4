import MotionCore
import Testing

@testable import MotionWire

/// `start` naming a programme item (docs/protocol.md §5.3) and the `demo` flag, as the decoder reads them.
@Suite struct ProgrammeStartDecodingTests {
    static func decode(_ text: String) throws(WireError) -> StartRequest {
        try StartRequest(decoding: Array(text.utf8))
    }

    @Test func readsAProgrammeItemInsteadOfAnExercise() throws {
        let start = try Self.decode(#"{"type":"start","programme":{"id":"P1","item":"a1"},"demo":true}"#)
        #expect(start.programme == ProgrammeLink(id: "P1", version: 0, item: "a1"))
        #expect(start.exercise == "")
        #expect(start.demo)
        #expect(try Self.decode(#"{"exercise":"squat","demo":null}"#).demo == false)
        #expect(try Self.decode(#"{"exercise":"squat","programme":null}"#).programme == nil)
    }

    @Test(arguments: [
        #"{"type":"start"}"#,
        #"{"programme":{"id":"P1"}}"#,
        #"{"programme":{"item":"a1"}}"#,
        #"{"programme":"P1"}"#,
        #"{"programme":{"id":"","item":"a1"}}"#,
        #"{"programme":{"id":"P 1","item":"a1"}}"#,
        #"{"programme":{"id":"P1","item":"\#(String(repeating: "x", count: 65))"}}"#,
        #"{"programme":{"id":1,"item":"a1"}}"#,
        #"{"programme":{"id":"P1","item":"a1","id":"P2"}}"#,
        #"{"programme":{"id":"P1","item":"a1","version":0.5}}"#,
        #"{"programme":{"id":"P1","item":"a1"},"programme":{"id":"P1","item":"a1"}}"#,
        #"{"exercise":"squat","demo":"yes"}"#,
    ])
    func refusesMalformedProgrammeItems(_ text: String) {
        #expect(throws: WireError.self) { try Self.decode(text) }
        #expect((try? Self.decode(text)) == nil)
        do {
            _ = try Self.decode(text)
        } catch {
            #expect(error.code == .invalidMessage, "\(text): \(error)")
        }
    }
}
