import PortableBasics

/// Writes the FHIR R4 export (docs/fhir.md) as JSON into a caller's buffer: Bundles of session Observations and
/// this server's CodeSystems, with the project's JSON writer, like ``WireEncoder``.
///
/// ```swift
/// var body: [UInt8] = []
/// FHIREncoder.encodeBundle(bundle, into: &body)
/// return HTTPResponse(status: .ok, contentType: "application/fhir+json", bytes: body)
/// ```
///
/// Members follow the order of the FHIR specification's JSON form. Arrays that would be empty are left out, as FHIR
/// requires. Measured values are rounded to what they can carry: 0.1° for angles, 0.001 for segment lengths,
/// 0.01 s for times; counts are integers.
public enum FHIREncoder {
    /// Writes a Bundle:
    ///
    ///     {"resourceType":"Bundle","type":"collection","timestamp":"2026-11-29T14:05:00Z",
    ///      "link":[{"relation":"self","url":"/v1/sessions/01J…/fhir"}],
    ///      "entry":[{"fullUrl":"urn:uuid:…","resource":{"resourceType":"Observation",…}}]}
    ///
    /// A transaction's entries add `"request":{"method":"POST","url":"Observation","ifNoneExist":"…"}`.
    /// - Parameters:
    ///   - bundle: The bundle.
    ///   - buffer: The buffer to append to.
    /// - Complexity: O(n) in the Observations and their components.
    public static func encodeBundle(_ bundle: FHIRBundle, into buffer: inout [UInt8]) {
        buffer.appendLiteral(#"{"resourceType":"Bundle","type":"#)
        buffer.appendJSONString(bundle.kind.rawValue)
        buffer.appendLiteral(#","timestamp":"#)
        ISO8601Timestamp.append(bundle.timestamp, to: &buffer)
        if !bundle.links.isEmpty {
            buffer.appendLiteral(#","link":["#)
            for (index, link) in bundle.links.enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                buffer.appendLiteral(#"{"relation":"#)
                buffer.appendJSONString(link.relation)
                buffer.appendLiteral(#","url":"#)
                buffer.appendJSONString(link.url)
                buffer.append(UInt8(ascii: "}"))
            }
            buffer.append(UInt8(ascii: "]"))
        }
        if !bundle.observations.isEmpty {
            buffer.appendLiteral(#","entry":["#)
            for (index, observation) in bundle.observations.enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                encodeEntry(observation, of: bundle, into: &buffer)
            }
            buffer.append(UInt8(ascii: "]"))
        }
        buffer.append(UInt8(ascii: "}"))
    }

    private static func encodeEntry(_ observation: FHIRObservation, of bundle: FHIRBundle, into buffer: inout [UInt8]) {
        buffer.appendLiteral(#"{"fullUrl":"#)
        buffer.appendJSONString(observation.entry)
        buffer.appendLiteral(#","resource":"#)
        encodeObservation(
            observation, withID: bundle.kind == .collection, subjectSystem: bundle.subjectSystem,
            device: bundle.device, into: &buffer)
        if bundle.kind == .transaction {
            // A conditional create: exporting the same session again creates nothing, and the final Observation of
            // a session first exported live is created beside the preliminary one.
            buffer.appendLiteral(#","request":{"method":"POST","url":"Observation","ifNoneExist":"#)
            buffer.appendJSONString(
                "identifier=\(FHIRSystem.sessions)|\(observation.id)&status=\(observation.fhirStatus)")
            buffer.append(UInt8(ascii: "}"))
        }
        buffer.append(UInt8(ascii: "}"))
    }
}

extension FHIRObservation {
    /// The Observation's `status`: `preliminary` while live, `final` once ended (finished or abandoned).
    public var fhirStatus: String { status == .live ? "preliminary" : "final" }
}
