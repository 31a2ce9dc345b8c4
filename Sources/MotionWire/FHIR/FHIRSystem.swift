/// The URIs that name code systems and identifier systems in the FHIR export (docs/fhir.md).
///
/// This server's own systems are `urn:uuid:` URIs (RFC 9562), the form FHIR names for a system that has no web
/// address of its own: the same on every deployment, whatever host name serves them. They never change; a new
/// meaning gets a new URI. The systems of one tenant (its custom exercises, by default its subjects) are UUIDs of
/// version 5 made from the tenant's name in one of these namespaces, so they are stable too.
public enum FHIRSystem {
    /// The built-in exercises (`GET /fhir/CodeSystem/exercises`), and the namespace of each tenant's custom-exercise
    /// system.
    public static let exercises = "urn:uuid:8990a8d4-3a33-4760-b09a-0ffefa5a6261"
    /// What an Observation's components measure, and their coded values (`GET /fhir/CodeSystem/measures`).
    public static let measures = "urn:uuid:2f427c9a-b3d0-474b-a157-990eb9c6f0e0"
    /// Session ids (`Observation.identifier`), and the namespace of each entry's `fullUrl`.
    public static let sessions = "urn:uuid:717342d6-172c-4d1a-9d1d-0b4eb4b9f2b7"
    /// Programme ids: the identifier of the `CarePlan` an Observation of a programme item's session is `basedOn`.
    public static let programmes = "urn:uuid:ab3d5fd5-6c66-46e3-86b8-271cfa2e8040"
    /// The namespace of each tenant's default subject system (`--fhir-subject-system` not given).
    public static let subjects = "urn:uuid:233c06a0-8dbd-4f2d-bf44-2964a28724d7"

    /// UCUM, the units of every `valueQuantity`.
    public static let ucum = "http://unitsofmeasure.org"
    /// LOINC, for the measures that have a code there.
    public static let loinc = "http://loinc.org"
    /// HL7's observation categories (`exam`).
    public static let observationCategory = "http://terminology.hl7.org/CodeSystem/observation-category"
    /// HL7's reasons for a missing value (`dataAbsentReason`).
    public static let dataAbsentReason = "http://terminology.hl7.org/CodeSystem/data-absent-reason"
}
