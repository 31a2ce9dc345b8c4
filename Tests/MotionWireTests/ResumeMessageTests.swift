import Testing

@testable import MotionWire

@Suite("The resume message (PROTOCOL.md §3.1)")
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
