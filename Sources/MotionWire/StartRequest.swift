public import MotionCore

/// The `start` message (PROTOCOL.md §3), also the body of `POST /v1/sessions` and the options of
/// `POST /v1/analyze` (§5).
///
/// The decoder checks shapes and ranges; whether `exercise` exists and whether a one-sided exercise got its
/// `side` are the server's checks (`unknownExercise`, `missingSide`).
public struct StartRequest: Sendable, Hashable {
    /// Overrides of the exercise's defaults: `options` in `start`, the prescription of PROTOCOL.md §5.1.
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

    /// The longest `subject`, in Unicode scalars (the characters of PROTOCOL.md and JSON Schema's `maxLength`):
    /// 128, so at most 512 UTF-8 bytes.
    ///
    /// Never counted in `Character`s: one grapheme cluster (`"a"` and half a million combining accents) can be a
    /// megabyte.
    public static let maxSubjectScalars = 128

    /// Whether `scalar` may appear in a `subject`.
    ///
    /// A subject is stored, listed, logged and sent back as a query value, so it may not hold what would
    /// disguise it or break a line: C0 controls U+0000–U+001F, DEL U+007F, C1 controls U+0080–U+009F, and the
    /// bidirectional controls (Unicode's `Bidi_Control`: the Arabic letter mark U+061C, LRM and RLM
    /// U+200E–U+200F, the embeddings and overrides U+202A–U+202E, the isolates U+2066–U+2069) together with
    /// the line and paragraph separators U+2028–U+2029. Everything else is allowed, combining marks and emoji
    /// included.
    /// - Parameter scalar: One Unicode scalar of the subject.
    /// - Returns: False for a refused scalar.
    public static func isAllowedInSubject(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F, 0x061C, 0x200E...0x200F, 0x2028...0x202E, 0x2066...0x2069: false
        default: true
        }
    }

    /// The exercise id, e.g. `elbowFlexion`. Required.
    public var exercise: String
    /// The working side; required by the server for one-sided exercises.
    public var side: BodySide?
    /// An opaque client id of at most ``maxSubjectScalars`` Unicode scalars, for querying history; the decoder refuses
    /// the characters ``isAllowedInSubject(_:)`` rejects.
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
    public init(
        exercise: String, side: BodySide? = nil, subject: String? = nil, format: InputFormat = .joints,
        mirrored: Bool = false, minConfidence: Double? = nil, normalized: Bool = false, options: Options = Options()
    ) {
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
