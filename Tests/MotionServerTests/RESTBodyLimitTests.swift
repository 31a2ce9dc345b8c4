import Foundation
import MotionServer
import NetworkTestSupport
import Testing

/// `--max-message-bytes` (``LiveLimits/maxMessageBytes``) bounds the JSON bodies of the REST routes as it bounds
/// WebSocket messages (docs/protocol.md §5): a body of exactly the limit is read, one byte more is
/// `413 messageTooBig`, on every route that takes a body.
@Suite("REST bodies and --max-message-bytes")
struct RESTBodyLimitTests {
    static let limit = 4096

    /// `json` with spaces before its closing brace, `count` bytes in all.
    static func padded(_ json: String, to count: Int) -> String {
        String(json.dropLast()) + String(repeating: " ", count: count - json.utf8.count) + "}"
    }

    static func limits(maxMessageBytes: Int) -> LiveLimits {
        var limits = fastLimits()
        limits.maxMessageBytes = maxMessageBytes
        return limits
    }

    @Test func aBodyOverTheMessageLimitIs413OnEveryRouteThatTakesOne() async throws {
        try await withMotionServer(limits: Self.limits(maxMessageBytes: Self.limit)) { address, _, _ in
            let created = try await request(address, "POST", "/v1/sessions", body: #"{"exercise":"squat"}"#)
            let id = try #require(MotionServerTests.json(created)?["id"] as? String)
            let routes: [(path: String, body: String, status: Int)] = [
                ("/v1/sessions", #"{"exercise":"squat"}"#, 201),
                ("/v1/sessions/\(id)/poses", #"{"frames":[]}"#, 200),
                ("/v1/sessions/\(id)/motion", #"{"samples":[]}"#, 200),
                ("/v1/analyze", #"{"exercise":"squat","frames":[]}"#, 200),
                (
                    "/v1/exercises/preview", #"{"exercise":\#(ExerciseRoutesTests.curl()),"side":"left","frames":[]}"#,
                    200
                ),
            ]
            for route in routes {
                let within = try #require(
                    try await request(address, "POST", route.path, body: Self.padded(route.body, to: Self.limit)))
                #expect(within.status == route.status, "\(route.path), \(Self.limit) bytes: \(within.text)")
                let over = try #require(
                    try await request(address, "POST", route.path, body: Self.padded(route.body, to: Self.limit + 1)))
                #expect(over.status == 413, "\(route.path), \(Self.limit + 1) bytes: \(over.text)")
                #expect(ExerciseRoutesTests.error(over)?["code"] as? String == "messageTooBig", "\(route.path)")
            }
        }
    }

    /// The HTTP layer reads bodies up to 8 MiB, or the message limit when that is larger: a raised limit holds over
    /// REST too.
    @Test func aRaisedMessageLimitTakesBodiesLargerThanEightMebibytes() async throws {
        let limit = 9 << 20
        try await withMotionServer(limits: Self.limits(maxMessageBytes: limit)) { address, _, _ in
            let created = try #require(
                try await request(
                    address, "POST", "/v1/sessions", body: Self.padded(#"{"exercise":"squat"}"#, to: limit)))
            #expect(created.status == 201, "\(created.text)")
        }
    }
}
