/// A FHIR R4 `Bundle` of session Observations (docs/fhir.md): what `GET /v1/sessions/{id}/fhir` and
/// `GET /v1/subjects/{subject}/fhir` answer, written by ``FHIREncoder/encodeBundle(_:into:)``.
public struct FHIRBundle: Sendable, Hashable {
    /// The bundle's `type`: what a receiver does with it.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// A set of resources to keep or show: each entry an Observation with the session id as its `id`.
        case collection
        /// A transaction a FHIR server carries out at once: each entry a `POST Observation` that creates the
        /// Observation unless one with its identifier and status exists (`ifNoneExist`).
        case transaction
    }

    /// A link of the bundle: `self`, or `next` for the following page.
    public struct Link: Sendable, Hashable {
        /// The relation, `self` or `next`.
        public var relation: String
        /// The URL, relative to the server: `/v1/subjects/patient-17/fhir?cursor=…`.
        public var url: String

        /// Creates a link.
        /// - Parameters:
        ///   - relation: The relation.
        ///   - url: The URL.
        public init(relation: String, url: String) {
            self.relation = relation
            self.url = url
        }
    }

    /// The bundle's type.
    public var kind: Kind
    /// When it was assembled, Unix seconds (server clock).
    public var timestamp: Double
    /// Its links, in order.
    public var links: [Link]
    /// The Observations, one per session, in order.
    public var observations: [FHIRObservation]
    /// The system of the subjects' identifiers (`--fhir-subject-system`, the tenant's).
    public var subjectSystem: String
    /// What the Observations' `device` names: this server and its version, `motion-server 0.5.0`.
    public var device: String

    /// Creates a bundle.
    /// - Parameters:
    ///   - kind: The bundle's type.
    ///   - timestamp: When it was assembled, Unix seconds.
    ///   - links: Its links.
    ///   - observations: The Observations.
    ///   - subjectSystem: The system of the subjects' identifiers.
    ///   - device: This server and its version.
    public init(
        kind: Kind, timestamp: Double, links: [Link] = [], observations: [FHIRObservation], subjectSystem: String,
        device: String
    ) {
        self.kind = kind
        self.timestamp = timestamp
        self.links = links
        self.observations = observations
        self.subjectSystem = subjectSystem
        self.device = device
    }
}
