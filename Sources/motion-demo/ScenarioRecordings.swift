import MotionCore
import MotionSimulation
import MotionWire

/// `motion-demo --scenarios [EXERCISE]`: every scenario of the simulation (`Scenario.scenarios(for:)`: clean on each
/// side, each possible fault, the wrong posture and the wrong view) as a recording a server can replay, one JSON object
/// a line:
///
///     {"name":"squat: clean","exercise":"squat","side":null,"mirrored":false,"expectedClean":3,"expectedRejected":0,
///      "expectedCleanPerSide":null,"frames":[{"t":0,"width":1280,"height":720,"points":{…},"confidence":{…}},…]}
///
/// `side` is the `start` side (one-sided exercises only), `mirrored` the `start` flag; the frames are poses in the
/// `joints` format to 0.01 px, as `POST /v1/analyze` and `POST /v1/sessions/{id}/poses` take them. The black-box
/// tests replay them (blackbox/server/test_server_fhir.py).
func printScenarioRecordings(exercise wanted: String?) -> Bool {
    let exercises = Exercise.catalog.filter { wanted == nil || $0.id == wanted }
    guard !exercises.isEmpty else { return false }
    var line: [UInt8] = []
    var pose: [UInt8] = []
    let prefix = Array(#"{"type":"pose","#.utf8)
    for exercise in exercises {
        for scenario in Scenario.scenarios(for: exercise) {
            line.removeAll(keepingCapacity: true)
            line.appendLiteral(#"{"name":"#)
            line.appendJSONString(scenario.name)
            line.appendLiteral(#","exercise":"#)
            line.appendJSONString(exercise.id)
            line.appendLiteral(#","side":"#)
            if let side = scenario.configuration.side {
                line.appendJSONString(side.rawValue)
            } else {
                line.appendLiteral("null")
            }
            line.appendLiteral(#","mirrored":"#)
            line.appendJSONBool(scenario.simulation.mirrored)
            line.appendLiteral(#","expectedClean":"#)
            line.appendJSONInteger(scenario.expectedClean)
            line.appendLiteral(#","expectedRejected":"#)
            line.appendJSONInteger(scenario.expectedRejected.count)
            line.appendLiteral(#","expectedCleanPerSide":"#)
            if scenario.expectedCleanPerSide.isEmpty {
                line.appendLiteral("null")
            } else {
                line.appendLiteral(#"{"left":"#)
                line.appendJSONInteger(scenario.expectedCleanPerSide[.left] ?? 0)
                line.appendLiteral(#","right":"#)
                line.appendJSONInteger(scenario.expectedCleanPerSide[.right] ?? 0)
                line.append(UInt8(ascii: "}"))
            }
            line.appendLiteral(#","frames":["#)
            for (index, frame) in scenario.simulation.poses().enumerated() {
                if index > 0 { line.append(UInt8(ascii: ",")) }
                pose.removeAll(keepingCapacity: true)
                WireEncoder.encodePose(frame, decimals: 2, into: &pose)
                // A frame is a pose without its `type`.
                line.append(UInt8(ascii: "{"))
                line.append(contentsOf: pose.starts(with: prefix) ? pose[prefix.count...] : pose[1...])
            }
            line.appendLiteral("]}")
            print(String(decoding: line, as: UTF8.self))
        }
    }
    return true
}
