public import MotionCore
import PortableBasics

/// The client's messages other than `start` (``StartRequest/encoded()``) and `pose`
/// (``WireEncoder/encodePose(_:decimals:into:)``, ``BinaryPoseFrame``): what a phone sends.
extension WireEncoder {
    /// Writes `resume` (docs/protocol.md §3.1): `{"type":"resume","session":"<id>","token":"<token>"}`.
    /// - Parameters:
    ///   - request: The session and its resume token.
    ///   - buffer: The buffer to append to.
    public static func encodeResume(_ request: ResumeRequest, into buffer: inout [UInt8]) {
        buffer.appendLiteral(#"{"type":"resume","session":"#)
        buffer.appendJSONString(request.session)
        buffer.appendLiteral(#","token":"#)
        buffer.appendJSONString(request.token)
        buffer.append(UInt8(ascii: "}"))
    }

    /// Writes `motion` (docs/protocol.md §3.3): `{"type":"motion","samples":[[t,ax,ay,az],[t,ax,ay,az,rx,ry,rz]]}`.
    /// - Parameters:
    ///   - samples: The samples, in increasing `t`.
    ///   - buffer: The buffer to append to.
    public static func encodeMotion(_ samples: some Sequence<MotionSample>, into buffer: inout [UInt8]) {
        buffer.appendLiteral(#"{"type":"motion","samples":["#)
        var first = true
        for sample in samples {
            if !first { buffer.append(UInt8(ascii: ",")) }
            first = false
            var values = [sample.t, sample.acceleration.x, sample.acceleration.y, sample.acceleration.z]
            if let rotation = sample.rotation { values += [rotation.x, rotation.y, rotation.z] }
            buffer.append(UInt8(ascii: "["))
            for (index, value) in values.enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                buffer.appendJSONNumber(value)
            }
            buffer.append(UInt8(ascii: "]"))
        }
        buffer.appendLiteral("]}")
    }
}
