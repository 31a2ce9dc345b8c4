import Foundation
import MotionCore
import Testing

@testable import MotionWire

/// `GET /v1/formats` (``WireEncoder/encodeFormats(into:)``): the map a client reads poses with must read every
/// vector of docs/protocol.md §4 to the pixels the server's own decoder gives.
@Suite struct FormatMapTests {
    private static func map() throws -> [String: Any] {
        var body: [UInt8] = []
        WireEncoder.encodeFormats(into: &body)
        return try #require(try JSONSerialization.jsonObject(with: Data(body)) as? [String: Any])
    }

    @Test func namesTheJointsInWireOrderAndEveryFormat() throws {
        let map = try Self.map()
        #expect(map["joints"] as? [String] == Joint.allCases.map(\.rawValue))
        #expect(
            map["derived"] as? [String: [String]] == [
                "neck": ["leftShoulder", "rightShoulder"], "root": ["leftHip", "rightHip"],
            ])
        let formats = try #require(map["formats"] as? [[String: Any]])
        #expect(formats.compactMap { $0["id"] as? String } == InputFormat.allCases.map(\.rawValue))
        for (entry, format) in zip(formats, InputFormat.allCases) {
            let keypoints = try #require(entry["keypoints"] as? [Any])
            let names = keypoints.map { $0 as? String }
            #expect(names == KeypointLayout.joints(of: format).map { $0?.rawValue }, "\(format)")
            #expect(entry["minConfidence"] as? Double == format.defaultMinConfidence, "\(format)")
            if format.defaultMinConfidence == nil { #expect(entry["minConfidence"] is NSNull) }
        }
        let mediapipe = formats[2]
        #expect((mediapipe["keypoints"] as? [Any])?.count == 33)
        #expect(mediapipe["coordinates"] as? String == "normalized")
        #expect(mediapipe["derivesCentralJoints"] as? Bool == true)
        #expect(formats[1]["origin"] as? String == "bottomLeft")
        #expect(formats[3]["coordinates"] as? String == "pixelsOrNormalized")
        #expect(formats[0]["origin"] as? String == "topLeft")
    }

    /// Reads a vector's pose with nothing but the map, as a client would, and compares with the expected pixels.
    @Test(arguments: try FormatVectors.load())
    func readsEveryVectorAsTheServerDoes(_ vector: FormatVectors.Case) throws {
        let map = try Self.map()
        let start = try #require(try JSONSerialization.jsonObject(with: Data(vector.start)) as? [String: Any])
        let pose = try #require(try JSONSerialization.jsonObject(with: Data(vector.pose)) as? [String: Any])
        let formatID = start["format"] as? String ?? "joints"
        let formats = try #require(map["formats"] as? [[String: Any]])
        let format = try #require(formats.first { $0["id"] as? String == formatID })
        let points = Self.read(pose, format: format, map: map, normalized: start["normalized"] as? Bool ?? false)
        let mirrored = start["mirrored"] as? Bool ?? false
        for joint in Joint.allCases {
            let name = mirrored ? joint.mirrored.rawValue : joint.rawValue
            let expected = vector.expected[joint]
            let actual = points[name]
            #expect((expected == nil) == (actual == nil), "\(vector.name): \(joint)")
            if let expected, let actual {
                #expect(
                    abs(expected.x - actual.x) <= 0.01 && abs(expected.y - actual.y) <= 0.01,
                    "\(vector.name): \(joint) \(actual) ≠ \(expected)")
            }
        }
    }

    /// A pose line read with one format's entry of the map: keypoints or named points, scaled when the
    /// coordinates are normalised, flipped when y starts at the bottom, below-floor points dropped, central
    /// joints derived.
    private static func read(
        _ pose: [String: Any], format: [String: Any], map: [String: Any], normalized: Bool
    ) -> [String: Point] {
        let width = pose["width"] as? Double ?? 0
        let height = pose["height"] as? Double ?? 0
        let coordinates = format["coordinates"] as? String
        let scaled = coordinates == "normalized" || (coordinates == "pixelsOrNormalized" && normalized)
        let bottomUp = format["origin"] as? String == "bottomLeft"
        let floor = format["minConfidence"] as? Double
        var points: [String: Point] = [:]
        func add(_ name: String?, _ x: Double?, _ y: Double?, _ confidence: Double?) {
            guard let name, let x, let y else { return }
            if let floor, let confidence, confidence < floor { return }
            let up = bottomUp ? (scaled ? 1 - y : height - y) : y
            points[name] = scaled ? Point(x: x * width, y: up * height) : Point(x: x, y: up)
        }
        if let named = pose["points"] as? [String: [Double]] {
            for (name, xy) in named { add(name, xy[0], xy[1], nil) }
        } else if let flat = pose["keypoints"] as? [Any], let names = format["keypoints"] as? [Any] {
            for (index, name) in names.enumerated() where index * 3 + 2 < flat.count {
                add(
                    name as? String, flat[index * 3] as? Double, flat[index * 3 + 1] as? Double,
                    flat[index * 3 + 2] as? Double)
            }
        }
        if format["derivesCentralJoints"] as? Bool == true, let derived = map["derived"] as? [String: [String]] {
            for (joint, parents) in derived where points[joint] == nil {
                if let a = points[parents[0]], let b = points[parents[1]] { points[joint] = a.midpoint(to: b) }
            }
        }
        return points
    }
}
