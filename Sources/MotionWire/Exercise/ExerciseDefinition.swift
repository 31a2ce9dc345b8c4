public import MotionCore

/// The JSON form of an exercise definition (docs/protocol.md §5.1, `docs/exercises.md`): what `POST /v1/exercises` and
/// `PUT /v1/exercises/{id}` take, and — with ``WireEncoder/encodeExercise(_:into:)`` — what `GET` shows.
///
/// ```swift
/// let exercise = try ExerciseDefinition.decode(Array(#"""
///     {"id":"kneeBend","name":"Knee bend","view":"sagittal","kind":"rep",
///      "measurement":{"type":"flexion","joints":["hip","knee","ankle"]},
///      "thresholds":{"rest":20,"enter":50,"exit":30},"target":90}
///     """#.utf8))
/// ```
///
/// Decoding is strict, because a typo in a clinical definition must not pass silently: a member this form does
/// not have is refused (in every object), a known member given twice is refused, and `null` is taken only where
/// the form allows it (`posture`). Required: `id` (unless the path gives it), `name`, `view`, `kind`,
/// `measurement`, `thresholds.rest`, `thresholds.enter`, `thresholds.exit` and `target`; every rule's `fault`,
/// `measurement` and `limit`. The rest defaults (``Defaults``). `unit`, `builtin`, `version`, `names` and the v1 catalog
/// members (`joints`, `faults`, the top-level `holdSeconds`) are read-only: skipped on input, so a definition read
/// with `GET` can be sent back as it is. A decoded definition is then checked with ``Exercise/problems``.
///
/// Every error is a ``WireError``: `invalidJSON` (with the byte offset) for text that is not one JSON value within
/// the nesting limit, wherever in the document it is; `messageTooBig` beyond the size limit; otherwise
/// `invalidExercise` with the JSON Pointer of the first bad field in ``WireError/pointer`` (`""` when the
/// document is not an object).
public enum ExerciseDefinition {
    /// The limits a definition is decoded with unless a caller chooses others: 16 KiB (the largest catalog entry
    /// with eight rules is under 2 KiB) and a nesting depth of 8 (a rule's segment given as two joints is at 6).
    public static let defaultLimits = WireLimits(maxMessageBytes: 16 << 10, maxDepth: 8)

    /// The values of the members a definition may leave out.
    public enum Defaults {
        /// `sidedness`: one side at a time.
        public static let sidedness = Exercise.Sidedness.oneSided
        /// `direction`: a rep goes up from rest.
        public static let direction = Exercise.Direction.rising
        /// `thresholds.minAmplitude`: 0, so the hysteresis thresholds alone decide what counts (a rep always moves
        /// from `exit` or beyond to `enter`); set it to refuse reps that barely cross `enter`.
        public static let minAmplitude = 0.0
        /// `thresholds.minDuration`, seconds.
        public static let minDuration = 0.5
        /// `thresholds.maxDuration`, seconds.
        public static let maxDuration = 20.0
        /// `thresholds.holdSeconds`, seconds.
        public static let holdSeconds = 5.0

        /// `thresholds.holdTolerance`, in the measurement's unit: 5° for angles; 0.1 segment lengths for
        /// distances (5 would be half of everything a distance can read).
        /// - Parameter unit: The measurement's unit.
        public static func holdTolerance(for unit: Measurement.Unit) -> Double {
            unit == .degrees ? 5 : 0.1
        }

        /// `smoothing`, member by member, for a measurement in `unit`: ``Smoothing/init(minCutoff:beta:derivativeCutoff:)``'s
        /// defaults for angles; for distances the same cut-offs with `beta` 2.0.
        ///
        /// The One Euro filter raises its cut-off by `beta` × the value's speed. A limb sweeping 90° moves its end by
        /// about one segment length, so a distance in segment lengths changes about a hundred times slower than an
        /// angle in degrees: the angle's 0.02 would leave the cut-off at its resting value during a rep and flatten
        /// the peaks, where 2.0 follows a distance as closely as 0.02 follows an angle.
        /// - Parameter unit: The measurement's unit.
        public static func smoothing(for unit: Measurement.Unit) -> Smoothing {
            unit == .degrees ? Smoothing() : Smoothing(beta: 2.0)
        }
    }

    /// Decodes and checks an exercise definition.
    /// - Parameters:
    ///   - bytes: The UTF-8 JSON object.
    ///   - limits: Size and depth limits (default ``defaultLimits``).
    ///   - id: The id the path gives (`PUT /v1/exercises/{id}`): the definition's `id` may then be left out, and
    ///     must equal it otherwise (else `invalidExercise` at `/id`). Nil: `id` is required.
    /// - Returns: The exercise, at version 1 and not built in (the server sets both).
    /// - Throws: `WireError`: `invalidJSON`, `messageTooBig` or `invalidExercise` with its pointer.
    public static func decode(
        _ bytes: [UInt8], limits: WireLimits = defaultLimits, id: String? = nil
    ) throws(WireError) -> Exercise {
        let outcome = bytes.withUnsafeBytes { raw in
            Result { () throws(WireError) -> Exercise in try decode(raw, limits: limits, id: id) }
        }
        return try outcome.get()
    }

    /// Decodes and checks an exercise definition from raw bytes, as ``decode(_:limits:id:)-([UInt8],_,_)``.
    /// - Parameters:
    ///   - bytes: The UTF-8 JSON object.
    ///   - limits: Size and depth limits.
    ///   - id: The id the path gives, or nil.
    /// - Returns: The exercise, at version 1 and not built in.
    /// - Throws: `WireError`: `invalidJSON`, `messageTooBig` or `invalidExercise` with its pointer.
    public static func decode(
        _ bytes: UnsafeRawBufferPointer, limits: WireLimits = defaultLimits, id: String? = nil
    ) throws(WireError) -> Exercise {
        guard bytes.count <= limits.maxMessageBytes else {
            throw WireError(
                code: .messageTooBig, message: "an exercise definition is at most \(limits.maxMessageBytes) bytes")
        }
        let exercise = try JSONReader.decode(bytes, limits: limits) { reader in try read(&reader, pathID: id) }
        if let problem = exercise.problems.first {
            throw WireError(code: .invalidExercise, message: problem.message, pointer: problem.pointer)
        }
        return exercise
    }
}
