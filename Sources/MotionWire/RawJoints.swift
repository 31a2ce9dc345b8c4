import MotionCore

/// The joints of one frame as they were read, before conversion to pixels: the decoder fills it in whatever
/// order the members arrive, then ``PoseDecoder`` converts and checks it once the whole object is read.
struct RawJoints {
    var x = InlineArray<19, Double>(repeating: 0)
    var y = InlineArray<19, Double>(repeating: 0)
    var confidence = InlineArray<19, Double>(repeating: 0)
    /// Bit `i` set: the joint at wire index `i` was read. A plain mask rather than `JointSet`, whose generic
    /// code is not specialised across the module boundary.
    var seen: UInt32 = 0
    /// Bit `i` set: the joint at wire index `i` has a confidence.
    var hasConfidence: UInt32 = 0
    /// Whether a name was read that is not a joint (``DecodingReport/unknownJoint``).
    var hasUnknownJoint = false

    mutating func set(_ joint: Joint, x: Double, y: Double, confidence: Double?) {
        let index = joint.index
        self.x[index] = x
        self.y[index] = y
        seen |= 1 << index
        if let confidence {
            self.confidence[index] = confidence
            hasConfidence |= 1 << index
        } else {
            hasConfidence &= ~(1 << index)
        }
    }

    mutating func remove(_ joint: Joint) {
        seen &= ~(1 << joint.index)
        hasConfidence &= ~(1 << joint.index)
    }

    /// The coordinates read for the joint at wire index `index`, as sent.
    ///
    /// Read through `span`: subscripting a stored `InlineArray` of a borrowed value copies the whole array first.
    func coordinates(at index: Int) -> (x: Double, y: Double) {
        (x.span[index], y.span[index])
    }

    /// The confidence read for the joint at wire index `index`, or nil when none was.
    func confidence(at index: Int) -> Double? {
        hasConfidence & 1 << index != 0 ? confidence.span[index] : nil
    }

    /// The read joints' wire indices, ascending.
    var seenIndices: some Sequence<Int> {
        sequence(state: seen) { remaining -> Int? in
            guard remaining != 0 else { return nil }
            let index = remaining.trailingZeroBitCount
            remaining &= remaining - 1
            return index
        }
    }

    /// The joint at a wire index.
    static func joint(at index: Int) -> Joint { joints[index] }

    /// The keypoint layout of `format`: how many `[x, y, c]` triples, and the joint of each (nil: ignored).
    static func layout(of format: InputFormat) -> [Joint?] {
        switch format {
        case .joints, .vision: jointsLayout
        case .mediapipe: mediapipeLayout
        case .coco: cocoLayout
        }
    }

    private static let jointsLayout: [Joint?] = joints.map { $0 }

    /// BlazePose's 33 landmarks (docs/protocol.md §4); hands, mouth, inner/outer eyes, heels and toes are ignored.
    private static let mediapipeLayout: [Joint?] = {
        var layout = [Joint?](repeating: nil, count: 33)
        let used: [(Int, Joint)] = [
            (0, .nose), (2, .leftEye), (5, .rightEye), (7, .leftEar), (8, .rightEar),
            (11, .leftShoulder), (12, .rightShoulder), (13, .leftElbow), (14, .rightElbow),
            (15, .leftWrist), (16, .rightWrist), (23, .leftHip), (24, .rightHip),
            (25, .leftKnee), (26, .rightKnee), (27, .leftAnkle), (28, .rightAnkle),
        ]
        for (index, joint) in used { layout[index] = joint }
        return layout
    }()

    /// The 17 COCO keypoints, in COCO order (docs/protocol.md §4).
    private static let cocoLayout: [Joint?] = [
        .nose, .leftEye, .rightEye, .leftEar, .rightEar, .leftShoulder, .rightShoulder, .leftElbow, .rightElbow,
        .leftWrist, .rightWrist, .leftHip, .rightHip, .leftKnee, .rightKnee, .leftAnkle, .rightAnkle,
    ]

    /// The joint whose wire name is `token`, or nil for an unknown name.
    ///
    /// Picks the only candidate from the length and one distinguishing byte, then compares the whole name, so a
    /// lookup costs one comparison rather than nineteen.
    @inline(__always)
    static func joint(named token: JSONReader.StringToken, in reader: JSONReader) -> Joint? {
        guard !token.hasEscapes else { return joint(namedEscaped: token, in: reader) }
        func byte(_ position: Int) -> UInt8 { reader.bytes[token.start + position] }
        let candidate: Joint
        switch token.end - token.start {
        case 4: candidate = byte(0) == UInt8(ascii: "r") ? .root : byte(1) == UInt8(ascii: "o") ? .nose : .neck
        case 7: candidate = byte(5) == UInt8(ascii: "y") ? .leftEye : byte(5) == UInt8(ascii: "a") ? .leftEar : .leftHip
        case 8:
            candidate =
                byte(0) == UInt8(ascii: "l")
                ? .leftKnee
                : byte(6) == UInt8(ascii: "y") ? .rightEye : byte(6) == UInt8(ascii: "a") ? .rightEar : .rightHip
        case 9:
            candidate =
                byte(0) == UInt8(ascii: "r")
                ? .rightKnee
                : byte(4) == UInt8(ascii: "E") ? .leftElbow : byte(4) == UInt8(ascii: "W") ? .leftWrist : .leftAnkle
        case 10:
            candidate =
                byte(5) == UInt8(ascii: "E") ? .rightElbow : byte(5) == UInt8(ascii: "W") ? .rightWrist : .rightAnkle
        case 12: candidate = .leftShoulder
        case 13: candidate = .rightShoulder
        default: return nil
        }
        return reader.key(token, is: name(of: candidate)) ? candidate : nil
    }

    /// ``joint(named:in:)`` for a name written with escapes.
    @inline(never)
    private static func joint(namedEscaped token: JSONReader.StringToken, in reader: JSONReader) -> Joint? {
        joints.first { reader.key(token, is: name(of: $0)) }
    }

    /// Every joint in wire order, computed once (`allCases` builds a new array on each use).
    private static let joints: [Joint] = Joint.allCases

    /// The wire name of `joint` as a static string, so comparing a key with it needs no allocation.
    @inline(__always)
    private static func name(of joint: Joint) -> StaticString {
        switch joint {
        case .nose: "nose"
        case .leftEye: "leftEye"
        case .rightEye: "rightEye"
        case .leftEar: "leftEar"
        case .rightEar: "rightEar"
        case .neck: "neck"
        case .root: "root"
        case .leftShoulder: "leftShoulder"
        case .rightShoulder: "rightShoulder"
        case .leftElbow: "leftElbow"
        case .rightElbow: "rightElbow"
        case .leftWrist: "leftWrist"
        case .rightWrist: "rightWrist"
        case .leftHip: "leftHip"
        case .rightHip: "rightHip"
        case .leftKnee: "leftKnee"
        case .rightKnee: "rightKnee"
        case .leftAnkle: "leftAnkle"
        case .rightAnkle: "rightAnkle"
        }
    }
}
