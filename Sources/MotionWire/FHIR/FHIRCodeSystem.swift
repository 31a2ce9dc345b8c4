public import MotionCore

/// A FHIR R4 `CodeSystem` of this server (docs/fhir.md): the built-in exercises, the measures of the components, or
/// one tenant's custom exercises. ``FHIREncoder/encodeCodeSystem(_:into:)`` writes it.
public struct FHIRCodeSystem: Sendable, Hashable {
    /// One code, with its English display and its displays by language.
    public struct Concept: Sendable, Hashable {
        /// The code.
        public var code: String
        /// The English display.
        public var display: String
        /// What it means, nil for none.
        public var definition: String?
        /// Displays by language (BCP 47 tags, `en`, `es`), in order.
        public var designations: [(language: String, value: String)]
        /// Property values: (property code, value code), in order.
        public var properties: [(code: String, value: String)]

        /// Creates a concept.
        /// - Parameters:
        ///   - code: The code.
        ///   - display: The English display.
        ///   - definition: What it means.
        ///   - designations: Displays by language.
        ///   - properties: Property values (codes).
        public init(
            code: String, display: String, definition: String? = nil,
            designations: [(language: String, value: String)] = [], properties: [(code: String, value: String)] = []
        ) {
            self.code = code
            self.display = display
            self.definition = definition
            self.designations = designations
            self.properties = properties
        }

        /// Equal when every member is.
        public static func == (lhs: Concept, rhs: Concept) -> Bool {
            lhs.code == rhs.code && lhs.display == rhs.display && lhs.definition == rhs.definition
                && lhs.designations.elementsEqual(rhs.designations) { $0 == $1 }
                && lhs.properties.elementsEqual(rhs.properties) { $0 == $1 }
        }

        /// Hashes every member.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(code)
            hasher.combine(display)
            hasher.combine(definition)
            for designation in designations {
                hasher.combine(designation.language)
                hasher.combine(designation.value)
            }
            for property in properties {
                hasher.combine(property.code)
                hasher.combine(property.value)
            }
        }
    }

    /// A property the concepts may carry, its values codes.
    public struct Property: Sendable, Hashable {
        /// The property's code.
        public var code: String
        /// What it says.
        public var description: String

        /// Creates a property.
        /// - Parameters:
        ///   - code: The property's code.
        ///   - description: What it says.
        public init(code: String, description: String) {
            self.code = code
            self.description = description
        }
    }

    /// How much of the system the resource lists (FHIR's `CodeSystem.content`).
    public enum Content: String, Sendable, Hashable {
        /// Every code.
        case complete
        /// Some of the codes: the others exist but are not listed.
        case fragment
    }

    /// The resource id, the last segment of the path it is served at (`exercises`).
    public var id: String
    /// The canonical URI, the `system` of its codes.
    public var url: String
    /// The version: this server's.
    public var version: String
    /// A computer-friendly name (`MotionServerExercises`).
    public var name: String
    /// A title for people.
    public var title: String
    /// What it holds.
    public var description: String
    /// How much of the system is listed.
    public var content: Content
    /// The properties its concepts may carry.
    public var properties: [Property]
    /// The concepts, in order.
    public var concepts: [Concept]

    /// Creates a code system.
    /// - Parameters:
    ///   - id: The resource id.
    ///   - url: The canonical URI.
    ///   - version: The version.
    ///   - name: A computer-friendly name.
    ///   - title: A title for people.
    ///   - description: What it holds.
    ///   - content: How much of the system is listed.
    ///   - properties: The properties of its concepts.
    ///   - concepts: The concepts.
    public init(
        id: String, url: String, version: String, name: String, title: String, description: String,
        content: Content = .complete, properties: [Property] = [], concepts: [Concept]
    ) {
        self.id = id
        self.url = url
        self.version = version
        self.name = name
        self.title = title
        self.description = description
        self.content = content
        self.properties = properties
        self.concepts = concepts
    }
}

extension FHIRCodeSystem {
    /// The properties of an exercise concept: `unit` (the UCUM code of its values) and `kind` (`rep` or `hold`).
    static let exerciseProperties = [
        Property(code: "unit", description: "The UCUM unit of the exercise's values: deg, or 1 for segment lengths"),
        Property(code: "kind", description: "rep: repetitions out and back; hold: a position held for a time"),
    ]

    /// The built-in exercises, ``FHIRSystem/exercises``: each with its names in the catalog's languages
    /// (`Exercise.localizedNames`: English and Spanish), its unit and kind.
    /// - Parameters:
    ///   - catalog: The built-in exercises, in order.
    ///   - version: The server's version.
    /// - Returns: The code system served at `GET /fhir/CodeSystem/exercises`.
    public static func exercises(_ catalog: [Exercise] = Exercise.catalog, version: String) -> FHIRCodeSystem {
        FHIRCodeSystem(
            id: "exercises", url: FHIRSystem.exercises, version: version, name: "MotionServerExercises",
            title: "motion-server built-in exercises",
            description: "The exercises every motion-server measures, coded by their catalog id (docs/catalog.md).",
            properties: exerciseProperties,
            concepts: catalog.map { exercise in
                concept(of: exercise, designations: exercise.localizedNames.map { ($0.language, $0.name) })
            })
    }

    /// One tenant's current custom exercises, in its own system: each with the name the tenant gave it.
    ///
    /// Deleted exercises are not listed (`content` is `fragment`): their codes stay valid in the Observations of the
    /// sessions that used them.
    /// - Parameters:
    ///   - exercises: The tenant's current custom exercises.
    ///   - url: The tenant's system.
    ///   - version: The server's version.
    /// - Returns: The code system served at `GET /fhir/CodeSystem/custom-exercises`.
    public static func customExercises(_ exercises: [Exercise], url: String, version: String) -> FHIRCodeSystem {
        FHIRCodeSystem(
            id: "custom-exercises", url: url, version: version, name: "MotionServerCustomExercises",
            title: "motion-server custom exercises of one tenant",
            description: "The exercises this tenant defined, coded by their id; deleted ones are not listed.",
            content: .fragment, properties: exerciseProperties,
            concepts: exercises.map { concept(of: $0, designations: []) })
    }

    /// The measures of an Observation's components, ``FHIRSystem/measures``, and the coded sides.
    /// - Parameter version: The server's version.
    /// - Returns: The code system served at `GET /fhir/CodeSystem/measures`.
    public static func measures(version: String) -> FHIRCodeSystem {
        let measures = FHIRMeasure.allCases.map { measure in
            Concept(
                code: measure.rawValue, display: measure.display, definition: measure.definition,
                designations: [("en", measure.display), ("es", measure.spanish)])
        }
        let sides = BodySide.allCases.map { side in
            Concept(
                code: side.rawValue, display: side.fhirDisplay,
                definition: "A value of side: the patient's own \(side.rawValue) side.",
                designations: [("en", side.fhirDisplay), ("es", side.fhirSpanish)])
        }
        return FHIRCodeSystem(
            id: "measures", url: FHIRSystem.measures, version: version, name: "MotionServerMeasures",
            title: "motion-server session measures",
            description: "What the components of a motion-server session's Observation measure, and the coded "
                + "values of its side.",
            concepts: measures + sides)
    }

    private static func concept(of exercise: Exercise, designations: [(language: String, value: String)]) -> Concept {
        Concept(
            code: exercise.id, display: exercise.name, designations: designations,
            properties: [("unit", exercise.measurement.unit.ucum), ("kind", exercise.kind.rawValue)])
    }
}

extension Measurement.Unit {
    /// The UCUM code of the unit: `deg`, or `1` for segment lengths (a ratio of two lengths).
    public var ucum: String { self == .degrees ? "deg" : "1" }
}
