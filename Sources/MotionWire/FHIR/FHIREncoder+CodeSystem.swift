import PortableBasics

extension FHIREncoder {
    /// Writes a CodeSystem:
    ///
    ///     {"resourceType":"CodeSystem","id":"exercises","url":"urn:uuid:8990a8d4-…","version":"0.5.0",
    ///      "name":"MotionServerExercises","title":"…","status":"active","experimental":false,
    ///      "publisher":"motion-server","description":"…","caseSensitive":true,"content":"complete","count":24,
    ///      "property":[{"code":"unit","description":"…","type":"code"},…],
    ///      "concept":[{"code":"elbowFlexion","display":"Elbow flexion",
    ///                  "designation":[{"language":"en","value":"Elbow flexion"},{"language":"es",…}],
    ///                  "property":[{"code":"unit","valueCode":"deg"},{"code":"kind","valueCode":"rep"}]},…]}
    ///
    /// `count` is the number of concepts listed.
    /// - Parameters:
    ///   - system: The code system.
    ///   - buffer: The buffer to append to.
    public static func encodeCodeSystem(_ system: FHIRCodeSystem, into buffer: inout [UInt8]) {
        buffer.appendLiteral(#"{"resourceType":"CodeSystem","id":"#)
        buffer.appendJSONString(system.id)
        buffer.appendLiteral(#","url":"#)
        buffer.appendJSONString(system.url)
        buffer.appendLiteral(#","version":"#)
        buffer.appendJSONString(system.version)
        buffer.appendLiteral(#","name":"#)
        buffer.appendJSONString(system.name)
        buffer.appendLiteral(#","title":"#)
        buffer.appendJSONString(system.title)
        buffer.appendLiteral(#","status":"active","experimental":false,"publisher":"motion-server","description":"#)
        buffer.appendJSONString(system.description)
        buffer.appendLiteral(#","caseSensitive":true,"content":"#)
        buffer.appendJSONString(system.content.rawValue)
        buffer.appendLiteral(#","count":"#)
        buffer.appendJSONInteger(system.concepts.count)
        if !system.properties.isEmpty {
            buffer.appendLiteral(#","property":["#)
            for (index, property) in system.properties.enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                buffer.appendLiteral(#"{"code":"#)
                buffer.appendJSONString(property.code)
                buffer.appendLiteral(#","description":"#)
                buffer.appendJSONString(property.description)
                buffer.appendLiteral(#","type":"code"}"#)
            }
            buffer.append(UInt8(ascii: "]"))
        }
        if !system.concepts.isEmpty {
            buffer.appendLiteral(#","concept":["#)
            for (index, concept) in system.concepts.enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                encodeConcept(concept, into: &buffer)
            }
            buffer.append(UInt8(ascii: "]"))
        }
        buffer.append(UInt8(ascii: "}"))
    }

    private static func encodeConcept(_ concept: FHIRCodeSystem.Concept, into buffer: inout [UInt8]) {
        buffer.appendLiteral(#"{"code":"#)
        buffer.appendJSONString(concept.code)
        buffer.appendLiteral(#","display":"#)
        buffer.appendJSONString(concept.display)
        if let definition = concept.definition {
            buffer.appendLiteral(#","definition":"#)
            buffer.appendJSONString(definition)
        }
        if !concept.designations.isEmpty {
            buffer.appendLiteral(#","designation":["#)
            for (index, designation) in concept.designations.enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                buffer.appendLiteral(#"{"language":"#)
                buffer.appendJSONString(designation.language)
                buffer.appendLiteral(#","value":"#)
                buffer.appendJSONString(designation.value)
                buffer.append(UInt8(ascii: "}"))
            }
            buffer.append(UInt8(ascii: "]"))
        }
        if !concept.properties.isEmpty {
            buffer.appendLiteral(#","property":["#)
            for (index, property) in concept.properties.enumerated() {
                if index > 0 { buffer.append(UInt8(ascii: ",")) }
                buffer.appendLiteral(#"{"code":"#)
                buffer.appendJSONString(property.code)
                buffer.appendLiteral(#","valueCode":"#)
                buffer.appendJSONString(property.value)
                buffer.append(UInt8(ascii: "}"))
            }
            buffer.append(UInt8(ascii: "]"))
        }
        buffer.append(UInt8(ascii: "}"))
    }
}
