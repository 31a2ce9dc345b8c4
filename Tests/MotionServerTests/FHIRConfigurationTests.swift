import Foundation
import HTTPServer
import MotionWire
import Testing

@testable import MotionServer

/// How the FHIR export names a tenant's systems (docs/fhir.md, "Systems"), the `--fhir-subject-system` flag, and the
/// server's version the export names.
@Suite struct FHIRConfigurationTests {
    @Test func version5UUIDsMatchRFC9562() {
        // RFC 9562 Appendix A.4: www.example.com in the DNS namespace.
        #expect(
            NameBasedUUID.version5(namespace: "6ba7b810-9dad-11d1-80b4-00c04fd430c8", name: "www.example.com")
                == "2ed6657d-e927-568b-95e1-2665a8aea6a2")
        #expect(
            NameBasedUUID.version5(namespace: "urn:uuid:6BA7B810-9DAD-11D1-80B4-00C04FD430C8", name: "www.example.com")
                == "2ed6657d-e927-568b-95e1-2665a8aea6a2", "a URN and upper case read alike")
    }

    @Test(arguments: [
        "", "6ba7b810-9dad-11d1-80b4-00c04fd430c", "6ba7b810-9dad-11d1-80b4-00c04fd430c8a",
        "6ba7b810+9dad-11d1-80b4-00c04fd430c8",
        "6ba7b810-9dad-11d1-80b4-00c04fd430cg", "urn:uuid:", "ürn:uuid:6ba7b810-9dad-11d1-80b4-00c04fd430c8",
    ])
    func aNamespaceThatIsNoUUIDGivesNone(_ namespace: String) {
        #expect(NameBasedUUID.version5(namespace: namespace, name: "x") == nil)
    }

    @Test func theFixedNamespacesAreUUIDs() {
        for system in [FHIRSystem.exercises, FHIRSystem.measures, FHIRSystem.sessions, FHIRSystem.subjects] {
            #expect(NameBasedUUID.bytes(of: system)?.count == 16, "\(system)")
        }
    }

    @Test func eachTenantHasSystemsOfItsOwn() {
        let configuration = FHIRConfiguration()
        let a = configuration.subjectSystem(tenant: "clinic-a")
        let b = configuration.subjectSystem(tenant: "clinic-b")
        #expect(a != b)
        #expect(a == configuration.subjectSystem(tenant: "clinic-a"), "stable")
        #expect(a.hasPrefix("urn:uuid:") && a.count == 45)
        #expect(
            a == "urn:uuid:" + (NameBasedUUID.version5(namespace: FHIRSystem.subjects, name: "clinic-a") ?? ""))
        let exercises = FHIRConfiguration.customExerciseSystem(tenant: "clinic-a")
        #expect(exercises != a && exercises != FHIRConfiguration.customExerciseSystem(tenant: "clinic-b"))
        #expect(
            exercises == "urn:uuid:" + (NameBasedUUID.version5(namespace: FHIRSystem.exercises, name: "clinic-a") ?? "")
        )
        #expect(FHIRConfiguration.entry(session: "01ABC") != FHIRConfiguration.entry(session: "01ABD"))
    }

    @Test func theFlagsTenantPlaceholderIsTheTenantPercentEncoded() {
        var configuration = FHIRConfiguration()
        configuration.subjectSystem = "https://records.example/{tenant}/patients"
        #expect(
            configuration.subjectSystem(tenant: "clinic/ä b~_.-")
                == "https://records.example/clinic%2F%C3%A4%20b~_.-/patients")
        configuration.subjectSystem = "urn:oid:1.2.3.4"
        #expect(configuration.subjectSystem(tenant: "anyone") == "urn:oid:1.2.3.4", "one system for every tenant")
    }

    @Test(arguments: [
        "https://clinic.example/patients", "urn:oid:1.2.840.1", "http://h/{tenant}", "urn:uuid:{tenant}-x",
        "x:y", String(repeating: "a", count: 1020) + ":b/c",
    ])
    func takesAbsoluteURIs(_ text: String) {
        #expect(FHIRConfiguration.problem(withSubjectSystem: text) == nil)
    }

    @Test(arguments: [
        "", "patients", ":x", "1http://x", "http:", "http://a b", "http://a|b", "http://a\u{7}", "http://{x}",
        "http://a}", "ht_tp://x", "http://\u{7F}", String(repeating: "a", count: 1020) + ":b/cd",
    ])
    func refusesWhatIsNoAbsoluteURI(_ text: String) {
        #expect(FHIRConfiguration.problem(withSubjectSystem: text) != nil)
    }

    @Test func theFlagAndItsVariableSetTheSubjectSystem() throws {
        let flag = try ServerOptions.parse(
            arguments: ["--fhir-subject-system", "https://r.example/{tenant}"], environment: [:])
        #expect(flag.fhir.subjectSystem == "https://r.example/{tenant}")
        let variable = try ServerOptions.parse(
            arguments: [], environment: ["MOTION_FHIR_SUBJECT_SYSTEM": "urn:oid:1.2"])
        #expect(variable.fhir.subjectSystem == "urn:oid:1.2")
        #expect(try ServerOptions.parse(arguments: [], environment: [:]).fhir.subjectSystem == nil)
        do {
            _ = try ServerOptions.parse(arguments: ["--fhir-subject-system", "not a uri"], environment: [:])
            Issue.record("a value with spaces is refused")
        } catch {
            #expect(error.message.hasPrefix("--fhir-subject-system must be "), "\(error.message)")
        }
    }

    @Test func theVersionIsTheChangelogsTopOne() throws {
        let changelog = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("CHANGELOG.md")
        let text = try String(contentsOf: changelog, encoding: .utf8)
        let heading = try #require(text.split(separator: "\n").first { $0.hasPrefix("## [") })
        #expect(heading.hasPrefix("## [\(ServerVersion.current)]"), "\(heading)")
        #expect(ServerVersion.device == "motion-server \(ServerVersion.current)")
    }
}
