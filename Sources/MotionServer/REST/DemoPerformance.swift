import MotionCore
import MotionSimulation
import MotionWire
import PortableBasics

/// `GET /v1/exercises/{id}/demo`: the server's own simulated person acting out an exercise, for pages to play in a
/// loop as a pose source (``Simulation/demo(of:side:)``). One simulator serves the browser, the tests and
/// `motion-load`, so every exercise, built-in or custom, can be demonstrated, its faults included.
enum DemoPerformance {
    /// Frames per second of the performance.
    static let frameRate = 30.0

    /// The performance's JSON:
    ///
    ///     {"exercise":"squat","side":"right","frameRate":30,"duration":31.5,
    ///      "acted":[{"start":1.5,"end":3.5,"side":null,"faults":[]},…],
    ///      "frames":[{"type":"pose","t":0,"width":1280,"height":720,"points":{…}},…]}
    ///
    /// `frames` are `pose` messages (docs/protocol.md §3, the `joints` format), one per 1/`frameRate` s from `t` 0
    /// to `duration`; a frame without points is the figure out of frame. `acted` says when each rep (or hold) is
    /// acted, by which side in an alternating exercise, and the faults it acts. Played again from the start after
    /// `duration`, the figure is back at rest.
    /// - Parameters:
    ///   - exercise: The exercise.
    ///   - side: The working side (the first side of an alternating exercise).
    /// - Returns: The body.
    static func encode(_ exercise: Exercise, side: BodySide) -> [UInt8] {
        var simulation = Simulation.demo(of: exercise, side: side)
        simulation.frameRate = frameRate
        var body: [UInt8] = []
        body.reserveCapacity(Int(simulation.duration * frameRate) * 400 + 1024)
        body.appendLiteral(#"{"exercise":"#)
        body.appendJSONString(exercise.id)
        body.appendLiteral(#","side":"#)
        body.appendJSONString(side.rawValue)
        body.appendLiteral(#","frameRate":"#)
        body.appendJSONNumber(frameRate)
        body.appendLiteral(#","duration":"#)
        body.appendJSONNumber(simulation.duration)
        body.appendLiteral(#","acted":["#)
        for (index, (rep, time)) in zip(simulation.reps, simulation.actedTimes).enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            body.appendLiteral(#"{"start":"#)
            body.appendJSONNumber(time.lowerBound)
            body.appendLiteral(#","end":"#)
            body.appendJSONNumber(time.upperBound)
            body.appendLiteral(#","side":"#)
            if let side = rep.side { body.appendJSONString(side.rawValue) } else { body.appendLiteral("null") }
            body.appendLiteral(#","faults":"#)
            body.appendJSONStrings(Array(rep.faults))
            body.append(UInt8(ascii: "}"))
        }
        body.appendLiteral(#"],"frames":["#)
        for (index, pose) in simulation.poses().enumerated() {
            if index > 0 { body.append(UInt8(ascii: ",")) }
            WireEncoder.encodePose(pose, decimals: 1, into: &body)
        }
        body.appendLiteral("]}")
        return body
    }
}
