/// Decodes the client messages of a live session (docs/protocol.md §3) from WebSocket text frames.
///
/// Holds the session's ``PoseDecoder``: create it with the defaults, and once the server accepts `start`, call
/// ``configure(for:)`` so later `pose` and `poses` messages are read in the session's input format.
///
/// ```swift
/// var decoder = MessageDecoder()
/// var report = DecodingReport()  // kept for the session
/// switch try decoder.decode(frame, report: &report) {
/// case .start(let start): decoder.configure(for: start)
/// case .pose(let pose): …
/// case .poses(let frames):
///     for (batchIndex, frame) in frames.enumerated() {
///         switch frame {
///         case .success(let pose): …
///         case .failure(let error): …  // answered with its batchIndex; the batch goes on
///         }
///     }
/// default: …
/// }
/// if let name = report.unknownJoint { … }  // answered once per session with `unknownJoint`
/// ```
///
/// Error codes decided here: `invalidJSON` (not well-formed JSON, not an object), `messageTooBig` (too many bytes,
/// a batch of more than ``WireLimits/maxFramesPerBatch`` frames, or a `motion` message of more than
/// ``WireLimits/maxSamplesPerMessage`` samples), `unknownType` (`type` missing, not a string or
/// unknown), `invalidPose` (`pose`; `poses` whose `frames` is missing, repeated or not an array) and
/// `invalidMessage` (`start`, `motion` and its samples (``MotionDecoder``), and `type` given twice in any message). A syntax error outranks every other error,
/// wherever it is in the message, inside a frame of a batch too.
///
/// A `poses` batch is judged frame by frame (docs/protocol.md §3): a frame that is well-formed JSON but not a valid
/// pose does not throw; it is refused alone, as its element of ``ClientMessage/poses(_:)``, and the frames after
/// it are read as usual.
///
/// A member name given twice is refused wherever it could change what is read (``KnownMembers``): `type`, the
/// known members of each message and of its `options`, `points` and `confidence`, and every top-level name of
/// `reset`, `baseline` and `stop`, which have no member but `type`. Unknown members are skipped, repeated or not.
public struct MessageDecoder: Sendable, Hashable {
    /// Reads the frames of `pose` and `poses` messages.
    public var poseDecoder: PoseDecoder

    /// Creates a decoder.
    /// - Parameter poseDecoder: Reads pose frames; the default reads the `joints` format.
    public init(poseDecoder: PoseDecoder = PoseDecoder()) {
        self.poseDecoder = poseDecoder
    }

    /// Size, depth and batch limits (those of ``poseDecoder``).
    public var limits: WireLimits { poseDecoder.limits }

    /// Reads later poses in the format, mirroring and confidence threshold `start` asked for, keeping the limits.
    /// - Parameter start: The accepted `start` message.
    public mutating func configure(for start: StartRequest) {
        poseDecoder = PoseDecoder(start, limits: poseDecoder.limits)
    }

    /// Decodes one message.
    /// - Parameter bytes: One WebSocket text frame (UTF-8 JSON).
    /// - Returns: The message.
    /// - Throws: `WireError`; see the type's documentation for the codes.
    /// - Complexity: O(n) in the size of the message.
    public func decode(_ bytes: [UInt8]) throws(WireError) -> ClientMessage {
        var report = DecodingReport()
        return try decode(bytes, report: &report)
    }

    /// Decodes one message, and notes the first unknown joint name of its accepted poses.
    /// - Parameters:
    ///   - bytes: One WebSocket text frame (UTF-8 JSON).
    ///   - report: Gets the first unknown joint name of the `pose`, or of an accepted frame of the `poses`, if the
    ///     report has none yet; left as it was when the message is refused. Keep one per session to learn the
    ///     session's first unknown joint at the cost of one allocation.
    /// - Returns: The message.
    /// - Throws: `WireError`; see the type's documentation for the codes.
    /// - Complexity: O(n) in the size of the message.
    public func decode(_ bytes: [UInt8], report: inout DecodingReport) throws(WireError) -> ClientMessage {
        let outcome = bytes.withUnsafeBytes { raw in
            Result { () throws(WireError) -> ClientMessage in try decode(raw, report: &report) }
        }
        return try outcome.get()
    }

    /// Decodes one message from raw bytes.
    /// - Parameter bytes: One WebSocket text frame (UTF-8 JSON).
    /// - Returns: The message.
    /// - Throws: `WireError`; see the type's documentation for the codes.
    public func decode(_ bytes: UnsafeRawBufferPointer) throws(WireError) -> ClientMessage {
        var report = DecodingReport()
        return try decode(bytes, report: &report)
    }

    /// Decodes one message from raw bytes, and notes the first unknown joint name of its accepted poses.
    /// - Parameters:
    ///   - bytes: One WebSocket text frame (UTF-8 JSON).
    ///   - report: Gets the first unknown joint name, as ``decode(_:report:)-([UInt8],_)``.
    /// - Returns: The message.
    /// - Throws: `WireError`; see the type's documentation for the codes.
    public func decode(_ bytes: UnsafeRawBufferPointer, report: inout DecodingReport) throws(WireError) -> ClientMessage
    {
        let type = try messageType(of: bytes)
        return try JSONReader.decode(bytes, limits: limits, report: &report) { reader, report in
            switch type {
            case .start: return .start(try StartRequest.read(&reader))
            case .resume: return .resume(try ResumeRequest.read(&reader))
            case .pose: return .pose(try poseDecoder.readPose(&reader, report: &report))
            case .poses: return .poses(try poseDecoder.readBatch(&reader, report: &report))
            case .motion: return .motion(try MotionDecoder(limits: limits).readSamples(&reader))
            case .reset, .baseline, .stop:
                try Self.readBareMessage(&reader)
                return type == .reset ? .reset : type == .baseline ? .baseline : .stop
            }
        }
    }

    private enum MessageType {
        case start, resume, pose, poses, motion, reset, baseline, stop
    }

    /// Reads a message that carries nothing but its `type`, refusing any top-level name given twice: these are
    /// rare, so a set of names costs nothing that matters, and unknown members get the strict rule too.
    private static func readBareMessage(_ reader: inout JSONReader) throws {
        var names: Set<String> = []
        try reader.beginObject()
        var first = true
        while let key = try reader.nextKey(&first) {
            let name = reader.string(key)
            guard names.insert(name).inserted else {
                throw WireError.duplicateMember(String(name.prefix(32)), code: .invalidMessage)
            }
            try reader.skipValue()
        }
    }

    /// Finds `type` among the top-level members, usually the first, without reading the others.
    private func messageType(of bytes: UnsafeRawBufferPointer) throws(WireError) -> MessageType {
        let scan: TypeScan
        do throws(JSONError) {
            scan = try scanType(bytes)
        } catch {
            throw WireError(error)
        }
        switch scan {
        case .found(let type): return type
        case .notAnObject: throw WireError(code: .invalidJSON, message: "a message must be a JSON object")
        case .missing: throw WireError(code: .unknownType, message: "type is missing")
        case .notAString: throw outranked(WireError(code: .unknownType, message: "type must be a string"), bytes)
        case .unknown(let name):
            throw outranked(WireError(code: .unknownType, message: "unknown type \"\(name)\""), bytes)
        case .repeated: throw outranked(WireError.duplicateMember("type", code: .invalidMessage), bytes)
        }
    }

    private enum TypeScan {
        case found(MessageType)
        case notAnObject, missing, notAString
        case unknown(String)
        /// A `type` that is not a known name, followed by another `type`.
        case repeated
    }

    private func scanType(_ bytes: UnsafeRawBufferPointer) throws(JSONError) -> TypeScan {
        var reader = try JSONReader(bytes, limits: limits)
        guard try reader.peekKind() == .object else {
            try reader.skipValue()
            try reader.finish()
            return .notAnObject
        }
        try reader.beginObject()
        var first = true
        while let key = try reader.nextKey(&first) {
            guard reader.key(key, is: "type") else {
                try reader.skipValue()
                continue
            }
            guard try reader.peekKind() == .string else {
                try reader.skipValue()
                return try Self.hasAnotherType(&reader) ? .repeated : .notAString
            }
            let name = try reader.readStringToken()
            if reader.key(name, is: "pose") { return .found(.pose) }
            if reader.key(name, is: "poses") { return .found(.poses) }
            if reader.key(name, is: "motion") { return .found(.motion) }
            if reader.key(name, is: "start") { return .found(.start) }
            if reader.key(name, is: "reset") { return .found(.reset) }
            if reader.key(name, is: "baseline") { return .found(.baseline) }
            if reader.key(name, is: "stop") { return .found(.stop) }
            if reader.key(name, is: "resume") { return .found(.resume) }
            return try Self.hasAnotherType(&reader) ? .repeated : .unknown(String(reader.string(name).prefix(32)))
        }
        try reader.finish()
        return .missing
    }

    /// Whether a later member of the open object is named `type` too. Only on the way to an error: a second
    /// `type` is refused the same way whichever of the two is the unknown one.
    private static func hasAnotherType(_ reader: inout JSONReader) throws(JSONError) -> Bool {
        var first = false
        while let key = try reader.nextKey(&first) {
            if reader.key(key, is: "type") { return true }
            try reader.skipValue()
        }
        return false
    }

    /// `error`, unless the message is malformed further on: a syntax error outranks it.
    private func outranked(_ error: WireError, _ bytes: UnsafeRawBufferPointer) -> WireError {
        if let syntaxError = JSONReader.validate(bytes, limits: limits) { return WireError(syntaxError) }
        return error
    }
}
