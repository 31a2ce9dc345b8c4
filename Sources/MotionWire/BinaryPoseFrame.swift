public import MotionCore

/// The binary pose frame of docs/protocol.md §3.2: a pose in 20 bytes of header, 8 per seen joint and, when flagged, one
/// confidence byte per seen joint. All numbers little-endian:
///
///     offset  type        field
///     0       u8          kind: 1 = pose
///     1       u8          flags: bit 0 = confidences follow the points
///     2       u16         image width (0 = unknown)
///     4       u16         image height (0 = unknown)
///     6       u16         reserved, 0
///     8       f64         t
///     16      u32         seen mask: bit i = joint i of docs/protocol.md §1
///     20      f32 × 2     x, y in pixels (y down) per seen joint, in joint order
///     then    u8          confidence × 255 per seen joint (flag bit 0)
///
/// A session's frames in this form carry joints as the `joints` format does; `mirrored` and `minConfidence` apply.
public enum BinaryPoseFrame {
    /// The `kind` byte of a pose frame.
    public static let poseKind: UInt8 = 1
    /// Flag bit 0: a confidence byte per seen joint follows the points.
    public static let confidenceFlag: UInt8 = 1
    /// The header's length in bytes.
    public static let headerLength = 20

    /// The frame's length for `seen` joints, with or without confidences.
    /// - Parameters:
    ///   - seen: How many joints are seen, 0…19.
    ///   - confidences: Whether confidences follow.
    public static func length(seen: Int, confidences: Bool) -> Int { headerLength + seen * (confidences ? 9 : 8) }

    /// Appends `pose` as a binary frame (what a client sends; the server's tests and `motion-load` use it).
    ///
    /// Coordinates are narrowed to `Float` (the frame's precision); an image side outside 1…65,535 pixels is sent
    /// as unknown; a confidence is rounded to the nearest 255th. The frame carries confidences when any seen joint
    /// has one (a joint without one is then sent as 1).
    /// - Parameters:
    ///   - pose: The pose.
    ///   - buffer: The buffer to append to.
    public static func encode(_ pose: Pose, into buffer: inout [UInt8]) {
        let seen = pose.seenJoints
        let confidences = seen.contains { pose.confidence(of: [$0]) != nil }
        func append16(_ value: UInt16) {
            buffer.append(UInt8(truncatingIfNeeded: value))
            buffer.append(UInt8(truncatingIfNeeded: value >> 8))
        }
        func append32(_ value: UInt32) {
            for shift in stride(from: 0, to: 32, by: 8) { buffer.append(UInt8(truncatingIfNeeded: value >> shift)) }
        }
        func side(_ value: Double) -> UInt16? {
            let rounded = value.rounded()
            return rounded >= 1 && rounded <= 65_535 ? UInt16(rounded) : nil
        }
        // Both sides or neither (0 = unknown): the decoder refuses one without the other.
        var width: UInt16 = 0
        var height: UInt16 = 0
        if let size = pose.imageSize, let w = side(size.width), let h = side(size.height) {
            (width, height) = (w, h)
        }
        buffer.append(poseKind)
        buffer.append(confidences ? confidenceFlag : 0)
        append16(width)
        append16(height)
        append16(0)
        let t = pose.timestamp.bitPattern
        append32(UInt32(truncatingIfNeeded: t))
        append32(UInt32(truncatingIfNeeded: t >> 32))
        append32(seen.rawValue)
        for joint in seen {
            guard let point = pose[joint] else { continue }
            append32(Float(point.x).bitPattern)
            append32(Float(point.y).bitPattern)
        }
        guard confidences else { return }
        for joint in seen {
            let confidence = pose.confidence(of: [joint]) ?? 1
            buffer.append(UInt8((min(1, max(0, confidence)) * 255).rounded()))
        }
    }
}

extension PoseDecoder {
    /// The largest coordinate a binary frame may carry, as for JSON poses.
    private static let maxBinaryCoordinate: Float = 1e6
    /// The largest `t`, as for JSON poses.
    private static let maxBinaryTimestamp = 1e12

    /// Decodes a binary pose frame (docs/protocol.md §3.2) straight into a `Pose`, with no intermediate form.
    ///
    /// ```swift
    /// let pose = try decoder.decodeBinaryPose(frame)   // a binary WebSocket message's payload
    /// ```
    /// - Parameter bytes: The frame.
    /// - Returns: The pose, sides swapped when the decoder is `mirrored`, joints below `minConfidence` dropped.
    /// - Throws: `WireError` `invalidPose` for a frame of the wrong length, an unknown kind, flag or a reserved
    ///   field that is not 0, a non-finite or out-of-range number, or a mask with bits past joint 18; and for a
    ///   session whose `format` is not `joints`.
    public func decodeBinaryPose(_ bytes: UnsafeRawBufferPointer) throws(WireError) -> Pose {
        guard format == .joints else {
            throw .invalidPose("binary pose frames need a session in the joints format, not \(format.rawValue)")
        }
        let header = BinaryPoseFrame.headerLength
        guard bytes.count >= header else {
            throw .invalidPose("a binary pose frame has at least \(header) bytes, not \(bytes.count)")
        }
        func u16(_ offset: Int) -> UInt16 { UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8 }
        func u32(_ offset: Int) -> UInt32 {
            UInt32(bytes[offset]) | UInt32(bytes[offset + 1]) << 8 | UInt32(bytes[offset + 2]) << 16
                | UInt32(bytes[offset + 3]) << 24
        }
        guard bytes[0] == BinaryPoseFrame.poseKind else { throw .invalidPose("unknown binary frame kind \(bytes[0])") }
        let flags = bytes[1]
        guard flags & ~BinaryPoseFrame.confidenceFlag == 0 else { throw .invalidPose("unknown binary frame flags") }
        guard u16(6) == 0 else { throw .invalidPose("the reserved field of a binary pose frame must be 0") }
        let mask = u32(16)
        let allJoints = JointSet(Joint.allCases).rawValue
        guard mask & ~allJoints == 0 else { throw .invalidPose("the seen mask has bits past joint 18") }
        let seen = JointSet(rawValue: mask)
        let hasConfidences = flags & BinaryPoseFrame.confidenceFlag != 0
        let expected = BinaryPoseFrame.length(seen: seen.count, confidences: hasConfidences)
        guard bytes.count == expected else {
            throw .invalidPose(
                "a binary pose frame with \(seen.count) joints has \(expected) bytes, not \(bytes.count)")
        }
        let t = Double(bitPattern: UInt64(u32(8)) | UInt64(u32(12)) << 32)
        guard t.isFinite, abs(t) <= Self.maxBinaryTimestamp else {
            throw .invalidPose("t must be finite and within ±1e12 s")
        }
        let width = u16(2)
        let height = u16(4)
        guard (width == 0) == (height == 0) else { throw .invalidPose("width and height go together") }
        var pose = Pose(
            timestamp: t, imageSize: width == 0 ? nil : ImageSize(width: Double(width), height: Double(height)))
        let threshold = effectiveMinConfidence
        var offset = header
        var confidenceOffset = header + 8 * seen.count
        for joint in seen {
            let x = Float(bitPattern: u32(offset))
            let y = Float(bitPattern: u32(offset + 4))
            offset += 8
            guard x.isFinite, y.isFinite, abs(x) <= Self.maxBinaryCoordinate, abs(y) <= Self.maxBinaryCoordinate else {
                throw .invalidPose("\(joint.rawValue) must be finite and within ±1e6 pixels")
            }
            var confidence: Double?
            if hasConfidences {
                confidence = Double(bytes[confidenceOffset]) / 255
                confidenceOffset += 1
            }
            if let confidence, let threshold, confidence < threshold { continue }
            pose[joint] = Point(x: Double(x), y: Double(y))
            pose.setConfidence(confidence, for: joint)
        }
        return mirrored ? pose.swappingSides() : pose
    }

    /// Decodes a binary pose frame from an array.
    /// - Parameter bytes: The frame.
    /// - Throws: `WireError`, as ``decodeBinaryPose(_:)-(UnsafeRawBufferPointer)``.
    public func decodeBinaryPose(_ bytes: [UInt8]) throws(WireError) -> Pose {
        let outcome = bytes.withUnsafeBytes { raw in Result { () throws(WireError) in try decodeBinaryPose(raw) } }
        return try outcome.get()
    }
}
