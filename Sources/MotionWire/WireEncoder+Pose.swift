public import MotionCore
import PortableBasics

extension WireEncoder {
    /// Writes a client's `pose` message in the `joints` format (docs/protocol.md §3):
    /// `{"type":"pose","t":…,"width":…,"height":…,"points":{"nose":[x,y],…},"confidence":{"nose":c,…}}`, the way a
    /// detector-side client sends it — for load generators, replays and tests. `width`/`height` appear when the
    /// pose has an image size, `confidence` when any seen joint has one; joints in the order of section 1.
    /// - Parameters:
    ///   - pose: The pose.
    ///   - decimals: When given (0–9), coordinates and confidences are rounded to that many decimals, as detectors'
    ///     output usually is; nil writes full precision.
    ///   - buffer: The buffer to append to.
    public static func encodePose(_ pose: Pose, decimals: Int? = nil, into buffer: inout [UInt8]) {
        var scale = 1.0
        if let decimals { for _ in 0..<min(max(decimals, 0), 9) { scale *= 10 } }
        func rounded(_ value: Double) -> Double { decimals == nil ? value : (value * scale).rounded() / scale }

        buffer.appendLiteral(#"{"type":"pose","t":"#)
        buffer.appendJSONNumber(pose.timestamp)
        if let size = pose.imageSize {
            buffer.appendLiteral(#","width":"#)
            buffer.appendJSONNumber(size.width)
            buffer.appendLiteral(#","height":"#)
            buffer.appendJSONNumber(size.height)
        }
        buffer.appendLiteral(#","points":{"#)
        var first = true
        for joint in Joint.allCases {
            guard let point = pose[joint] else { continue }
            if !first { buffer.append(UInt8(ascii: ",")) }
            first = false
            buffer.appendJSONString(joint.rawValue)
            buffer.appendLiteral(":[")
            buffer.appendJSONNumber(rounded(point.x))
            buffer.append(UInt8(ascii: ","))
            buffer.appendJSONNumber(rounded(point.y))
            buffer.append(UInt8(ascii: "]"))
        }
        buffer.append(UInt8(ascii: "}"))
        first = true
        for joint in Joint.allCases {
            guard pose[joint] != nil, let confidence = pose.confidence(of: joint) else { continue }
            buffer.appendLiteral(first ? #","confidence":{"# : ",")
            first = false
            buffer.appendJSONString(joint.rawValue)
            buffer.append(UInt8(ascii: ":"))
            buffer.appendJSONNumber(rounded(confidence))
        }
        if !first { buffer.append(UInt8(ascii: "}")) }
        buffer.append(UInt8(ascii: "}"))
    }
}
