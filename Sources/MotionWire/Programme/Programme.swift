public import MotionCore
public import PortableBasics

/// A programme (docs/protocol.md §5.3): what a clinician prescribes to one subject for a period, an ordered list of
/// items, each an exercise at a pinned version with a side, a prescription and how often a week.
///
/// The server makes `id`, `version` and the times, and pins the items' `exerciseVersion` (a client may name one); a
/// client's body gives the rest
/// (``ProgrammeDocument/decode(_:limits:)``).
public struct Programme: Sendable, Hashable {
    /// One exercise of the programme.
    public struct Item: Sendable, Hashable {
        /// The item's id, stable across versions (`a1`): 1…32 of `A-Z a-z 0-9 _ -`.
        public var item: String
        /// The exercise id, built-in or the tenant's own.
        public var exercise: String
        /// The exercise's version pinned when the programme version was saved: the one the client named, else the
        /// current one (0 in a client's body that names none).
        public var exerciseVersion: Int
        /// The working side; required for one-sided exercises.
        public var side: BodySide?
        /// Sessions a week, 1…21.
        public var perWeek: Int
        /// What the engine applies: `target`, `holdSeconds`, `reps` and `sets` (the others stay nil).
        public var prescription: Prescription
        /// Seconds of rest between sets, 0…3,600 (for the patient; the engine does not time it).
        public var restSeconds: Double?
        /// What the patient reads, by language (`en`, `es`).
        public var instructions: [String: String]

        /// Creates an item.
        /// - Parameters:
        ///   - item: The item's id.
        ///   - exercise: The exercise id.
        ///   - exerciseVersion: The pinned version.
        ///   - side: The working side.
        ///   - perWeek: Sessions a week.
        ///   - prescription: Target, hold time and goals.
        ///   - restSeconds: Rest between sets.
        ///   - instructions: Texts by language.
        public init(
            item: String, exercise: String, exerciseVersion: Int = 0, side: BodySide? = nil, perWeek: Int = 1,
            prescription: Prescription = Prescription(), restSeconds: Double? = nil,
            instructions: [String: String] = [:]
        ) {
            self.item = item
            self.exercise = exercise
            self.exerciseVersion = exerciseVersion
            self.side = side
            self.perWeek = perWeek
            self.prescription = prescription
            self.restSeconds = restSeconds
            self.instructions = instructions
        }
    }

    /// The programme's id (server-made).
    public var id: String
    /// The version (server-made): 1, then one more with every `PUT`.
    public var version: Int
    /// The subject it is prescribed to.
    public var subject: String
    /// A title for people.
    public var title: String
    /// The first day.
    public var startsOn: CivilDate
    /// The last day, or nil for an open end.
    public var endsOn: CivilDate?
    /// The items, in order.
    public var items: [Item]

    /// Creates a programme.
    /// - Parameters:
    ///   - id: The id.
    ///   - version: The version.
    ///   - subject: The subject.
    ///   - title: The title.
    ///   - startsOn: The first day.
    ///   - endsOn: The last day.
    ///   - items: The items.
    public init(
        id: String = "", version: Int = 0, subject: String, title: String = "", startsOn: CivilDate,
        endsOn: CivilDate? = nil, items: [Item]
    ) {
        self.id = id
        self.version = version
        self.subject = subject
        self.title = title
        self.startsOn = startsOn
        self.endsOn = endsOn
        self.items = items
    }

    /// The item with id `item`, if any.
    /// - Parameter item: The item's id.
    public func item(_ item: String) -> Item? { items.first { $0.item == item } }
}

/// Bounds of a programme body (docs/protocol.md §5.3), each refused with `422 invalidProgramme` at its pointer.
public struct ProgrammeLimits: Sendable, Hashable {
    /// The largest body, bytes (`413 messageTooBig` beyond): 64 KiB.
    public var maxBytes: Int
    /// The most items: 50.
    public var maxItems: Int
    /// The title's bounds: 200 bytes, 100 characters.
    public var title: TextRule
    /// Each instruction text's bounds: 4,000 bytes, 2,000 characters.
    public var instructions: TextRule

    /// The programme versions one tenant may store, of every programme, ended ones included: 10,000
    /// (`409 tooManyVersions` beyond).
    public var maxVersionsPerTenant: Int

    /// Creates limits; the defaults are documented on each field.
    public init(
        maxBytes: Int = 65_536, maxItems: Int = 50, title: TextRule = TextRule(maxBytes: 200, maxScalars: 100),
        instructions: TextRule = TextRule(maxBytes: 4_000, maxScalars: 2_000), maxVersionsPerTenant: Int = 10_000
    ) {
        self.maxVersionsPerTenant = maxVersionsPerTenant
        self.maxBytes = maxBytes
        self.maxItems = maxItems
        self.title = title
        self.instructions = instructions
    }

    /// The most sessions a week an item may prescribe: 21.
    public static let maxPerWeek = 21
    /// The longest item id, bytes: 32.
    public static let maxItemBytes = 32
    /// The longest exercise id, bytes: 64.
    public static let maxExerciseBytes = 64
    /// The languages of `instructions`.
    public static let languages = ["en", "es"]
}
