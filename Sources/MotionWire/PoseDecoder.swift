public import MotionCore

/// Decodes pose frames in a session's input format (PROTOCOL.md §4) into ``Pose`` values: image pixels, y down,
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
/// clients may send more than this version reads. A known member (`type`, `t`, `width`, `height`, `points`,
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
        try JSONReader.decode(bytes, limits: limits) { reader in try readPose(&reader) }
    }

    /// Decodes one pose object from raw bytes, as ``decodePose(_:)-([UInt8])``.
    /// - Parameter bytes: The UTF-8 JSON object.
    /// - Returns: The pose.
    /// - Throws: `WireError`, as ``decodePose(_:)-([UInt8])``.
    public func decodePose(_ bytes: UnsafeRawBufferPointer) throws(WireError) -> Pose {
        try JSONReader.decode(bytes, limits: limits) { reader in try readPose(&reader) }
    }

    /// Decodes a `POST /v1/sessions/{id}/poses` or `/v1/analyze` body (PROTOCOL.md §5): an object with a
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
        let hasFrames = bytes.withUnsafeBytes { raw in Self.topLevelMember(named: "frames", in: raw, limits: limits) }
        return try JSONReader.decode(bytes, limits: limits) { reader in
            hasFrames ? try readBatch(&reader) : [.success(try readPose(&reader))]
        }
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
        guard bytes.count <= limits.maxMessageBytes else { throw WireError(JSONError(offset: 0, reason: .tooLarge)) }
        let outcome = bytes.withUnsafeBytes { raw in
            Result { () throws(WireError) -> [Result<Pose, WireError>] in try decodeLines(raw) }
        }
        return try outcome.get()
    }

    private func decodeLines(_ bytes: UnsafeRawBufferPointer) throws(WireError) -> [Result<Pose, WireError>] {
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
                frames.append(.success(try decodePose(line)))
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
