public import MotionCore

/// The body of `POST /v1/exercises/preview`: a draft exercise definition tried on recorded frames before it is
/// saved, so an editor can show what the engine would count with it.
///
/// ```json
/// {"exercise":{…definition, as for POST /v1/exercises…},"side":"right","frames":[…poses in the joints format…]}
/// ```
///
/// The definition is checked exactly as `POST /v1/exercises` checks it; its refusals point into the body
/// (`/exercise/thresholds/enter`). The frames are read by the pose decoder from the same body.
public struct ExercisePreviewRequest: Sendable {
    /// The draft exercise.
    public var exercise: Exercise
    /// The side to measure, when the exercise needs one (`null` or absent: none).
    public var side: BodySide?

    /// The members of the body; each may appear once.
    private enum Member: Int, CaseIterable {
        case exercise, side, frames

        var name: StaticString {
            switch self {
            case .exercise: "exercise"
            case .side: "side"
            case .frames: "frames"
            }
        }
    }

    /// Decodes the body.
    /// - Parameters:
    ///   - body: The UTF-8 JSON object.
    ///   - limits: The body's size and depth limits.
    ///   - definitionLimits: The definition's own limits, as for `POST /v1/exercises`.
    /// - Throws: `WireError`: `invalidJSON`, `messageTooBig`, `invalidMessage` (no `exercise`, a bad `side`, an
    ///   unknown or repeated member) or `invalidExercise` with its pointer under `/exercise`.
    public init(decoding body: [UInt8], limits: WireLimits, definitionLimits: WireLimits) throws(WireError) {
        let (range, side) = try JSONReader.decode(body, limits: limits, Self.read)
        guard let range else { throw WireError.invalidMessage("a preview needs exercise: the draft definition") }
        do {
            exercise = try ExerciseDefinition.decode(Array(body[range]), limits: definitionLimits)
        } catch {
            throw WireError(
                code: error.code, message: error.message, pointer: error.pointer.map { "/exercise" + $0 } ?? "/exercise"
            )
        }
        self.side = side
    }

    /// Reads the object: where the definition's bytes are, and the side; `frames` is left to the pose decoder.
    private static func read(_ reader: inout JSONReader) throws -> (definition: Range<Int>?, side: BodySide?) {
        var definition: Range<Int>?
        var side: BodySide?
        var seen = KnownMembers()
        guard try reader.peekKind() == .object else {
            throw WireError.invalidMessage("a preview must be a JSON object")
        }
        try reader.beginObject()
        var first = true
        while let key = try reader.nextKey(&first) {
            guard let member = Member.allCases.first(where: { reader.key(key, is: $0.name) }) else {
                throw WireError.invalidMessage(
                    "unknown member \"\(reader.string(key))\": a preview has exercise, side and frames")
            }
            guard seen.insert(member.rawValue) else {
                throw WireError.duplicateMember("\(member.name)", code: .invalidMessage)
            }
            switch member {
            case .exercise:
                guard try reader.peekKind() == .object else {
                    throw WireError(
                        code: .invalidExercise, message: "an exercise definition must be a JSON object",
                        pointer: "/exercise")
                }
                let start = reader.offset
                try reader.skipValue()
                definition = start..<reader.offset
            case .side:
                if try reader.readNullIfPresent() { continue }
                guard try reader.peekKind() == .string, let value = BodySide(rawValue: try reader.readString()) else {
                    throw WireError.invalidMessage("side must be \"left\" or \"right\"")
                }
                side = value
            case .frames: try reader.skipValue()
            }
        }
        return (definition, side)
    }
}
