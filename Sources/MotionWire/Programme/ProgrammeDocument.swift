import MotionCore
import PortableBasics

/// The JSON form of a programme (docs/protocol.md §5.3): reading a client's body and the stored text, writing the
/// answer.
///
///     {"subject":"patient-17","title":"Knee, weeks 1-4","startsOn":"2026-12-07","endsOn":"2027-01-03",
///      "items":[{"item":"a1","exercise":"sitToStand","side":null,"perWeek":5,
///                "prescription":{"reps":10,"sets":3,"restSeconds":60,"target":null,"holdSeconds":null},
///                "instructions":{"en":"…","es":"…"}}]}
///
/// A body is read strictly: a member given twice is refused, members it does not know are skipped, and every
/// refusal is a ``WireError`` with code `invalidProgramme` and the JSON Pointer of the bad field. Whether an item's
/// exercise exists, takes the side and the prescription is the server's check, which points the same way.
public enum ProgrammeDocument {
    /// Reads a client's programme body. Members the server makes (`id`, `version`, the times) are skipped; an
    /// item's `exerciseVersion` is the version it asks to pin (0 when not given: the exercise's current one).
    /// - Parameters:
    ///   - bytes: The body.
    ///   - limits: The bounds.
    /// - Returns: The programme, with `id` empty and `version` 0.
    /// - Throws: `invalidJSON` or `messageTooBig` for text that is no JSON or is too big; `invalidProgramme` with
    ///   a pointer otherwise.
    public static func decode(
        _ bytes: [UInt8], limits: ProgrammeLimits = ProgrammeLimits()
    ) throws(WireError)
        -> Programme
    {
        try read(try Node.parse(bytes, maxBytes: limits.maxBytes), limits: limits, stored: false)
    }

    /// Reads a programme as the server stored it (``encode(_:createdAt:endedAt:into:)`` without the times).
    /// - Parameter text: The stored text.
    /// - Returns: The programme with its id, version and pinned exercise versions.
    /// - Throws: A ``WireError`` when the text no longer reads (a damaged record).
    public static func decodeStored(_ text: String) throws(WireError) -> Programme {
        let limits = ProgrammeLimits(maxBytes: .max)
        return try read(try Node.parse(Array(text.utf8), maxBytes: .max), limits: limits, stored: true)
    }

    /// Writes a programme: `{"id","version","subject","title","startsOn","endsOn","items":[…]` then, when given,
    /// `"createdAt"` and `"endedAt"` (ISO-8601 UTC; `endedAt` `null` while it runs), and `}`.
    /// - Parameters:
    ///   - programme: The programme.
    ///   - createdAt: When this version was stored, Unix seconds; nil to leave the times out (the stored text).
    ///   - endedAt: When it was ended, Unix seconds.
    ///   - buffer: The buffer to append to.
    public static func encode(
        _ programme: Programme, createdAt: Double? = nil, endedAt: Double? = nil, into buffer: inout [UInt8]
    ) {
        buffer.appendLiteral(#"{"id":"#)
        buffer.appendJSONString(programme.id)
        buffer.appendLiteral(#","version":"#)
        buffer.appendJSONInteger(programme.version)
        buffer.appendLiteral(#","subject":"#)
        buffer.appendJSONString(programme.subject)
        buffer.appendLiteral(#","title":"#)
        buffer.appendJSONString(programme.title)
        buffer.appendLiteral(#","startsOn":"#)
        buffer.appendJSONString(programme.startsOn.description)
        buffer.appendLiteral(#","endsOn":"#)
        if let endsOn = programme.endsOn {
            buffer.appendJSONString(endsOn.description)
        } else {
            buffer.appendLiteral("null")
        }
        buffer.appendLiteral(#","items":["#)
        for (position, item) in programme.items.enumerated() {
            if position > 0 { buffer.append(UInt8(ascii: ",")) }
            encode(item, into: &buffer)
        }
        buffer.append(UInt8(ascii: "]"))
        if let createdAt {
            buffer.appendLiteral(#","createdAt":"#)
            ISO8601Timestamp.append(createdAt, to: &buffer)
            buffer.appendLiteral(#","endedAt":"#)
            if let endedAt {
                ISO8601Timestamp.append(endedAt, to: &buffer)
            } else {
                buffer.appendLiteral("null")
            }
        }
        buffer.append(UInt8(ascii: "}"))
    }

    private static func encode(_ item: Programme.Item, into buffer: inout [UInt8]) {
        buffer.appendLiteral(#"{"item":"#)
        buffer.appendJSONString(item.item)
        buffer.appendLiteral(#","exercise":"#)
        buffer.appendJSONString(item.exercise)
        buffer.appendLiteral(#","exerciseVersion":"#)
        buffer.appendJSONInteger(item.exerciseVersion)
        buffer.appendLiteral(#","side":"#)
        buffer.appendJSONSide(item.side)
        buffer.appendLiteral(#","perWeek":"#)
        buffer.appendJSONInteger(item.perWeek)
        buffer.appendLiteral(#","prescription":{"reps":"#)
        appendInteger(item.prescription.reps, into: &buffer)
        buffer.appendLiteral(#","sets":"#)
        appendInteger(item.prescription.sets, into: &buffer)
        buffer.appendLiteral(#","restSeconds":"#)
        buffer.appendJSONNumber(item.restSeconds)
        buffer.appendLiteral(#","target":"#)
        buffer.appendJSONNumber(item.prescription.target)
        buffer.appendLiteral(#","holdSeconds":"#)
        buffer.appendJSONNumber(item.prescription.holdSeconds)
        buffer.appendLiteral(#"},"instructions":{"#)
        var first = true
        for language in ProgrammeLimits.languages {
            guard let text = item.instructions[language] else { continue }
            if !first { buffer.append(UInt8(ascii: ",")) }
            first = false
            buffer.appendJSONString(language)
            buffer.append(UInt8(ascii: ":"))
            buffer.appendJSONString(text)
        }
        buffer.appendLiteral("}}")
    }

    private static func appendInteger(_ value: Int?, into buffer: inout [UInt8]) {
        if let value { buffer.appendJSONInteger(value) } else { buffer.appendLiteral("null") }
    }

    // MARK: Reading

    private static func read(_ root: Node, limits: ProgrammeLimits, stored: Bool) throws(WireError) -> Programme {
        let top = try root.object(at: JSONPointer())
        let pointer = JSONPointer()
        let subject = try top.string("subject", at: pointer, required: true) ?? ""
        if let violation = StartRequest.subjectRule.violation(in: subject) {
            throw invalid(StartRequest.subjectRule.message(for: violation, field: "subject"), at: pointer, "subject")
        }
        guard !subject.isEmpty else { throw invalid("subject must not be empty", at: pointer, "subject") }
        let title = try top.string("title", at: pointer) ?? ""
        if let violation = limits.title.violation(in: title) {
            throw invalid(limits.title.message(for: violation, field: "title"), at: pointer, "title")
        }
        guard let startsOn = try top.date("startsOn", at: pointer, required: true) else {
            throw invalid("startsOn is required", at: pointer, "startsOn")
        }
        let endsOn = try top.date("endsOn", at: pointer, required: false)
        if let endsOn, endsOn.daysSinceEpoch < startsOn.daysSinceEpoch {
            throw invalid("endsOn must not be before startsOn", at: pointer, "endsOn")
        }
        let itemsPointer = pointer.appending("items")
        guard let itemNodes = try top.array("items", at: pointer) else {
            throw invalid("items is required", at: pointer, "items")
        }
        guard !itemNodes.isEmpty else { throw invalid("a programme needs at least one item", at: itemsPointer) }
        guard itemNodes.count <= limits.maxItems else {
            throw invalid("a programme has at most \(limits.maxItems) items", at: itemsPointer)
        }
        var items: [Programme.Item] = []
        var seen: Set<String> = []
        for (index, node) in itemNodes.enumerated() {
            let item = try readItem(node, at: itemsPointer.appending(index), limits: limits, stored: stored)
            guard seen.insert(item.item).inserted else {
                throw invalid("item \"\(item.item)\" is given twice", at: itemsPointer.appending(index), "item")
            }
            items.append(item)
        }
        var programme = Programme(subject: subject, title: title, startsOn: startsOn, endsOn: endsOn, items: items)
        if stored {
            programme.id = try top.string("id", at: pointer, required: true) ?? ""
            programme.version = try top.integer("version", at: pointer, in: 1...Int(Int32.max), required: true) ?? 0
        }
        return programme
    }

    private static func readItem(
        _ node: Node, at pointer: JSONPointer, limits: ProgrammeLimits, stored: Bool
    ) throws(WireError) -> Programme.Item {
        let object = try node.object(at: pointer)
        let id = try object.string("item", at: pointer, required: true) ?? ""
        guard !id.isEmpty, id.utf8.count <= ProgrammeLimits.maxItemBytes,
            id.utf8.allSatisfy({ Self.isItemByte($0) })
        else {
            throw invalid(
                "item must be 1 to \(ProgrammeLimits.maxItemBytes) letters, digits, _ or -", at: pointer, "item")
        }
        let exercise = try object.string("exercise", at: pointer, required: true) ?? ""
        guard !exercise.isEmpty, exercise.utf8.count <= ProgrammeLimits.maxExerciseBytes else {
            throw invalid(
                "exercise must be an exercise id of 1 to \(ProgrammeLimits.maxExerciseBytes) bytes", at: pointer,
                "exercise")
        }
        var side: BodySide?
        if let text = try object.string("side", at: pointer) {
            guard let named = BodySide(rawValue: text) else {
                throw invalid("side must be left, right or null", at: pointer, "side")
            }
            side = named
        }
        let perWeek = try object.integer("perWeek", at: pointer, in: 1...ProgrammeLimits.maxPerWeek) ?? 1
        var item = Programme.Item(item: id, exercise: exercise, side: side, perWeek: perWeek)
        if let prescription = try object.member("prescription"), !prescription.isNull {
            let at = pointer.appending("prescription")
            let members = try prescription.object(at: at)
            item.prescription.reps = try members.integer("reps", at: at, in: 1...StartRequest.Options.maxReps)
            item.prescription.sets = try members.integer("sets", at: at, in: 1...StartRequest.Options.maxSets)
            item.restSeconds = try members.number("restSeconds", at: at, in: 0...3_600)
            let bound = StartRequest.Options.thresholdBound
            item.prescription.target = try members.number("target", at: at, in: -bound...bound)
            if let hold = try members.number("holdSeconds", at: at, in: 0...3_600) {
                guard hold > 0 else { throw invalid("holdSeconds must be above 0", at: at, "holdSeconds") }
                item.prescription.holdSeconds = hold
            }
        }
        if let instructions = try object.member("instructions"), !instructions.isNull {
            let at = pointer.appending("instructions")
            let members = try instructions.object(at: at)
            for language in ProgrammeLimits.languages {
                guard let text = try members.string(language, at: at) else { continue }
                if let violation = limits.instructions.violation(in: text) {
                    throw invalid(
                        limits.instructions.message(for: violation, field: "instructions.\(language)"), at: at,
                        language)
                }
                item.instructions[language] = text
            }
        }
        // A client may name the exercise version to pin (0: the current one); the stored text always has it.
        item.exerciseVersion =
            try object.integer("exerciseVersion", at: pointer, in: 1...Int(Int32.max), required: stored) ?? 0
        return item
    }

    private static func isItemByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "_"), UInt8(ascii: "-"):
            true
        default: false
        }
    }

    /// An `invalidProgramme` error at `pointer` (or its member `member`).
    /// - Parameters:
    ///   - message: What is wrong.
    ///   - pointer: The object holding the field, or the field.
    ///   - member: The field's name in that object.
    /// - Returns: The error.
    public static func invalid(_ message: String, at pointer: JSONPointer, _ member: String? = nil) -> WireError {
        let place = member.map { pointer.appending($0) } ?? pointer
        return WireError(code: .invalidProgramme, message: message, pointer: place.description)
    }
}

/// A JSON value read strictly for a programme: members in order, a member given twice refused.
private indirect enum Node {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([Node])
    case object([(String, Node)])

    var isNull: Bool {
        if case .null = self { true } else { false }
    }

    static func parse(_ bytes: [UInt8], maxBytes: Int) throws(WireError) -> Node {
        let limits = WireLimits(maxMessageBytes: maxBytes, maxDepth: 16)
        let result: Result<Node, WireError> = bytes.withUnsafeBytes { raw in
            let opened = Result { () throws(JSONError) -> JSONReader in try JSONReader(raw, limits: limits) }
            guard case .success(var reader) = opened else {
                if case .failure(let error) = opened { return .failure(WireError(error)) }
                return .failure(WireError(code: .invalidJSON, message: "unreadable"))
            }
            do throws(WireError) {
                let value = try read(&reader, at: JSONPointer())
                let finished = Result { () throws(JSONError) in try reader.finish() }
                if case .failure(let error) = finished { throw WireError(error) }
                return .success(value)
            } catch {
                return .failure(error)
            }
        }
        return try result.get()
    }

    private static func read(_ reader: inout JSONReader, at pointer: JSONPointer) throws(WireError) -> Node {
        do {
            switch try reader.peekKind() {
            case .null:
                try reader.readNull()
                return .null
            case .bool: return .bool(try reader.readBool())
            case .number: return .number(try reader.readNumber())
            case .string: return .string(try reader.readString())
            case .array:
                try reader.beginArray()
                var elements: [Node] = []
                var first = true
                while try reader.nextElement(&first) {
                    elements.append(try read(&reader, at: pointer.appending(elements.count)))
                }
                return .array(elements)
            case .object:
                try reader.beginObject()
                var members: [(String, Node)] = []
                var first = true
                while let key = try reader.nextKey(&first) {
                    let name = reader.string(key)
                    guard !members.contains(where: { $0.0 == name }) else {
                        throw ProgrammeDocument.invalid("member \"\(name)\" is given twice", at: pointer, name)
                    }
                    members.append((name, try read(&reader, at: pointer.appending(name))))
                }
                return .object(members)
            }
        } catch let error as JSONError {
            throw WireError(error)
        } catch let error as WireError {
            throw error
        } catch {
            throw WireError(code: .invalidJSON, message: "\(error)")
        }
    }

    func object(at pointer: JSONPointer) throws(WireError) -> Members {
        guard case .object(let members) = self else {
            throw ProgrammeDocument.invalid("must be an object", at: pointer)
        }
        return Members(members: members)
    }

    /// An object's members, read by name.
    struct Members {
        let members: [(String, Node)]

        func member(_ name: String) throws(WireError) -> Node? { members.first { $0.0 == name }?.1 }

        func string(_ name: String, at pointer: JSONPointer, required: Bool = false) throws(WireError) -> String? {
            switch try member(name) {
            case .string(let text): return text
            case .null?, nil:
                if required { throw ProgrammeDocument.invalid("\(name) is required", at: pointer, name) }
                return nil
            default: throw ProgrammeDocument.invalid("\(name) must be a string", at: pointer, name)
            }
        }

        func number(
            _ name: String, at pointer: JSONPointer, in range: ClosedRange<Double>
        ) throws(WireError)
            -> Double?
        {
            switch try member(name) {
            case .number(let value):
                guard range.contains(value) else {
                    throw ProgrammeDocument.invalid(
                        "\(name) must be within \(range.lowerBound) and \(range.upperBound)", at: pointer, name)
                }
                return value
            case .null?, nil: return nil
            default: throw ProgrammeDocument.invalid("\(name) must be a number", at: pointer, name)
            }
        }

        func integer(
            _ name: String, at pointer: JSONPointer, in range: ClosedRange<Int>, required: Bool = false
        ) throws(WireError) -> Int? {
            switch try member(name) {
            case .number(let value):
                guard value.rounded() == value, let whole = Int(exactly: value), range.contains(whole) else {
                    throw ProgrammeDocument.invalid(
                        "\(name) must be a whole number within \(range.lowerBound) and \(range.upperBound)",
                        at: pointer, name)
                }
                return whole
            case .null?, nil:
                if required { throw ProgrammeDocument.invalid("\(name) is required", at: pointer, name) }
                return nil
            default: throw ProgrammeDocument.invalid("\(name) must be a number", at: pointer, name)
            }
        }

        func date(_ name: String, at pointer: JSONPointer, required: Bool) throws(WireError) -> CivilDate? {
            guard let text = try string(name, at: pointer, required: required) else { return nil }
            guard let date = CivilDate(iso: text) else {
                throw ProgrammeDocument.invalid("\(name) must be a date, YYYY-MM-DD", at: pointer, name)
            }
            return date
        }

        func array(_ name: String, at pointer: JSONPointer) throws(WireError) -> [Node]? {
            switch try member(name) {
            case .array(let elements): return elements
            case .null?, nil: return nil
            default: throw ProgrammeDocument.invalid("\(name) must be an array", at: pointer, name)
            }
        }
    }
}
