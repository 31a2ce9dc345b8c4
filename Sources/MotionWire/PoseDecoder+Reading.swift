import MotionCore

/// Reading pose objects and batches from a ``JSONReader``.
extension PoseDecoder {
    private static let maxCoordinate = 1e6
    private static let maxImageSide = 1e6
    private static let maxTimestamp = 1e12

    /// Which member carried the joints.
    private enum JointForm {
        case none, points, keypoints
    }

    /// The members of a pose object this version reads; each may appear once (``KnownMembers``).
    private enum PoseMember: Int {
        case t, points, keypoints, confidence, width, height, type

        /// The member named `key`, or nil for a member this version skips.
        @inline(__always)
        init?(_ key: JSONReader.StringToken, in reader: JSONReader) {
            if reader.key(key, is: "t") {
                self = .t
            } else if reader.key(key, is: "points") {
                self = .points
            } else if reader.key(key, is: "keypoints") {
                self = .keypoints
            } else if reader.key(key, is: "confidence") {
                self = .confidence
            } else if reader.key(key, is: "width") {
                self = .width
            } else if reader.key(key, is: "height") {
                self = .height
            } else if reader.key(key, is: "type") {
                self = .type
            } else {
                return nil
            }
        }

        /// The error for this member given twice: `invalidPose`, or `invalidMessage` for `type` as for every
        /// message kind.
        @inline(never)
        func duplicate() -> WireError {
            WireError.duplicateMember("\(self)", code: self == .type ? .invalidMessage : .invalidPose)
        }
    }

    /// Reads one pose object at the reader's position; once it is accepted, notes its first unknown joint name in
    /// `report` unless the report already holds one.
    func readPose(_ reader: inout JSONReader, report: inout DecodingReport) throws -> Pose {
        let start = reader.mark
        let read = try readPose(&reader)
        if read.hasUnknownJoint, report.unknownJoint == nil {
            report.unknownJoint = Self.firstUnknownJoint(of: reader, from: start)
        }
        return read.pose
    }

    /// Reads one pose object at the reader's position, and says whether a name in its `points` or `confidence` is
    /// not a joint.
    ///
    /// The flag is returned rather than the report taken `inout`: a pointer kept through the member loop costs a
    /// register there, and measurably slows every pose.
    private func readPose(_ reader: inout JSONReader) throws -> (pose: Pose, hasUnknownJoint: Bool) {
        guard try reader.peekKind() == .object else { throw WireError.invalidPose("a pose must be a JSON object") }
        var timestamp: Double?
        var width: Double?
        var height: Double?
        var raw = RawJoints()
        var form = JointForm.none
        var confidences = RawJoints()
        var seen = KnownMembers()
        try reader.beginObject()
        var first = true
        while let key = try reader.nextKey(&first) {
            guard let member = PoseMember(key, in: reader) else {
                try reader.skipValue()
                continue
            }
            guard seen.insert(member.rawValue) else { throw member.duplicate() }
            switch member {
            case .t:
                timestamp = try reader.readNumber(or: .invalidPose("t must be a number"))
            case .points:
                raw = RawJoints()
                form = try readPoints(&reader, into: &raw) ? .points : .none
            case .keypoints:
                // Replaces a points member read before, whose unknown joint names are still to be reported.
                raw = RawJoints(hasUnknownJoint: raw.hasUnknownJoint)
                form = try readKeypoints(&reader, into: &raw) ? .keypoints : .none
            case .confidence:
                try readConfidences(&reader, into: &confidences)
            case .width:
                width = try reader.readOptionalNumber(or: .invalidPose("width must be a number"))
            case .height:
                height = try reader.readOptionalNumber(or: .invalidPose("height must be a number"))
            case .type:
                // Checked by MessageDecoder for a message; a REST body or NDJSON line may carry anything here.
                try reader.skipValue()
            }
        }
        if form == .points {
            raw.hasConfidence = confidences.hasConfidence
            raw.confidence = confidences.confidence
        }
        let pose = try assemble(raw, timestamp: timestamp, width: width, height: height)
        return (pose, raw.hasUnknownJoint || confidences.hasUnknownJoint)
    }

    /// Reads a `frames` batch: an object whose `frames` member is an array of pose objects. `type` and `frames`
    /// may each appear once; other members are skipped.
    ///
    /// Each frame is judged alone (docs/protocol.md §3, flow control): a frame that is well-formed JSON but not a valid
    /// pose yields its error, named `frames[i]: …`, and reading goes on with the next frame. What is wrong with the
    /// batch itself throws: a syntax error anywhere (in any frame too), more than
    /// ``WireLimits/maxFramesPerBatch`` frames, `frames` missing, repeated or not an array, `type` repeated.
    func readBatch(_ reader: inout JSONReader, report: inout DecodingReport) throws -> [Result<Pose, WireError>] {
        var frames: [Result<Pose, WireError>] = []
        try reader.readBatch(of: "frames", code: .invalidPose) { reader, index in
            guard index < limits.maxFramesPerBatch else { throw Self.tooManyFrames(limits) }
            frames.append(try readFrame(&reader, index: index, report: &report))
        }
        return frames
    }

    /// Reads frame `index` of a batch: its pose, or the error that refuses it alone. A refused frame is then
    /// skipped from its start, still validated, so a syntax error later in it throws as anywhere else.
    private func readFrame(
        _ reader: inout JSONReader, index: Int, report: inout DecodingReport
    ) throws -> Result<Pose, WireError> {
        let start = reader.mark
        do {
            return .success(try readPose(&reader, report: &report))
        } catch let error as WireError {
            reader.rewind(to: start)
            try reader.skipValue()
            return .failure(WireError(code: error.code, message: "frames[\(index)]: \(error.message)"))
        }
    }

    /// Reads a `points` object (or `null`); returns whether it was an object. Notes in `raw` whether a name was not
    /// a joint.
    private func readPoints(_ reader: inout JSONReader, into raw: inout RawJoints) throws -> Bool {
        if try reader.readNullIfPresent() { return false }
        guard format == .joints || format == .vision else {
            throw WireError.invalidPose("\(format.rawValue) poses carry their points in keypoints")
        }
        guard try reader.peekKind() == .object else { throw WireError.invalidPose("points must be an object") }
        var named = KnownMembers()
        try reader.beginObject()
        var first = true
        while let key = try reader.nextKey(&first) {
            guard let joint = RawJoints.joint(named: key, in: reader) else {
                // In the bits already at hand: a variable of its own would cost every joint a few instructions.
                named.insertUnknown()
                try reader.skipValue()
                continue
            }
            guard named.insert(joint.index) else {
                throw WireError.duplicateMember(joint.rawValue, in: "points", code: .invalidPose)
            }
            if let (x, y) = reader.readPlainNumberPair() {
                raw.set(joint, x: x, y: y, confidence: nil)
                continue
            }
            if try reader.readNullIfPresent() {
                raw.remove(joint)
                continue
            }
            func invalid() -> WireError { .invalidPose("points.\(joint.rawValue) must be [x, y]") }
            guard try reader.peekKind() == .array else { throw invalid() }
            try reader.beginArray()
            var firstElement = true
            guard try reader.nextElement(&firstElement), try reader.peekKind() == .number else { throw invalid() }
            let x = try reader.readNumber()
            guard try reader.nextElement(&firstElement), try reader.peekKind() == .number else { throw invalid() }
            let y = try reader.readNumber()
            guard try !reader.nextElement(&firstElement) else { throw invalid() }
            raw.set(joint, x: x, y: y, confidence: nil)
        }
        raw.hasUnknownJoint = named.hasUnknown
        return true
    }

    /// Reads a `confidence` object (or `null`): joint name to a number in 0…1 or `null`. Notes in `confidences`
    /// whether a name was not a joint.
    private func readConfidences(_ reader: inout JSONReader, into confidences: inout RawJoints) throws {
        if try reader.readNullIfPresent() { return }
        guard try reader.peekKind() == .object else { throw WireError.invalidPose("confidence must be an object") }
        var named = KnownMembers()
        try reader.beginObject()
        var first = true
        while let key = try reader.nextKey(&first) {
            guard let joint = RawJoints.joint(named: key, in: reader) else {
                // In the bits already at hand: a variable of its own would cost every joint a few instructions.
                named.insertUnknown()
                try reader.skipValue()
                continue
            }
            guard named.insert(joint.index) else {
                throw WireError.duplicateMember(joint.rawValue, in: "confidence", code: .invalidPose)
            }
            guard
                let value = try reader.readPlainNumber()
                    ?? reader.readOptionalNumber(
                        or: .invalidPose("confidence.\(joint.rawValue) must be a number or null"))
            else {
                confidences.remove(joint)
                continue
            }
            try Self.checkConfidence(value, "confidence.\(joint.rawValue)")
            confidences.set(joint, x: 0, y: 0, confidence: value)
        }
        confidences.hasUnknownJoint = named.hasUnknown
    }

    /// The first name in `points` or `confidence` of the pose object at `start` that is not a joint, unescaped and
    /// cut to ``DecodingReport/maxNameBytes``: read again from the start, only for a pose known to have one, so
    /// the reading loops keep nothing but a bit.
    @inline(never)
    private static func firstUnknownJoint(of reader: JSONReader, from start: JSONReader.Mark) -> String? {
        var reader = reader
        reader.rewind(to: start)
        do throws(JSONError) {
            try reader.beginObject()
            var first = true
            while let member = try reader.nextKey(&first) {
                guard reader.key(member, is: "points") || reader.key(member, is: "confidence"),
                    try reader.peekKind() == .object
                else {
                    try reader.skipValue()
                    continue
                }
                try reader.beginObject()
                var firstName = true
                while let name = try reader.nextKey(&firstName) {
                    if RawJoints.joint(named: name, in: reader) == nil {
                        return reader.string(name, maxBytes: DecodingReport.maxNameBytes)
                    }
                    try reader.skipValue()
                }
            }
        } catch {
            // Not reached: the pose was read whole before.
        }
        return nil
    }

    /// Reads a flat `keypoints` array of `[x, y, c]` triples in the format's layout (or `null`); returns whether
    /// it was an array.
    private func readKeypoints(_ reader: inout JSONReader, into raw: inout RawJoints) throws -> Bool {
        if try reader.readNullIfPresent() { return false }
        let layout = RawJoints.layout(of: format)
        let expected = layout.count * 3
        func wrongLength() -> WireError {
            .invalidPose("keypoints must hold \(expected) numbers (\(layout.count) × [x, y, c]) for \(format.rawValue)")
        }
        guard try reader.peekKind() == .array else { throw wrongLength() }
        try reader.beginArray()
        var first = true
        var count = 0
        var x: Double?
        var y: Double?
        while try reader.nextElement(&first) {
            guard count < expected else { throw wrongLength() }
            let slot = count / 3
            let value = try reader.readOptionalNumber(or: .invalidPose("keypoints[\(count)] must be a number or null"))
            switch count % 3 {
            case 0:
                x = value
            case 1:
                y = value
                if x != nil, y == nil {
                    throw WireError.invalidPose("keypoints[\(count)]: y must be a number when x is")
                }
            default:
                if let x, let y {
                    guard x.isFinite, y.isFinite else { throw WireError.invalidPose("keypoint \(slot) out of range") }
                    if let value { try Self.checkConfidence(value, "keypoints[\(count)]") }
                    if let joint = layout[slot] { raw.set(joint, x: x, y: y, confidence: value) }
                }
            }
            count += 1
        }
        guard count == expected else { throw wrongLength() }
        return true
    }

    /// Converts the read joints to pixels, drops low-confidence ones, derives `neck`/`root` where the format has
    /// none, and swaps sides when mirrored.
    private func assemble(_ raw: RawJoints, timestamp: Double?, width: Double?, height: Double?) throws -> Pose {
        guard let timestamp else { throw WireError.invalidPose("t is required") }
        guard timestamp.isFinite, abs(timestamp) <= Self.maxTimestamp else {
            throw WireError.invalidPose("t must be finite and within ±1e12 s")
        }
        var imageSize: ImageSize?
        switch (width, height) {
        case (nil, nil): break
        case (let width?, let height?):
            guard width > 0, width <= Self.maxImageSide, height > 0, height <= Self.maxImageSide else {
                throw WireError.invalidPose("width and height must be within 0…1e6 pixels")
            }
            imageSize = ImageSize(width: width, height: height)
        default: throw WireError.invalidPose("width and height go together")
        }
        let isNormalized =
            format.coordinates == .normalized || (format.coordinates == .pixelsOrNormalized && normalized)
        if isNormalized, imageSize == nil {
            throw WireError.invalidPose("\(format.rawValue) poses need width and height")
        }
        let scale = isNormalized ? (imageSize?.width ?? 1, imageSize?.height ?? 1) : (1, 1)
        let threshold = effectiveMinConfidence
        var pose = Pose(timestamp: timestamp, imageSize: imageSize)
        for index in raw.seenIndices {
            let joint = RawJoints.joint(at: index)
            let (rawX, rawY) = raw.coordinates(at: index)
            let point = Point(x: rawX * scale.0, y: (format.isYUp ? 1 - rawY : rawY) * scale.1)
            guard point.isFinite, abs(point.x) <= Self.maxCoordinate, abs(point.y) <= Self.maxCoordinate else {
                throw WireError.invalidPose("\(joint.rawValue) must be finite and within ±1e6 pixels")
            }
            let confidence = raw.confidence(at: index)
            if let confidence, let threshold, confidence < threshold { continue }
            pose[joint] = point
            pose.setConfidence(confidence, for: joint)
        }
        if format.derivesCentralJoints { pose.deriveCentralJoints() }
        return mirrored ? pose.swappingSides() : pose
    }

    private static func checkConfidence(_ value: Double, _ field: @autoclosure () -> String) throws {
        guard value >= 0, value <= 1 else { throw WireError.invalidPose("\(field()) must be within 0…1") }
    }

    /// Whether the top-level object of `bytes` has a member `name`; false for anything malformed, which the
    /// decoding pass then reports.
    static func topLevelMember(named name: StaticString, in bytes: UnsafeRawBufferPointer, limits: WireLimits) -> Bool {
        do throws(JSONError) {
            var reader = try JSONReader(bytes, limits: limits)
            guard try reader.peekKind() == .object else { return false }
            try reader.beginObject()
            var first = true
            while let key = try reader.nextKey(&first) {
                if reader.key(key, is: name) { return true }
                try reader.skipValue()
            }
            return false
        } catch {
            return false
        }
    }
}
