public import MotionCore

/// The `start` message (docs/protocol.md §3), also the body of `POST /v1/sessions` and the options of
/// `POST /v1/analyze` (§5).
///
/// The decoder checks shapes and ranges; whether `exercise` exists and whether a one-sided exercise got its
/// `side` are the server's checks (`unknownExercise`, `missingSide`).
public struct StartRequest: Sendable, Hashable {
    /// Overrides of the exercise's defaults: `options` in `start`, the prescription of docs/protocol.md §5.1.
    ///
    /// `target`, `rest`, `enter` and `exit` are in the exercise's unit (degrees, or segment lengths for a
    /// distance), so the decoder only checks that they are finite and within ``thresholdBound``; whether the
    /// exercise can read them and whether the thresholds keep their order for its direction is the engine's check
    /// (`SessionError.invalidConfiguration`, answered as `invalidMessage`).
    public struct Options: Sendable, Hashable {
        /// The largest magnitude the decoder takes for `target`, `rest`, `enter` and `exit`: 360.
        public static let thresholdBound = 360.0
        /// The largest rep goal, `reps`: 1,000.
        public static let maxReps = 1_000
        /// The most sets, `sets`: 100.
        public static let maxSets = 100

        /// What is prescribed — `target`, `rest`, `enter`, `exit` (in the exercise's unit), `holdSeconds` (`> 0`,
        /// `≤ 3600`), `reps` (`1…1000` clean reps per set) and `sets` (`1…100`) — as the engine takes it
        /// (`SessionConfiguration.prescription`).
        public var prescription: Prescription
        /// How many clean reps the baseline averages, `1…100`.
        public var baselineReps: Int?
        /// When snapshots are sent. Default ``SnapshotPolicy/every``.
        public var snapshots: SnapshotPolicy

        /// Creates options; every field defaults to "use the exercise's default".
        /// - Parameters:
        ///   - prescription: The target, thresholds, hold time and goals.
        ///   - baselineReps: Reps in the baseline.
        ///   - snapshots: When snapshots are sent.
        public init(
            prescription: Prescription = Prescription(), baselineReps: Int? = nil, snapshots: SnapshotPolicy = .every
        ) {
            self.prescription = prescription
            self.baselineReps = baselineReps
            self.snapshots = snapshots
        }
    }

    /// The longest `subject`, in UTF-8 bytes: 256 (docs/security.md).
    ///
    /// Never counted in `Character`s: one grapheme cluster (`"a"` and half a million combining accents) can be a
    /// megabyte.
    public static let maxSubjectBytes = 256

    /// The longest `subject`, in Unicode scalars (the characters of docs/protocol.md §3 and JSON Schema's `maxLength`):
    /// 128. A subject keeps both bounds: 128 ASCII characters, 128 two-byte ones, but only 64 emoji.
    public static let maxSubjectScalars = 128

    /// What a `subject` may hold: at most ``maxSubjectBytes`` and ``maxSubjectScalars``, none of the control,
    /// bidirectional formatting or separator characters ``TextRule`` refuses; empty is allowed. Every path that takes
    /// a subject (`start`, `POST /v1/sessions`, `POST /v1/analyze`, `GET /v1/subjects/{subject}/progress`) checks it.
    public static let subjectRule = TextRule(maxBytes: maxSubjectBytes, maxScalars: maxSubjectScalars)

    /// Whether `scalar` may appear in a `subject`: ``TextRule/isAllowed(_:)``.
    /// - Parameter scalar: One Unicode scalar of the subject.
    /// - Returns: False for a refused scalar.
    public static func isAllowedInSubject(_ scalar: Unicode.Scalar) -> Bool { TextRule.isAllowed(scalar) }

    /// The exercise id, e.g. `elbowFlexion`. Required.
    public var exercise: String
    /// The working side; required by the server for one-sided exercises.
    public var side: BodySide?
    /// An opaque client id for querying history, within ``subjectRule`` (the decoder refuses any other).
    public var subject: String?
    /// How poses are laid out. Default ``InputFormat/joints``.
    public var format: InputFormat
    /// Whether left and right are swapped after conversion (a front camera's selfie view).
    public var mirrored: Bool
    /// Joints whose confidence is below this (`0…1`) are unseen; nil for the format's default.
    public var minConfidence: Double?
    /// `coco` only: whether keypoints are normalised 0…1 rather than pixels.
    public var normalized: Bool
    /// Overrides of the exercise's defaults.
    public var options: Options
    /// The programme item to start instead of an exercise (docs/protocol.md §5.3): the server applies its exercise,
    /// side and prescription, and records the programme version it used in ``ProgrammeLink/version``.
    public var programme: ProgrammeLink?
    /// Whether the session is a demonstration (a simulated person): kept with the session, left out of adherence and
    /// progress unless asked for.
    public var demo: Bool

    /// Creates a request.
    /// - Parameters:
    ///   - exercise: The exercise id.
    ///   - side: The working side.
    ///   - subject: An opaque client id.
    ///   - format: How poses are laid out.
    ///   - mirrored: Whether left and right are swapped.
    ///   - minConfidence: The confidence below which joints are unseen.
    ///   - normalized: `coco` only: whether keypoints are normalised.
    ///   - options: Overrides of the exercise's defaults.
    ///   - programme: The programme item to start instead of an exercise.
    ///   - demo: Whether the session is a demonstration.
    public init(
        exercise: String, side: BodySide? = nil, subject: String? = nil, format: InputFormat = .joints,
        mirrored: Bool = false, minConfidence: Double? = nil, normalized: Bool = false, options: Options = Options(),
        programme: ProgrammeLink? = nil, demo: Bool = false
    ) {
        self.programme = programme
        self.demo = demo
        self.exercise = exercise
        self.side = side
        self.subject = subject
        self.format = format
        self.mirrored = mirrored
        self.minConfidence = minConfidence
        self.normalized = normalized
        self.options = options
    }
}
