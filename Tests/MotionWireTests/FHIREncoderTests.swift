import Foundation
import MotionCore
import Testing

@testable import MotionWire

/// The FHIR R4 export's encoder (docs/fhir.md): one golden file per kind of Observation, each a whole Bundle, and
/// the rules every Observation keeps.
@Suite struct FHIREncoderTests {
    /// 2025-11-29T14:00:00Z.
    static let start = 1_764_424_800.0
    static let subjectSystem = "https://clinic.example/patients"
    static let device = "motion-server 0.5.0"

    static func builtin(_ id: String) -> FHIRObservation.Coding {
        FHIRObservation.Coding(system: FHIRSystem.exercises, code: id, display: Exercise.named(id)?.name)
    }

    /// An observation with the parts a test does not care about filled in.
    static func observation(
        _ exercise: String = "elbowFlexion", status: SummaryMetadata.Status = .finished,
        unit: MotionCore.Measurement.Unit? = .degrees,
        change: (inout FHIRObservation) -> Void = { _ in }
    ) -> FHIRObservation {
        var observation = FHIRObservation(
            id: "01KB6VKZ8G0000000000000001", entry: "urn:uuid:5f0d2a57-8e33-5c6a-9d4e-3e1f6c2b7a10", status: status,
            startedAt: start, endedAt: status == .live ? nil : start + 95.4, exercise: builtin(exercise), unit: unit,
            subject: "patient-17", side: .right, cleanReps: 10, rejectedReps: 0, best: 142.5371, meanPeak: 138.24999,
            duration: 93.40000000001)
        change(&observation)
        return observation
    }

    static func bundle(
        _ observations: [FHIRObservation], kind: FHIRBundle.Kind = .collection, links: [FHIRBundle.Link]? = nil
    ) -> [UInt8] {
        let bundle = FHIRBundle(
            kind: kind, timestamp: start + 3600,
            links: links ?? [FHIRBundle.Link(relation: "self", url: "/v1/sessions/\(observations[0].id)/fhir")],
            observations: observations, subjectSystem: subjectSystem, device: device)
        var buffer: [UInt8] = []
        FHIREncoder.encodeBundle(bundle, into: &buffer)
        return buffer
    }

    /// The kinds of Observation, each with its golden file.
    static let kinds: [(name: String, bundle: [UInt8])] = [
        ("finished", bundle([observation()])),
        (
            "live",
            bundle([
                observation(status: .live) {
                    $0.cleanReps = 0
                    $0.best = nil
                    $0.meanPeak = nil
                    $0.duration = 12.345
                }
            ])
        ),
        (
            "rejected-reps",
            bundle([
                observation("squat") {
                    $0.side = nil
                    $0.cleanReps = 8
                    $0.rejectedReps = 2
                    $0.best = 96.04
                    $0.meanPeak = 91.77
                }
            ])
        ),
        (
            "segment-lengths",
            bundle([
                observation("heelRaise", unit: .segmentLengths) {
                    $0.side = nil
                    $0.best = 0.183_449
                    $0.meanPeak = 0.171_250_1
                }
            ])
        ),
        (
            "alternating-sides",
            bundle([
                observation("trunkLateralFlexion") {
                    $0.side = nil
                    $0.cleanReps = 7
                    $0.rejectedReps = 1
                    $0.best = 31.25
                    $0.meanPeak = 28.5
                    $0.perSide = [
                        .left: SideTally(repCount: 4, rejectedCount: 0, best: 31.25),
                        .right: SideTally(repCount: 3, rejectedCount: 1, best: 27.9),
                    ]
                }
            ])
        ),
        (
            "held-time",
            bundle([
                observation("plankHold") {
                    $0.side = nil
                    $0.cleanReps = 2
                    $0.rejectedReps = 1
                    $0.best = 4.1
                    $0.meanPeak = 3.75
                    $0.holds = [12.5, 45.254, 30]
                }
            ])
        ),
        (
            "abandoned",
            bundle([
                observation(status: .abandoned) {
                    $0.subject = nil
                    $0.cleanReps = 2
                }
            ])
        ),
        (
            "custom-exercise",
            bundle([
                observation {
                    $0.exercise = FHIRObservation.Coding(
                        system: "urn:uuid:0f1e2d3c-4b5a-5978-8695-a4b3c2d1e0f9", code: "towelCurl", display: nil)
                    $0.unit = nil
                }
            ])
        ),
        (
            "programme-item",
            bundle([
                observation("sitToStand") {
                    $0.side = nil
                    $0.best = 8.5
                    $0.meanPeak = 11.5
                    $0.programme = ProgrammeLink(id: "01KC0A8G5R0000000000000007", version: 3, item: "a1")
                }
            ])
        ),
        (
            "transaction",
            bundle(
                [
                    observation(),
                    observation(status: .live) {
                        $0.id = "01KB6VKZ8G0000000000000002"
                        $0.entry = "urn:uuid:0c6f3a1e-2b4d-5e7f-8a9b-1c2d3e4f5a6b"
                    },
                ], kind: .transaction,
                links: [
                    FHIRBundle.Link(relation: "self", url: "/v1/subjects/patient-17/fhir?limit=2&type=transaction"),
                    FHIRBundle.Link(
                        relation: "next", url: "/v1/subjects/patient-17/fhir?limit=2&cursor=abc&type=transaction"),
                ])
        ),
    ]

    @Test(arguments: kinds.map(\.name))
    func matchesItsGoldenFile(_ name: String) throws {
        let encoded = try #require(Self.kinds.first { $0.name == name }).bundle
        #expect(text(encoded) == text(try FHIRGoldenFiles.expected(name, encoded: encoded)))
        #expect(try JSONSerialization.jsonObject(with: Data(encoded)) is [String: Any], "valid JSON")
    }

    /// The parsed Observation of a one-entry bundle.
    static func resource(_ bundle: [UInt8]) throws -> [String: Any] {
        let root = try #require(try JSONSerialization.jsonObject(with: Data(bundle)) as? [String: Any])
        let entries = try #require(root["entry"] as? [[String: Any]])
        return try #require(entries.first?["resource"] as? [String: Any])
    }

    static func components(_ resource: [String: Any]) throws -> [String: [String: Any]] {
        let list = try #require(resource["component"] as? [[String: Any]])
        var byCode: [String: [String: Any]] = [:]
        for component in list {
            let code = try #require(
                ((component["code"] as? [String: Any])?["coding"] as? [[String: Any]])?.first?["code"] as? String)
            #expect(byCode[code] == nil, "\(code) once")
            byCode[code] = component
        }
        return byCode
    }

    @Test func statusIsPreliminaryWhileLiveAndFinalOnceEnded() throws {
        for (status, expected) in [
            (SummaryMetadata.Status.live, "preliminary"), (.finished, "final"), (.abandoned, "final"),
        ] {
            let resource = try Self.resource(Self.bundle([Self.observation(status: status)]))
            #expect(resource["status"] as? String == expected, "\(status)")
            let period = try #require(resource["effectivePeriod"] as? [String: Any])
            #expect(period["start"] as? String == "2025-11-29T14:00:00Z")
            #expect((period["end"] as? String) == (status == .live ? nil : "2025-11-29T14:01:35Z"))
            #expect((resource["issued"] as? String) == (status == .live ? nil : "2025-11-29T14:01:35Z"))
            #expect((resource["note"] != nil) == (status == .abandoned))
        }
    }

    @Test func everyComponentHasAValueOrASayWhyNot() throws {
        for status in SummaryMetadata.Status.allCases {
            let observation = Self.observation(status: status) {
                $0.best = nil
                $0.meanPeak = .nan
                $0.duration = nil
            }
            let components = try Self.components(try Self.resource(Self.bundle([observation])))
            for (code, component) in components {
                let values = component.keys.filter { $0.hasPrefix("value") }
                let absent = component["dataAbsentReason"] != nil
                #expect(values.count + (absent ? 1 : 0) == 1, "\(code): one value or a reason")
            }
            for code in ["best", "meanPeak", "duration"] {
                let reason = try #require(components[code]?["dataAbsentReason"] as? [String: Any])
                let coding = try #require((reason["coding"] as? [[String: Any]])?.first)
                #expect(coding["system"] as? String == FHIRSystem.dataAbsentReason)
                #expect(coding["code"] as? String == (status == .live ? "temp-unknown" : "not-applicable"))
            }
        }
    }

    @Test func valuesAreRoundedToWhatTheUnitCarries() throws {
        let components = try Self.components(try Self.resource(Self.bundle([Self.observation()])))
        func value(_ code: String) -> Any? { (components[code]?["valueQuantity"] as? [String: Any])?["value"] }
        #expect(value("best") as? Double == 142.5)
        #expect(value("meanPeak") as? Double == 138.2)
        #expect(value("duration") as? Double == 93.4)
        #expect(value("cleanReps") as? Int == 10)
        let lengths = try Self.components(
            try Self.resource(Self.bundle([Self.observation("heelRaise", unit: .segmentLengths) { $0.best = 0.18349 }]))
        )
        let best = try #require(lengths["best"]?["valueQuantity"] as? [String: Any])
        #expect(best["value"] as? Double == 0.183)
        #expect(best["code"] as? String == "1")
        #expect(best["system"] as? String == "http://unitsofmeasure.org")
    }

    @Test func onlyTheDurationCarriesALOINCCode() throws {
        let components = try Self.components(try Self.resource(Self.bundle([Self.observation { $0.holds = [3] }])))
        for (code, component) in components {
            let codings = try #require((component["code"] as? [String: Any])?["coding"] as? [[String: Any]])
            let loinc = codings.filter { $0["system"] as? String == FHIRSystem.loinc }
            #expect(loinc.map { $0["code"] as? String } == (code == "duration" ? ["55411-3"] : []), "\(code)")
        }
    }

    @Test func aProgrammeItemsSessionIsBasedOnItsCarePlanByIdentifier() throws {
        let plain = try Self.resource(Self.bundle([Self.observation()]))
        #expect(plain["basedOn"] == nil, "a session of no programme")
        let link = ProgrammeLink(id: "01KC0A8G5R0000000000000007", version: 12, item: "knee-2")
        let resource = try Self.resource(Self.bundle([Self.observation { $0.programme = link }]))
        let basedOn = try #require(resource["basedOn"] as? [[String: Any]])
        #expect(basedOn.count == 1)
        #expect(basedOn[0]["type"] as? String == "CarePlan")
        #expect(basedOn[0]["reference"] == nil, "a logical reference: no server serves the CarePlan")
        let identifier = try #require(basedOn[0]["identifier"] as? [String: String])
        #expect(identifier == ["system": FHIRSystem.programmes, "value": "01KC0A8G5R0000000000000007"])
        #expect(basedOn[0]["display"] as? String == "Programme version 12, item knee-2")
        let text = String(decoding: Self.bundle([Self.observation { $0.programme = link }]), as: UTF8.self)
        let order = [#""identifier":["#, #""basedOn":["#, #""status":"#].compactMap { text.range(of: $0)?.lowerBound }
        #expect(order.count == 3 && order == order.sorted(), "in FHIR's element order: after identifier")
    }

    @Test func anEmptyOrMissingSubjectLeavesSubjectOut() throws {
        for subject in [nil, ""] as [String?] {
            let resource = try Self.resource(Self.bundle([Self.observation { $0.subject = subject }]))
            #expect(resource["subject"] == nil)
        }
        let named = try Self.resource(Self.bundle([Self.observation { $0.subject = "tricky \"é\" 😀" }]))
        let identifier = try #require((named["subject"] as? [String: Any])?["identifier"] as? [String: Any])
        #expect(identifier["system"] as? String == Self.subjectSystem)
        #expect(identifier["value"] as? String == "tricky \"é\" 😀")
    }

    @Test func aTransactionCreatesEachObservationOnceByIdentifierAndStatus() throws {
        let encoded = Self.bundle([Self.observation(), Self.observation(status: .live)], kind: .transaction)
        let root = try #require(try JSONSerialization.jsonObject(with: Data(encoded)) as? [String: Any])
        #expect(root["type"] as? String == "transaction")
        let entries = try #require(root["entry"] as? [[String: Any]])
        let requests = entries.compactMap { $0["request"] as? [String: String] }
        #expect(
            requests == [
                [
                    "method": "POST", "url": "Observation",
                    "ifNoneExist": "identifier=\(FHIRSystem.sessions)|01KB6VKZ8G0000000000000001&status=final",
                ],
                [
                    "method": "POST", "url": "Observation",
                    "ifNoneExist": "identifier=\(FHIRSystem.sessions)|01KB6VKZ8G0000000000000001&status=preliminary",
                ],
            ])
        #expect(entries.allSatisfy { ($0["resource"] as? [String: Any])?["id"] == nil }, "a create carries no id")
    }

    @Test func anEmptyBundleHasNoEntryArray() throws {
        let bundle = FHIRBundle(
            kind: .collection, timestamp: Self.start, observations: [], subjectSystem: Self.subjectSystem,
            device: Self.device)
        var buffer: [UInt8] = []
        FHIREncoder.encodeBundle(bundle, into: &buffer)
        #expect(text(buffer) == #"{"resourceType":"Bundle","type":"collection","timestamp":"2025-11-29T14:00:00Z"}"#)
    }

    @Test func observationFromASummaryTakesItsCountsAndTheCleanRepsMeanPeak() {
        func rep(_ index: Int, peak: Double, faults: FormFeedbackSet = []) -> Rep {
            Rep(index: index, peak: peak, trough: 10, start: Double(index), end: Double(index) + 1, faults: faults)
        }
        var summary = SessionSummary(exercise: "squat", side: .left)
        summary.firstTimestamp = 2
        summary.lastTimestamp = 14.5
        summary.repCount = 2
        summary.rejectedCount = 1
        summary.best = 99
        summary.reps = [rep(1, peak: 90), rep(2, peak: 99, faults: [.keepTrunkUpright]), rep(3, peak: 80)]
        let metadata = SummaryMetadata(id: "x", subject: "s", status: .finished, startedAt: 10, endedAt: 20)
        let observation = FHIRObservation(
            summary: summary, metadata: metadata, entry: "urn:uuid:e", exercise: Self.builtin("squat"), unit: .degrees,
            kind: .rep)
        #expect(observation.meanPeak == 85)
        #expect(observation.cleanReps == 2 && observation.rejectedReps == 1)
        #expect(observation.duration == 12.5)
        #expect(observation.side == .left)
        #expect(observation.holds == nil)
        let empty = FHIRObservation(
            summary: SessionSummary(exercise: "squat"), metadata: metadata, entry: "urn:uuid:e",
            exercise: Self.builtin("squat"), unit: .degrees, kind: .rep)
        #expect(empty.meanPeak == nil)
        #expect(empty.duration == nil, "no pose, no duration")
    }

    @Test func holdTimesComeFromTheSummarysHoldsOfAHoldExercise() {
        var summary = SessionSummary(exercise: "plankHold")
        summary.holds = [Hold(start: 1, held: 4.5, completed: false), Hold(start: 9, held: 120, completed: true)]
        let metadata = SummaryMetadata(id: "x", status: .finished, startedAt: 10, endedAt: 20)
        func observation(_ summary: SessionSummary, kind: Exercise.Kind?) -> FHIRObservation {
            FHIRObservation(
                summary: summary, metadata: metadata, entry: "urn:uuid:e", exercise: Self.builtin("plankHold"),
                unit: .degrees, kind: kind)
        }
        #expect(observation(summary, kind: .hold).holds == [4.5, 120])
        #expect(observation(summary, kind: nil).holds == [4.5, 120], "an unknown kind with holds")
        #expect(observation(summary, kind: .rep).holds == nil)
        let none = SessionSummary(exercise: "plankHold")
        #expect(observation(none, kind: .hold).holds == [], "a hold exercise held nothing yet: 0 s")
        #expect(observation(none, kind: nil).holds == nil)
    }
}
