import Foundation
import Testing

@testable import MotionCore

/// A motion-capture recording converted to a 2D pose stream with its 3D truth (`tools/mocap/convert.py`), from
/// `Fixtures/mocap/NAME.VIEW.json`.
struct MocapRecording: Decodable, Sendable {
    struct Camera: Decodable, Sendable {
        var width: Double
        var height: Double
    }

    /// Per-frame angles from the 3D data, degrees.
    struct Truth: Decodable, Sendable {
        var leftKneeFlexion: [Double]
        var rightKneeFlexion: [Double]
        var trunkLean: [Double]
        var shinInclination: [Double]
    }

    var recording: String
    var view: String
    var source: String
    var motion: String
    var licence: String
    var frameRate: Double
    var camera: Camera
    var joints: [String]
    var truth: Truth
    /// Per frame, x and y of each of `joints`, image pixels.
    var frames: [[Double]]

    /// The fixture `name.view.json` beside this file.
    static func load(_ name: String, view: String) throws -> MocapRecording {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("Fixtures/mocap/\(name).\(view).json")
        return try JSONDecoder().decode(MocapRecording.self, from: Data(contentsOf: url))
    }

    /// Seconds of frame `index`.
    func time(_ index: Int) -> Double { Double(index) / frameRate }

    /// The recording as poses, every joint seen.
    func poses() throws -> [Pose] {
        let order = try joints.map { try #require(Joint(rawValue: $0), "unknown joint \($0)") }
        return frames.enumerated().map { index, values in
            var pose = Pose(timestamp: time(index), imageSize: ImageSize(width: camera.width, height: camera.height))
            for (position, joint) in order.enumerated() {
                pose[joint] = Point(x: values[2 * position], y: values[2 * position + 1])
            }
            return pose
        }
    }

    /// The 3D knee flexion, mean of both sides (the bilateral squat's quantity).
    var kneeFlexion: [Double] { zip(truth.leftKneeFlexion, truth.rightKneeFlexion).map { ($0 + $1) / 2 } }

    /// The reps the engine's own counter finds in the 3D knee flexion, smoothed as the exercise smooths.
    func truthReps(_ exercise: Exercise, maxGap: Double = 0.5) -> [(peak: Double, start: Double, end: Double)] {
        var filter = OneEuroFilter(parameters: exercise.smoothing, maxGap: maxGap)
        var counter = RepCounter(
            kind: exercise.kind, direction: exercise.direction, thresholds: exercise.thresholds, maxGap: maxGap)
        var reps: [(Double, Double, Double)] = []
        for (index, value) in kneeFlexion.enumerated() {
            let t = time(index)
            if case .completed(let done) = counter.update(
                filter.filter(value, at: t), at: t, mayStart: true)
            {
                reps.append((rawPeak(from: done.start, to: done.end), done.start, done.end))
            }
        }
        return reps
    }

    /// The highest 3D knee flexion between two times.
    func rawPeak(from start: Double, to end: Double) -> Double {
        kneeFlexion.indices.filter { (start...end).contains(time($0)) }.map { kneeFlexion[$0] }.max() ?? .nan
    }
}
