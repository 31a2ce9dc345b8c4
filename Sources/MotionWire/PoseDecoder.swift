public import MotionCore

/// Decodes pose frames in a session's input format (docs/protocol.md §4) into ``Pose`` values: image pixels, y down,
/// anatomical sides, low-confidence joints left out.
///
/// Configure it once from the session's `start`, then decode every frame:
///
/// ```swift
/// let decoder = PoseDecoder(StartRequest(exercise: "squat", format: .mediapipe))
/// let pose = try decoder.decodePose(Array(#"{"t":1.0,"width":1280,"height":720,"keypoints":[…]}"#.utf8))
/// ```
///
/// Accepted ranges (anything else is ``ErrorCode/invalidPose``):
/// - `t`: required, finite, `|t| ≤ 1e12` seconds.
/// - `width`, `height`: both or neither, finite, `0 < value ≤ 1e6` pixels; required by `vision`, `mediapipe` and
///   normalised `coco`.
/// - coordinates: finite, and within `±1e6` pixels after conversion (normalised input may stray outside 0…1).
/// - confidences, visibilities and scores: `0…1` or `null` (no confidence).
///
/// Member names are case-sensitive; unknown members and unknown joint names are skipped, repeated or not, so
/// clients may send more than this version reads. An unknown joint name is noted all the same: a misspelt or
/// foreign name (Apple Vision's raw `left_shoulder_1_joint`) would otherwise read silently as "not seen", so the
/// first one of an accepted pose is reported in a ``DecodingReport`` given to the decoding calls that take one, for
/// the session to answer with ``ErrorCode/unknownJoint`` (docs/protocol.md §3). A known member (`type`, `t`, `width`, `height`, `points`,
/// `keypoints`, `confidence`, and `type` and `frames` of a batch) or a joint named twice in `points` or
/// `confidence` is refused: `invalidPose` (`invalidMessage` for `type`) with `duplicate member "t"` or
/// `duplicate member "nose" in points` (see ``KnownMembers``). `points` and `keypoints` are two members: when
/// both are given, the later one wins.
public struct PoseDecoder: Sendable, Hashable {
    /// How frames are laid out.
    public var format: InputFormat
    /// Whether left and right are swapped after conversion.
    public var mirrored: Bool
    /// The confidence below which a joint is unseen, as given in `start`; nil for the format's default.
    public var minConfidence: Double?
    /// `coco` only: whether keypoints are normalised 0…1.
    public var normalized: Bool
    /// Size, depth and batch limits.
    public var limits: WireLimits

    /// Creates a decoder.
    /// - Parameters:
    ///   - format: How frames are laid out.
    ///   - mirrored: Whether left and right are swapped after conversion.
    ///   - minConfidence: The confidence below which a joint is unseen; nil for the format's default.
    ///   - normalized: `coco` only: whether keypoints are normalised 0…1.
    ///   - limits: Size, depth and batch limits.
    public init(
        format: InputFormat = .joints, mirrored: Bool = false, minConfidence: Double? = nil, normalized: Bool = false,
        limits: WireLimits = WireLimits()
    ) {
        self.format = format
        self.mirrored = mirrored
        self.minConfidence = minConfidence
        self.normalized = normalized
        self.limits = limits
    }

    /// Creates the decoder a session started with `start` needs.
    /// - Parameters:
    ///   - start: The session's `start` message.
    ///   - limits: Size, depth and batch limits.
    public init(_ start: StartRequest, limits: WireLimits = WireLimits()) {
        self.init(
            format: start.format, mirrored: start.mirrored, minConfidence: start.minConfidence,
            normalized: start.normalized, limits: limits)
    }

    /// The confidence threshold in force: the one given, or the format's default.
    public var effectiveMinConfidence: Double? { minConfidence ?? format.defaultMinConfidence }

    /// Decodes one pose object (a `pose` message, a REST body or one NDJSON line); `type`, if present, is not
    /// checked, but may appear only once.
    /// - Parameter bytes: The UTF-8 JSON object.
    /// - Returns: The pose in pixels, y down, with anatomical sides.
    /// - Throws: `WireError` with `invalidJSON`, `messageTooBig` or `invalidPose`, or `invalidMessage` for a
    ///   repeated `type`.
    /// - Complexity: O(n) in the size of the input; allocates nothing but the error on failure.
    public func decodePose(_ bytes: [UInt8]) throws(WireError) -> Pose {
        var report = DecodingReport()
        return try decodePose(bytes, report: &report)
    }

    /// Decodes one pose object, as ``decodePose(_:)-([UInt8])``, and notes its first unknown joint name.
    /// - Parameters:
    ///   - bytes: The UTF-8 JSON object.
    ///   - report: Gets the pose's first unknown joint name, if it has one and the report has none yet; left as
    ///     it was when the pose is refused.
    /// - Returns: The pose.
    /// - Throws: `WireError`, as ``decodePose(_:)-([UInt8])``.
    /// - Complexity: O(n) in the size of the input; allocates nothing but the error on failure, and the name the
    ///   first time the report gets one.
    public func decodePose(_ bytes: [UInt8], report: inout DecodingReport) throws(WireError) -> Pose {
        try JSONReader.decode(bytes, limits: limits, report: &report) { reader, report in
            try readPose(&reader, report: &report)
        }
    }

    /// Decodes one pose object from raw bytes, as ``decodePose(_:)-([UInt8])``.
    /// - Parameter bytes: The UTF-8 JSON object.
    /// - Returns: The pose.
    /// - Throws: `WireError`, as ``decodePose(_:)-([UInt8])``.
    public func decodePose(_ bytes: UnsafeRawBufferPointer) throws(WireError) -> Pose {
        var report = DecodingReport()
        return try decodePose(bytes, report: &report)
    }

    /// Decodes one pose object from raw bytes, as ``decodePose(_:report:)-([UInt8],_)``.
    /// - Parameters:
    ///   - bytes: The UTF-8 JSON object.
    ///   - report: Gets the pose's first unknown joint name, if it has one and the report has none yet.
    /// - Returns: The pose.
    /// - Throws: `WireError`, as ``decodePose(_:)-([UInt8])``.
    public func decodePose(_ bytes: UnsafeRawBufferPointer, report: inout DecodingReport) throws(WireError) -> Pose {
        try JSONReader.decode(bytes, limits: limits, report: &report) { reader, report in
            try readPose(&reader, report: &report)
        }
    }

    /// Decodes a `POST /v1/sessions/{id}/poses` or `/v1/analyze` body (docs/protocol.md §5): an object with a
    /// `frames` array, or a single pose object.
    ///
    /// The frames of a batch are judged one by one: a frame that is well-formed JSON but not a valid pose (no `t`,
    /// a bad point, a member given twice…) is refused alone, as its element of the result, and the frames after it
    /// are still read. A single pose object is the whole body: its errors throw.
    ///
    /// ```swift
    /// for (index, frame) in try decoder.decodeFrames(body).enumerated() {
    ///     switch frame {
    ///     case .success(let pose): process(pose)
    ///     case .failure(let error): errors.append((batchIndex: index, error: error))
    ///     }
    /// }
    /// ```
    /// - Parameter bytes: The UTF-8 JSON object.
    /// - Returns: Each frame in order, its pose or the error that refused it (`invalidPose`, or `invalidMessage` for
    ///   a repeated `type`; the message names the frame, e.g. `frames[3]: t is required`); the element's index is
    ///   the frame's `batchIndex`.
    /// - Throws: `WireError` for the whole body: `invalidJSON` (a syntax error anywhere, in any frame too),
    ///   `messageTooBig` (too many bytes or frames), `invalidPose` (`frames` not an array or given twice; or the
    ///   single pose is invalid), `invalidMessage` (a repeated `type`).
    /// - Complexity: O(n) in the size of the input.
    public func decodeFrames(_ bytes: [UInt8]) throws(WireError) -> [Result<Pose, WireError>] {
        var report = DecodingReport()
        return try decodeFrames(bytes, report: &report)
    }

    /// Decodes a `POST /v1/sessions/{id}/poses` or `/v1/analyze` body, as ``decodeFrames(_:)``, and notes the
    /// first unknown joint name of its accepted frames.
    /// - Parameters:
    ///   - bytes: The UTF-8 JSON object.
    ///   - report: Gets the first unknown joint name of an accepted frame, if the report has none yet; left as it
    ///     was when the body is refused.
    /// - Returns: Each frame in order, its pose or the error that refused it, as ``decodeFrames(_:)``.
    /// - Throws: `WireError` for the whole body, as ``decodeFrames(_:)``.
    public func decodeFrames(
        _ bytes: [UInt8], report: inout DecodingReport
    ) throws(WireError) -> [Result<Pose, WireError>] {
        let outcome = bytes.withUnsafeBytes { raw in
            Result { () throws(WireError) -> [Result<Pose, WireError>] in
                let hasFrames = Self.topLevelMember(named: "frames", in: raw, limits: limits)
                return try JSONReader.decode(raw, limits: limits, report: &report) { reader, report in
                    guard hasFrames else { return [.success(try readPose(&reader, report: &report))] }
                    return try readBatch(&reader, report: &report)
                }
            }
        }
        return try outcome.get()
    }

    /// Decodes an NDJSON body (`application/x-ndjson`): one pose object per line; blank lines are skipped.
    ///
    /// Lines are independent, so each is judged alone, a line that is not well-formed JSON included: a bad line
    /// is refused as its element of the result and the lines after it are still read.
    /// - Parameter bytes: The UTF-8 lines.
    /// - Returns: Each non-blank line in order, its pose or the error that refused it (`invalidJSON`,
    ///   `invalidPose`, or `invalidMessage` for a repeated `type`; the message names the line, e.g.
    ///   `line 4: t is required`); the element's index is the frame's `batchIndex`.
    /// - Throws: `WireError` with `messageTooBig` when the body or the number of non-blank lines exceeds
    ///   ``limits``.
    /// - Complexity: O(n) in the size of the input.
    public func decodeNDJSON(_ bytes: [UInt8]) throws(WireError) -> [Result<Pose, WireError>] {
        var report = DecodingReport()
        return try decodeNDJSON(bytes, report: &report)
    }

    /// Decodes an NDJSON body, as ``decodeNDJSON(_:)``, and notes the first unknown joint name of its accepted
    /// lines.
    /// - Parameters:
    ///   - bytes: The UTF-8 lines.
    ///   - report: Gets the first unknown joint name of an accepted line, if the report has none yet; left as it
    ///     was when the body is refused.
    /// - Returns: Each non-blank line in order, its pose or the error that refused it, as ``decodeNDJSON(_:)``.
    /// - Throws: `WireError` with `messageTooBig`, as ``decodeNDJSON(_:)``.
    public func decodeNDJSON(
        _ bytes: [UInt8], report: inout DecodingReport
    ) throws(WireError) -> [Result<Pose, WireError>] {
        guard bytes.count <= limits.maxMessageBytes else { throw WireError(JSONError(offset: 0, reason: .tooLarge)) }
        var found = report
        let outcome = bytes.withUnsafeBytes { raw in
            Result { () throws(WireError) -> [Result<Pose, WireError>] in try decodeLines(raw, report: &found) }
        }
        let frames = try outcome.get()
        report = found
        return frames
    }

    private func decodeLines(
        _ bytes: UnsafeRawBufferPointer, report: inout DecodingReport
    ) throws(WireError) -> [Result<Pose, WireError>] {
        var frames: [Result<Pose, WireError>] = []
        var lineStart = 0
        var lineNumber = 0
        while lineStart < bytes.count {
            let lineEnd = bytes[lineStart...].firstIndex(of: 0x0A) ?? bytes.count
            lineNumber += 1
            let line = UnsafeRawBufferPointer(rebasing: bytes[lineStart..<lineEnd])
            lineStart = lineEnd + 1
            guard line.contains(where: { $0 != 0x20 && $0 != 0x09 && $0 != 0x0D }) else { continue }
            guard frames.count < limits.maxFramesPerBatch else { throw Self.tooManyFrames(limits) }
            do throws(WireError) {
                frames.append(.success(try decodePose(line, report: &report)))
            } catch {
                frames.append(.failure(WireError(code: error.code, message: "line \(lineNumber): \(error.message)")))
            }
        }
        return frames
    }

    static func tooManyFrames(_ limits: WireLimits) -> WireError {
        WireError(code: .messageTooBig, message: "more than \(limits.maxFramesPerBatch) frames")
    }
}
