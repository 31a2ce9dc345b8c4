import Basics
import Foundation
import MotionCore
import Testing

@testable import MotionWire

/// The seeded generator of the base module (SplitMix64).
typealias SeededGenerator = SeededRandom

/// The UTF-8 bytes of `text`.
func bytes(_ text: String) -> [UInt8] {
    Array(text.utf8)
}

/// The UTF-8 text of `buffer`.
func text(_ buffer: [UInt8]) -> String {
    String(decoding: buffer, as: UTF8.self)
}

/// The error `body` throws, or nil.
func wireError<Value>(_ body: () throws(WireError) -> Value) -> WireError? {
    do {
        _ = try body()
        return nil
    } catch {
        return error
    }
}

/// A `pose` message with all 19 joints and their confidences, about 1 KB.
func fullJointsPoseMessage(t: Double = 12.345) -> [UInt8] {
    var points: [String] = []
    var confidences: [String] = []
    for joint in Joint.allCases {
        let x = 400.0 + Double(joint.index) * 17.37
        let y = 120.0 + Double(joint.index) * 23.91
        points.append(#""\#(joint.rawValue)":[\#(x),\#(y)]"#)
        confidences.append(#""\#(joint.rawValue)":0.9\#(joint.index % 10)"#)
    }
    let json =
        #"{"type":"pose","t":\#(t),"width":1280,"height":720,"points":{"#
        + points.joined(separator: ",") + #"},"confidence":{"# + confidences.joined(separator: ",") + "}}"
    return bytes(json)
}

/// The code of the error decoding `json` as a client message throws, or nil when it decodes.
func decodingErrorCode(_ json: String, decoder: MessageDecoder = MessageDecoder()) -> ErrorCode? {
    wireError { () throws(WireError) in try decoder.decode(bytes(json)) }?.code
}

/// The decoded message, failing the test when decoding throws.
func decodeMessage(
    _ json: String, decoder: MessageDecoder = MessageDecoder(), sourceLocation: SourceLocation = #_sourceLocation
) throws -> ClientMessage {
    do {
        return try decoder.decode(bytes(json))
    } catch {
        Issue.record("decoding failed: \(error)", sourceLocation: sourceLocation)
        throw error
    }
}

/// Each pose as a frame of a batch that was accepted.
func accepted(_ poses: [Pose]) -> [Result<Pose, WireError>] {
    poses.map { .success($0) }
}

extension Pose {
    /// A pose with the given points, no confidences.
    static func make(t: Double = 1, size: ImageSize? = nil, _ points: [Joint: Point] = [:]) -> Pose {
        Pose(timestamp: t, imageSize: size, points: points)
    }
}

/// The pose-format test vectors of docs/protocol.md §4, in `Fixtures/` beside this file.
enum FormatVectors {
    /// `Fixtures/formats.json`.
    static func url() throws -> URL {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/formats.json")
        #expect(FileManager.default.fileExists(atPath: url.path), "\(url.path) is missing")
        return url
    }

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var start: [UInt8]
        var pose: [UInt8]
        var expected: [Joint: Point]
        var testDescription: String { name }
    }

    /// Every case of the vector file; throws (never skips) when the file is missing or malformed.
    static func load() throws -> [Case] {
        let data = try Data(contentsOf: try url())
        let root = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        let cases = try #require(root["cases"] as? [[String: Any]])
        return try cases.map { entry in
            let name = try #require(entry["name"] as? String)
            let start = try #require(entry["start"] as? [String: Any])
            var startMessage = start
            startMessage["type"] = "start"
            startMessage["exercise"] = "shoulderAbduction"
            let pose = try #require(entry["pose"])
            let expect = try #require(entry["expect"] as? [String: [Double]])
            var expected: [Joint: Point] = [:]
            for (jointName, xy) in expect {
                let joint = try #require(Joint(rawValue: jointName))
                expected[joint] = Point(x: xy[0], y: xy[1])
            }
            return Case(
                name: name,
                start: Array(try JSONSerialization.data(withJSONObject: startMessage)),
                pose: Array(try JSONSerialization.data(withJSONObject: pose)),
                expected: expected)
        }
    }
}
