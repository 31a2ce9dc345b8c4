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
    ///   `exercise`, a wrong type, a value out of range, a refused `subject` or a known member given twice.
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

    /// The members of a `start` object this version reads; each may appear once (``KnownMembers``).
    private enum Member: Int, CaseIterable {
        case type, exercise, side, subject, format, mirrored, normalized, minConfidence, options, programme, demo

        /// The member named `key`, or nil for a member this version skips.
        init?(_ key: JSONReader.StringToken, in reader: JSONReader) {
            guard let member = Self.allCases.first(where: { reader.key(key, is: $0.name) }) else { return nil }
            self = member
        }

        var name: StaticString {
            switch self {
            case .type: "type"
            case .exercise: "exercise"
            case .side: "side"
            case .subject: "subject"
            case .format: "format"
            case .mirrored: "mirrored"
            case .normalized: "normalized"
            case .minConfidence: "minConfidence"
            case .options: "options"
            case .programme: "programme"
            case .demo: "demo"
            }
        }
    }

    /// The members of `options` this version reads; each may appear once.
    private enum OptionsMember: Int, CaseIterable {
        case target, rest, enter, exit, holdSeconds, reps, sets, baselineReps, snapshots

        /// The member named `key`, or nil for a member this version skips.
        init?(_ key: JSONReader.StringToken, in reader: JSONReader) {
            guard let member = Self.allCases.first(where: { reader.key(key, is: $0.name) }) else { return nil }
            self = member
        }

        var name: StaticString {
            switch self {
            case .target: "target"
            case .rest: "rest"
            case .enter: "enter"
            case .exit: "exit"
            case .holdSeconds: "holdSeconds"
            case .reps: "reps"
            case .sets: "sets"
            case .baselineReps: "baselineReps"
            case .snapshots: "snapshots"
            }
        }
    }

    /// Reads the object at the reader's position. Unknown members (`frames` of an analyze body, say) are skipped;
    /// a known one, `type` included, given twice is refused (``KnownMembers``). `type` is not checked otherwise.
    static func read(_ reader: inout JSONReader) throws -> StartRequest {
        guard try reader.peekKind() == .object else { throw WireError.invalidMessage("start must be a JSON object") }
        var request = StartRequest(exercise: "")
        var hasExercise = false
        var seen = KnownMembers()
        try reader.beginObject()
        var first = true
        while let key = try reader.nextKey(&first) {
            guard let member = Member(key, in: reader) else {
                try reader.skipValue()
                continue
            }
            guard seen.insert(member.rawValue) else {
                throw WireError.duplicateMember("\(member.name)", code: .invalidMessage)
            }
            switch member {
            case .type:
                try reader.skipValue()
            case .exercise:
                guard try reader.peekKind() == .string else {
                    throw WireError.invalidMessage("exercise must be a string")
                }
                request.exercise = try reader.readString()
                hasExercise = true
            case .side:
                guard let side = try readOptionalString(&reader, "side") else {
                    request.side = nil
                    continue
                }
                guard let value = BodySide(rawValue: side) else {
                    throw WireError.invalidMessage("side must be \"left\" or \"right\"")
                }
                request.side = value
            case .subject:
                request.subject = try readSubject(&reader)
            case .format:
                let name = try readOptionalString(&reader, "format") ?? InputFormat.joints.rawValue
                guard let format = InputFormat(rawValue: name) else {
                    throw WireError.invalidMessage("format must be joints, vision, mediapipe or coco")
                }
                request.format = format
            case .mirrored:
                request.mirrored = try readOptionalBool(&reader, "mirrored") ?? false
            case .normalized:
                request.normalized = try readOptionalBool(&reader, "normalized") ?? false
            case .minConfidence:
                let value = try reader.readOptionalNumber(or: .invalidMessage("minConfidence must be a number"))
                if let value, !(0...1).contains(value) {
                    throw WireError.invalidMessage("minConfidence must be within 0…1")
                }
                request.minConfidence = value
            case .options:
                request.options = try readOptions(&reader)
            case .programme:
                request.programme = try readProgramme(&reader)
            case .demo:
                request.demo = try readOptionalBool(&reader, "demo") ?? false
            }
        }
        guard request.programme != nil || (hasExercise && !request.exercise.isEmpty) else {
            throw WireError.invalidMessage("exercise is required")
        }
        return request
    }

    /// Reads `programme`: `null`, or `{"id":"…","item":"…"}` (and, in a stored `start`, the `version` the server
    /// resolved), each id 1…64 printable ASCII characters.
    private static func readProgramme(_ reader: inout JSONReader) throws -> ProgrammeLink? {
        if try reader.readNullIfPresent() { return nil }
        guard try reader.peekKind() == .object else {
            throw WireError.invalidMessage(#"programme must be {"id":"…","item":"…"}"#)
        }
        var id: String?
        var item: String?
        var version = 0
        var seen = KnownMembers()
        try reader.beginObject()
        var first = true
        while let key = try reader.nextKey(&first) {
            let slot: Int
            if reader.key(key, is: "id") {
                slot = 0
            } else if reader.key(key, is: "item") {
                slot = 1
            } else if reader.key(key, is: "version") {
                slot = 2
            } else {
                try reader.skipValue()
                continue
            }
            guard seen.insert(slot) else {
                throw WireError.duplicateMember(
                    ["id", "item", "version"][slot], in: "programme", code: .invalidMessage)
            }
            if slot == 2 {
                let invalid = WireError.invalidMessage("programme.version must be a whole number of at least 1")
                let value = try reader.readOptionalNumber(or: invalid) ?? 0
                guard value == 0 || (value >= 1 && value <= Double(Int32.max) && value == value.rounded()) else {
                    throw invalid
                }
                version = Int(value)
                continue
            }
            let name = slot == 0 ? "programme.id" : "programme.item"
            guard try reader.peekKind() == .string else { throw WireError.invalidMessage("\(name) must be a string") }
            let text = try reader.readString()
            guard (1...64).contains(text.utf8.count), text.utf8.allSatisfy({ (0x21...0x7E).contains($0) }) else {
                throw WireError.invalidMessage("\(name) must be 1 to 64 printable ASCII characters")
            }
            if slot == 0 { id = text } else { item = text }
        }
        guard let id, let item else { throw WireError.invalidMessage("programme needs both id and item") }
        return ProgrammeLink(id: id, version: version, item: item)
    }

    /// Reads `subject`: `null`, or a string within ``subjectRule``.
    private static func readSubject(_ reader: inout JSONReader) throws -> String? {
        switch try reader.peekKind() {
        case .string: break
        case .null:
            try reader.readNull()
            return nil
        default: throw WireError.invalidMessage("subject must be a string")
        }
        let token = try reader.readStringToken()
        // A byte of the string is at most six raw bytes (`\u0041`), and one raw byte when there is no escape: the raw
        // length refuses a long subject before any of it is copied.
        let rawCount = token.end - token.start
        guard rawCount <= maxSubjectBytes || (token.hasEscapes && rawCount <= 6 * maxSubjectBytes) else {
            throw WireError.invalidMessage(subjectRule.message(for: .tooLong, field: "subject"))
        }
        let subject = reader.string(token)
        if let violation = subjectRule.violation(in: subject) {
            throw WireError.invalidMessage(subjectRule.message(for: violation, field: "subject"))
        }
        return subject
    }

    private static func readOptions(_ reader: inout JSONReader) throws -> Options {
        var options = Options()
        if try reader.readNullIfPresent() { return options }
        guard try reader.peekKind() == .object else { throw WireError.invalidMessage("options must be an object") }
        var seen = KnownMembers()
        try reader.beginObject()
        var first = true
        while let key = try reader.nextKey(&first) {
            guard let member = OptionsMember(key, in: reader) else {
                try reader.skipValue()
                continue
            }
            guard seen.insert(member.rawValue) else {
                throw WireError.duplicateMember("\(member.name)", in: "options", code: .invalidMessage)
            }
            switch member {
            case .target:
                options.prescription.target = try readLevel(&reader, "target")
            case .rest:
                options.prescription.rest = try readLevel(&reader, "rest")
            case .enter:
                options.prescription.enter = try readLevel(&reader, "enter")
            case .exit:
                options.prescription.exit = try readLevel(&reader, "exit")
            case .holdSeconds:
                options.prescription.holdSeconds = try reader.readOptionalNumber(
                    or: .invalidMessage("options.holdSeconds must be a number"))
                if let seconds = options.prescription.holdSeconds, !(seconds > 0 && seconds <= 3600) {
                    throw WireError.invalidMessage("options.holdSeconds must be > 0 and ≤ 3600")
                }
            case .reps:
                options.prescription.reps = try readCount(&reader, "reps", upTo: Options.maxReps)
            case .sets:
                options.prescription.sets = try readCount(&reader, "sets", upTo: Options.maxSets)
            case .baselineReps:
                options.baselineReps = try readCount(&reader, "baselineReps", upTo: 100)
            case .snapshots:
                options.snapshots = try readSnapshotPolicy(&reader)
            }
        }
        return options
    }

    /// Reads `options.<field>` for a target or threshold: `null`, or a finite number within
    /// ±``Options/thresholdBound``. Its unit and order are the exercise's, which the engine checks.
    private static func readLevel(_ reader: inout JSONReader, _ field: StaticString) throws -> Double? {
        let value = try reader.readOptionalNumber(or: .invalidMessage("options.\(field) must be a number"))
        if let value, !(value.isFinite && abs(value) <= Options.thresholdBound) {
            let bound = Int(Options.thresholdBound)
            throw WireError.invalidMessage("options.\(field) must be a finite number within -\(bound)…\(bound)")
        }
        return value
    }

    /// Reads `options.<field>` for a count: `null`, or a whole number within `1…maximum`.
    private static func readCount(_ reader: inout JSONReader, _ field: StaticString, upTo maximum: Int) throws -> Int? {
        let invalid = WireError.invalidMessage("options.\(field) must be a whole number within 1…\(maximum)")
        guard let value = try reader.readOptionalNumber(or: invalid) else { return nil }
        guard value >= 1, value <= Double(maximum), value == value.rounded() else { throw invalid }
        return Int(value)
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
