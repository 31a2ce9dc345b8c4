import MotionCore

extension StartRequest {
    /// Decodes a `start` message or a `POST /v1/sessions` body (the same object; `type` is not checked).
    ///
    /// ```swift
    /// let start = try StartRequest(decoding: Array(#"{"exercise":"squat","format":"coco"}"#.utf8))
    /// ```
    /// - Parameters:
    ///   - bytes: The UTF-8 JSON object.
    ///   - limits: Size and depth limits.
    /// - Throws: `WireError`: `invalidJSON` or `messageTooBig` for malformed input, `invalidMessage` for a missing
    ///   `exercise`, a wrong type or a value out of range.
    public init(decoding bytes: [UInt8], limits: WireLimits = WireLimits()) throws(WireError) {
        self = try JSONReader.decode(bytes, limits: limits) { reader in try Self.read(&reader) }
    }

    /// Decodes a `start` message or a `POST /v1/sessions` body from raw bytes.
    /// - Parameters:
    ///   - bytes: The UTF-8 JSON object.
    ///   - limits: Size and depth limits.
    /// - Throws: `WireError`, as ``init(decoding:limits:)-([UInt8],_)``.
    public init(decoding bytes: UnsafeRawBufferPointer, limits: WireLimits = WireLimits()) throws(WireError) {
        self = try JSONReader.decode(bytes, limits: limits) { reader in try Self.read(&reader) }
    }

    /// Reads the object at the reader's position; unknown members (including `type` and `frames`) are skipped.
    static func read(_ reader: inout JSONReader) throws -> StartRequest {
        guard try reader.peekKind() == .object else { throw WireError.invalidMessage("start must be a JSON object") }
        var request = StartRequest(exercise: "")
        var hasExercise = false
        try reader.beginObject()
        var first = true
        while let key = try reader.nextKey(&first) {
            if reader.key(key, is: "exercise") {
                guard try reader.peekKind() == .string else {
                    throw WireError.invalidMessage("exercise must be a string")
                }
                request.exercise = try reader.readString()
                hasExercise = true
            } else if reader.key(key, is: "side") {
                guard let side = try readOptionalString(&reader, "side") else {
                    request.side = nil
                    continue
                }
                guard let value = BodySide(rawValue: side) else {
                    throw WireError.invalidMessage("side must be \"left\" or \"right\"")
                }
                request.side = value
            } else if reader.key(key, is: "subject") {
                request.subject = try readOptionalString(&reader, "subject")
                if let subject = request.subject, subject.count > maxSubjectLength {
                    throw WireError.invalidMessage("subject must be at most \(maxSubjectLength) characters")
                }
            } else if reader.key(key, is: "format") {
                let name = try readOptionalString(&reader, "format") ?? InputFormat.joints.rawValue
                guard let format = InputFormat(rawValue: name) else {
                    throw WireError.invalidMessage("format must be joints, vision, mediapipe or coco")
                }
                request.format = format
            } else if reader.key(key, is: "mirrored") {
                request.mirrored = try readOptionalBool(&reader, "mirrored") ?? false
            } else if reader.key(key, is: "normalized") {
                request.normalized = try readOptionalBool(&reader, "normalized") ?? false
            } else if reader.key(key, is: "minConfidence") {
                let value = try reader.readOptionalNumber(or: .invalidMessage("minConfidence must be a number"))
                if let value, !(0...1).contains(value) {
                    throw WireError.invalidMessage("minConfidence must be within 0…1")
                }
                request.minConfidence = value
            } else if reader.key(key, is: "options") {
                request.options = try readOptions(&reader)
            } else {
                try reader.skipValue()
            }
        }
        guard hasExercise, !request.exercise.isEmpty else { throw WireError.invalidMessage("exercise is required") }
        return request
    }

    private static func readOptions(_ reader: inout JSONReader) throws -> Options {
        var options = Options()
        if try reader.readNullIfPresent() { return options }
        guard try reader.peekKind() == .object else { throw WireError.invalidMessage("options must be an object") }
        try reader.beginObject()
        var first = true
        while let key = try reader.nextKey(&first) {
            if reader.key(key, is: "target") {
                options.target = try reader.readOptionalNumber(or: .invalidMessage("options.target must be a number"))
                if let target = options.target, !(0...360).contains(target) {
                    throw WireError.invalidMessage("options.target must be within 0…360 degrees")
                }
            } else if reader.key(key, is: "holdSeconds") {
                options.holdSeconds = try reader.readOptionalNumber(
                    or: .invalidMessage("options.holdSeconds must be a number"))
                if let seconds = options.holdSeconds, !(seconds > 0 && seconds <= 3600) {
                    throw WireError.invalidMessage("options.holdSeconds must be > 0 and ≤ 3600")
                }
            } else if reader.key(key, is: "baselineReps") {
                let reps = try reader.readOptionalNumber(or: .invalidMessage("options.baselineReps must be a number"))
                if let reps {
                    guard reps >= 1, reps <= 100, reps == reps.rounded() else {
                        throw WireError.invalidMessage("options.baselineReps must be a whole number within 1…100")
                    }
                    options.baselineReps = Int(reps)
                } else {
                    options.baselineReps = nil
                }
            } else if reader.key(key, is: "snapshots") {
                options.snapshots = try readSnapshotPolicy(&reader)
            } else {
                try reader.skipValue()
            }
        }
        return options
    }

    private static func readSnapshotPolicy(_ reader: inout JSONReader) throws -> SnapshotPolicy {
        let invalid = WireError.invalidMessage("options.snapshots must be \"every\", \"off\" or seconds > 0")
        switch try reader.peekKind() {
        case .null:
            try reader.readNull()
            return .every
        case .string:
            let token = try reader.readStringToken()
            if reader.key(token, is: "every") { return .every }
            if reader.key(token, is: "off") { return .off }
            throw invalid
        case .number:
            let seconds = try reader.readNumber()
            guard seconds > 0, seconds.isFinite else { throw invalid }
            return .interval(seconds)
        default:
            throw invalid
        }
    }

    private static func readOptionalString(_ reader: inout JSONReader, _ field: String) throws -> String? {
        switch try reader.peekKind() {
        case .string: return try reader.readString()
        case .null:
            try reader.readNull()
            return nil
        default: throw WireError.invalidMessage("\(field) must be a string")
        }
    }

    private static func readOptionalBool(_ reader: inout JSONReader, _ field: String) throws -> Bool? {
        switch try reader.peekKind() {
        case .bool: return try reader.readBool()
        case .null:
            try reader.readNull()
            return nil
        default: throw WireError.invalidMessage("\(field) must be true or false")
        }
    }
}
