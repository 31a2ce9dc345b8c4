/// Something that makes an exercise definition unusable, at the field that causes it.
public struct ExerciseProblem: Sendable, Hashable, CustomStringConvertible {
    /// A JSON Pointer (RFC 6901) to the field in the definition's JSON form (docs/protocol.md §5.1), e.g.
    /// `/thresholds/enter` or `/rules/1/limit`.
    public var pointer: String
    /// What is wrong, in English.
    public var message: String

    /// Creates a problem.
    /// - Parameters:
    ///   - pointer: The field.
    ///   - message: What is wrong.
    public init(pointer: String, message: String) {
        self.pointer = pointer
        self.message = message
    }

    /// `"/thresholds/enter: …"`.
    public var description: String { "\(pointer): \(message)" }
}

extension Exercise {
    /// The longest ``id``, in characters.
    public static let maxIDLength = 64
    /// The longest ``name``, in Unicode scalars.
    public static let maxNameLength = 100
    /// What a ``name`` may hold: 1…``maxNameLength`` Unicode scalars, none of those ``TextRule`` refuses (the
    /// rule a session's subject keeps too).
    public static let nameRule = TextRule(maxBytes: 4 * maxNameLength, maxScalars: maxNameLength, allowsEmpty: false)
    /// The most form rules an exercise may have.
    public static let maxRules = 8

    /// Whether `id` is a usable exercise id: 1…64 ASCII letters, digits, `-` or `_`.
    /// - Parameter id: The candidate.
    public static func isValidID(_ id: String) -> Bool {
        let bytes = id.utf8
        return !bytes.isEmpty && bytes.count <= maxIDLength
            && bytes.allSatisfy { byte in
                switch byte {
                case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                    UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
                    true
                default: false
                }
            }
    }

    /// Problems that make the entry unusable, in the order of its JSON form; empty when it is sound.
    ///
    /// Checks the id and name; every number finite; the thresholds and target inside what the measurement can
    /// read (``Measurement/range``) and in hysteresis order for the direction (`rest ≤ exit < enter` rising,
    /// `rest ≥ exit > enter` falling) with the target beyond `rest`; durations, hold time and smoothing positive;
    /// measurements whose segments have two distinct ends; rule limits the rule's measurement can reach. Entries
    /// decoded from JSON are checked before use; ``MotionEngine`` refuses invalid ones.
    public var problems: [ExerciseProblem] {
        var problems: [ExerciseProblem] = []
        func fail(_ pointer: String, _ message: String) {
            problems.append(ExerciseProblem(pointer: pointer, message: message))
        }
        if !Self.isValidID(id) {
            fail("/id", "id must be 1…\(Self.maxIDLength) letters, digits, '-' or '_'")
        }
        if let violation = Self.nameRule.violation(in: name) {
            fail("/name", Self.nameRule.message(for: violation, field: "name"))
        }
        if let reason = measurement.degeneracy { fail("/measurement", reason) }
        let range = measurement.range
        let unit = measurement.unit == .degrees ? "°" : " segment lengths"
        let readable = "\(range.lowerBound.formatted)…\(range.upperBound.formatted)\(unit)"
        let t = thresholds
        let levels: [(name: String, value: Double)] = [("rest", t.rest), ("enter", t.enter), ("exit", t.exit)]
        for level in levels where !(level.value.isFinite && range.contains(level.value)) {
            fail("/thresholds/\(level.name)", "thresholds.\(level.name) must be within \(readable)")
        }
        if levels.allSatisfy({ $0.value.isFinite }) {
            let s = direction.sign
            if !(s * t.rest <= s * t.exit) {
                fail(
                    "/thresholds/exit",
                    "thresholds.exit must be \(direction == .rising ? "≥" : "≤") rest for a \(direction.rawValue) exercise"
                )
            }
            if !(s * t.exit < s * t.enter) {
                fail(
                    "/thresholds/enter",
                    "thresholds.enter must be \(direction == .rising ? "above" : "below") exit for a \(direction.rawValue) exercise"
                )
            }
        }
        if !(t.minAmplitude.isFinite && t.minAmplitude >= 0 && t.minAmplitude <= range.upperBound - range.lowerBound) {
            fail("/thresholds/minAmplitude", "thresholds.minAmplitude must be ≥ 0 and within the measurement's span")
        }
        if !(t.minDuration.isFinite && t.minDuration >= 0) {
            fail("/thresholds/minDuration", "thresholds.minDuration must be ≥ 0")
        }
        if !(t.maxDuration.isFinite && t.maxDuration > t.minDuration && t.maxDuration <= 600) {
            fail("/thresholds/maxDuration", "thresholds.maxDuration must be above minDuration and ≤ 600 s")
        }
        if !t.holdSeconds.isFinite || (kind == .hold && !(t.holdSeconds > 0 && t.holdSeconds <= 3600)) {
            fail("/thresholds/holdSeconds", "thresholds.holdSeconds must be > 0 and ≤ 3600")
        }
        if !(t.holdTolerance.isFinite && t.holdTolerance >= 0 && t.holdTolerance <= range.upperBound - range.lowerBound)
        {
            fail("/thresholds/holdTolerance", "thresholds.holdTolerance must be ≥ 0 and within the measurement's span")
        }
        if !(target.isFinite && range.contains(target)) {
            fail("/target", "target must be within \(readable)")
        } else if t.rest.isFinite, !(direction.sign * (target - t.rest) > 0) {
            fail("/target", "target must be \(direction == .rising ? "above" : "below") thresholds.rest")
        }
        if rules.count > Self.maxRules { fail("/rules", "at most \(Self.maxRules) form rules") }
        for (index, rule) in rules.enumerated() {
            let pointer = "/rules/\(index)"
            if let reason = rule.measurement.degeneracy { fail("\(pointer)/measurement", reason) }
            let ruleRange = rule.measurement.range
            let reach = rule.relativeToStart ? ruleRange.upperBound - ruleRange.lowerBound : ruleRange.upperBound
            if !(rule.limit.isFinite && rule.limit > 0 && rule.limit < reach) {
                fail(
                    "\(pointer)/limit", "limit must be > 0 and below \(reach.formatted), what the measurement can read")
            }
        }
        let smoothingFields: [(String, Double, Bool)] = [
            ("minCutoff", smoothing.minCutoff, smoothing.minCutoff > 0),
            ("beta", smoothing.beta, smoothing.beta >= 0),
            ("derivativeCutoff", smoothing.derivativeCutoff, smoothing.derivativeCutoff > 0),
        ]
        for (name, value, valid) in smoothingFields where !(value.isFinite && valid && value <= 1000) {
            fail("/smoothing/\(name)", "smoothing.\(name) must be \(name == "beta" ? "≥ 0" : "> 0") and ≤ 1000")
        }
        if version < 1 { fail("/version", "version must be ≥ 1") }
        return problems
    }

    /// Messages of ``problems``, empty when the entry is sound.
    public var validationErrors: [String] { problems.map(\.description) }
}

extension Measurement {
    /// Why the measurement can never be read (a segment from a joint to itself, the same joint twice), or nil.
    var degeneracy: String? {
        func flat(_ segment: Segment) -> Bool { segment.from == segment.to }
        switch self {
        case .flexion(let proximal, let joint, let distal):
            return proximal == joint || distal == joint ? "flexion needs three different joints" : nil
        case .angleBetween(let a, let b), .tiltAgainst(let a, reference: let b),
            .inclinationBeyond(let a, reference: let b), .lean(let a, reference: let b):
            return flat(a) || flat(b) ? "a segment needs two different joints" : nil
        case .inclination(let segment), .tilt(let segment):
            return flat(segment) ? "a segment needs two different joints" : nil
        case .distance(let a, let b, let per):
            return a == b || flat(per) ? "a distance needs two different joints and a segment of two" : nil
        case .height(let a, let b, let per):
            return a == b || flat(per) ? "a height needs two different joints and a segment of two" : nil
        case .rise(_, let per):
            return flat(per) ? "a segment needs two different joints" : nil
        }
    }
}

extension Double {
    /// `180` for whole numbers, `0.5` otherwise: for messages.
    fileprivate var formatted: String { self == rounded() && abs(self) < 1e15 ? String(Int(self)) : String(self) }
}
