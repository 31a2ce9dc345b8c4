import Foundation
import MotionCore
import Testing

@testable import MotionWire

/// The CodeSystems of the FHIR export: every built-in exercise with its English and Spanish names, unit and kind;
/// every measure and coded side.
@Suite struct FHIRCodeSystemTests {
    static func parsed(_ system: FHIRCodeSystem) throws -> [String: Any] {
        var buffer: [UInt8] = []
        FHIREncoder.encodeCodeSystem(system, into: &buffer)
        return try #require(try JSONSerialization.jsonObject(with: Data(buffer)) as? [String: Any])
    }

    @Test func everyBuiltinExerciseIsNamedInEnglishAndSpanish() throws {
        let root = try Self.parsed(.exercises(version: "1"))
        let concepts = try #require(root["concept"] as? [[String: Any]])
        for concept in concepts {
            let designations = try #require(concept["designation"] as? [[String: String]])
            #expect(designations.map { $0["language"] } == ["en", "es"], "\(concept["code"] ?? "")")
            #expect(designations.allSatisfy { $0["value"]?.isEmpty == false })
        }
    }

    @Test func theExercisesListTheCatalogInOrderWithNamesUnitAndKind() throws {
        let root = try Self.parsed(.exercises(version: "9.8.7"))
        #expect(root["resourceType"] as? String == "CodeSystem")
        #expect(root["url"] as? String == FHIRSystem.exercises)
        #expect(root["version"] as? String == "9.8.7")
        #expect(root["content"] as? String == "complete")
        let concepts = try #require(root["concept"] as? [[String: Any]])
        #expect(root["count"] as? Int == concepts.count)
        #expect(concepts.map { $0["code"] as? String } == Exercise.catalog.map(\.id))
        for (concept, exercise) in zip(concepts, Exercise.catalog) {
            #expect(concept["display"] as? String == exercise.name)
            let designations = try #require(concept["designation"] as? [[String: String]])
            #expect(designations == exercise.localizedNames.map { ["language": $0.language, "value": $0.name] })
            #expect(designations.first == ["language": "en", "value": exercise.name])
            let properties = try #require(concept["property"] as? [[String: String]])
            let unit = exercise.measurement.unit == .degrees ? "deg" : "1"
            #expect(
                properties == [
                    ["code": "unit", "valueCode": unit], ["code": "kind", "valueCode": exercise.kind.rawValue],
                ], "\(exercise.id)")
        }
        let defined = try #require(root["property"] as? [[String: String]])
        #expect(defined.map { $0["code"] } == ["unit", "kind"])
    }

    @Test func theMeasuresListEveryMeasureAndBothSides() throws {
        let root = try Self.parsed(.measures(version: "1.0.0"))
        #expect(root["url"] as? String == FHIRSystem.measures)
        let concepts = try #require(root["concept"] as? [[String: Any]])
        let codes = concepts.compactMap { $0["code"] as? String }
        #expect(codes == FHIRMeasure.allCases.map(\.rawValue) + ["left", "right"])
        #expect(Set(codes).count == codes.count, "codes are unique")
        for concept in concepts {
            let languages = (concept["designation"] as? [[String: String]])?.map { $0["language"] }
            #expect(languages == ["en", "es"], "\(concept["code"] ?? "")")
            #expect((concept["definition"] as? String)?.isEmpty == false)
        }
    }

    @Test func aTenantsCustomExercisesAreAFragmentOfItsSystem() throws {
        var curl = Exercise.named("elbowFlexion")!
        curl.id = "towelCurl"
        curl.name = "Towel curl"
        curl.isBuiltin = false
        let root = try Self.parsed(.customExercises([curl], url: "urn:uuid:tenant", version: "1"))
        #expect(root["url"] as? String == "urn:uuid:tenant")
        #expect(root["content"] as? String == "fragment")
        let concepts = try #require(root["concept"] as? [[String: Any]])
        #expect(concepts.map { $0["code"] as? String } == ["towelCurl"])
        #expect(concepts.first?["display"] as? String == "Towel curl")
        let none = try Self.parsed(.customExercises([], url: "urn:uuid:tenant", version: "1"))
        #expect(none["concept"] == nil, "FHIR has no empty arrays")
        #expect(none["count"] as? Int == 0)
    }

    @Test func theSystemsAreUUIDURNs() {
        for system in [FHIRSystem.exercises, FHIRSystem.measures, FHIRSystem.sessions, FHIRSystem.subjects] {
            let uuid = system.dropFirst("urn:uuid:".count)
            #expect(system.hasPrefix("urn:uuid:") && uuid.count == 36, "\(system)")
            #expect(uuid.allSatisfy { $0 == "-" || $0.isHexDigit && !$0.isUppercase }, "\(system)")
        }
        let all = [FHIRSystem.exercises, FHIRSystem.measures, FHIRSystem.sessions, FHIRSystem.subjects]
        #expect(Set(all).count == all.count)
    }
}
