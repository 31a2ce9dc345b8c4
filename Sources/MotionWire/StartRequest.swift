public import MotionCore

/// The `start` message (PROTOCOL.md §3), also the body of `POST /v1/sessions` and the options of
/// `POST /v1/analyze` (§5).
///
/// The decoder checks shapes and ranges; whether `exercise` exists and whether a one-sided exercise got its
/// `side` are the server's checks (`unknownExercise`, `missingSide`).
public struct StartRequest: Sendable, Hashable {
    /// Overrides of the exercise's defaults: `options` in `start`.
    public struct Options: Sendable, Hashable {
        /// The target in degrees, `0…360`.
        public var target: Double?
        /// The hold time in seconds, `> 0` and `≤ 3600`.
        public var holdSeconds: Double?
        /// How many clean reps the baseline averages, `1…100`.
        public var baselineReps: Int?
        /// When snapshots are sent. Default ``SnapshotPolicy/every``.
        public var snapshots: SnapshotPolicy

        /// Creates options; every field defaults to "use the exercise's default".
        /// - Parameters:
        ///   - target: The target in degrees.
        ///   - holdSeconds: The hold time in seconds.
        ///   - baselineReps: Reps in the baseline.
        ///   - snapshots: When snapshots are sent.
        public init(
            target: Double? = nil, holdSeconds: Double? = nil, baselineReps: Int? = nil,
            snapshots: SnapshotPolicy = .every
        ) {
            self.target = target
            self.holdSeconds = holdSeconds
            self.baselineReps = baselineReps
            self.snapshots = snapshots
        }
    }

    /// The longest `subject`, in characters.
    public static let maxSubjectLength = 128

    /// The exercise id, e.g. `elbowFlexion`. Required.
    public var exercise: String
    /// The working side; required by the server for one-sided exercises.
    public var side: BodySide?
    /// An opaque client id of at most ``maxSubjectLength`` characters, for querying history.
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
