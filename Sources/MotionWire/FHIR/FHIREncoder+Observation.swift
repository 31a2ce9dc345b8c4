import MotionCore
import PortableBasics

extension FHIREncoder {
    /// Writes one session as an Observation (docs/fhir.md, "The Observation"):
    ///
    ///     {"resourceType":"Observation","id":"01J…","identifier":[…],"basedOn":[…],"status":"final",
    ///      "category":[…exam…],
    ///      "code":{"coding":[{"system":"urn:uuid:8990a8d4-…","code":"squat","display":"Squat"}],"text":"Squat"},
    ///      "subject":{"identifier":{"system":"…","value":"patient-17"}},
    ///      "effectivePeriod":{"start":"…","end":"…"},"issued":"…","method":{"text":"…"},
    ///      "device":{"display":"motion-server 0.5.0"},"component":[…]}
    ///
    /// `basedOn` is written for a programme item's session only (a `CarePlan` by its identifier in
    /// ``FHIRSystem/programmes``); `subject` is left out without a subject, `end` and `issued` while live; an abandoned
    /// session has a `note`.
    /// - Parameters:
    ///   - observation: The session.
    ///   - withID: Whether to write `id` (the session id): in a collection, not in a transaction's create.
    ///   - subjectSystem: The system of the subject's identifier.
    ///   - device: This server and its version.
    ///   - buffer: The buffer to append to.
    public static func encodeObservation(
        _ observation: FHIRObservation, withID: Bool, subjectSystem: String, device: String,
        into buffer: inout [UInt8]
    ) {
        buffer.appendLiteral(#"{"resourceType":"Observation""#)
        if withID {
            buffer.appendLiteral(#","id":"#)
            buffer.appendJSONString(observation.id)
        }
        buffer.appendLiteral(#","identifier":[{"system":"#)
        buffer.appendJSONString(FHIRSystem.sessions)
        buffer.appendLiteral(#","value":"#)
        buffer.appendJSONString(observation.id)
        buffer.append(UInt8(ascii: "}"))
        if let programme = observation.programme {
            // A logical reference (FHIR R4 Observation.basedOn, Reference.identifier): the programme is a CarePlan
            // this server does not serve; its version and item are said in the display.
            buffer.appendLiteral(#"],"basedOn":[{"type":"CarePlan","identifier":{"system":"#)
            buffer.appendJSONString(FHIRSystem.programmes)
            buffer.appendLiteral(#","value":"#)
            buffer.appendJSONString(programme.id)
            buffer.appendLiteral(#"},"display":"#)
            buffer.appendJSONString("Programme version \(programme.version), item \(programme.item)")
            buffer.append(UInt8(ascii: "}"))
        }
        buffer.appendLiteral(#"],"status":"#)
        buffer.appendJSONString(observation.fhirStatus)
        buffer.appendLiteral(#","category":[{"coding":["#)
        appendCoding(system: FHIRSystem.observationCategory, code: "exam", display: "Exam", into: &buffer)
        buffer.appendLiteral(#"]}],"code":{"coding":["#)
        appendCoding(
            system: observation.exercise.system, code: observation.exercise.code,
            display: observation.exercise.display, into: &buffer)
        buffer.append(UInt8(ascii: "]"))
        buffer.appendLiteral(#","text":"#)
        buffer.appendJSONString(observation.exercise.display ?? observation.exercise.code)
        buffer.append(UInt8(ascii: "}"))
        // FHIR strings are never empty: an empty subject is no subject.
        if let subject = observation.subject, !subject.isEmpty {
            buffer.appendLiteral(#","subject":{"identifier":{"system":"#)
            buffer.appendJSONString(subjectSystem)
            buffer.appendLiteral(#","value":"#)
            buffer.appendJSONString(subject)
            buffer.appendLiteral("}}")
        }
        buffer.appendLiteral(#","effectivePeriod":{"start":"#)
        ISO8601Timestamp.append(observation.startedAt, to: &buffer)
        if let endedAt = observation.endedAt {
            buffer.appendLiteral(#","end":"#)
            ISO8601Timestamp.append(endedAt, to: &buffer)
            buffer.appendLiteral(#"},"issued":"#)
            ISO8601Timestamp.append(endedAt, to: &buffer)
        } else {
            buffer.append(UInt8(ascii: "}"))
        }
        if observation.status == .abandoned {
            buffer.appendLiteral(#","note":[{"text":"#)
            buffer.appendJSONString(Self.abandonedNote)
            buffer.appendLiteral("}]")
        }
        buffer.appendLiteral(#","method":{"text":"#)
        buffer.appendJSONString(Self.method)
        buffer.append(UInt8(ascii: "}"))
        buffer.appendLiteral(#","device":{"display":"#)
        buffer.appendJSONString(device)
        buffer.appendLiteral(#"},"component":["#)
        appendComponents(of: observation, into: &buffer)
        buffer.appendLiteral("]}")
    }

    /// The `note` of an abandoned session's Observation.
    static let abandonedNote =
        "The session ended without a stop: its client left and did not resume it. The values are those measured "
        + "until then."

    /// The `method` text of every Observation.
    static let method = "Measured by motion-server from 2D body keypoints of a camera picture"

    /// The components, in order: clean and rejected reps, best, mean peak, duration, the hold times of a hold
    /// exercise, the side of a one-sided one, each side's tally of an alternating one.
    private static func appendComponents(of observation: FHIRObservation, into buffer: inout [UInt8]) {
        var components = ComponentWriter(live: observation.status == .live)
        components.count(.cleanReps, observation.cleanReps, into: &buffer)
        components.count(.rejectedReps, observation.rejectedReps, into: &buffer)
        components.quantity(.best, observation.best, unit: observation.unit, into: &buffer)
        components.quantity(.meanPeak, observation.meanPeak, unit: observation.unit, into: &buffer)
        components.seconds(.duration, observation.duration, into: &buffer)
        if let holds = observation.holds {
            components.seconds(.heldTime, holds.reduce(0, +), into: &buffer)
            components.seconds(.longestHold, holds.max(), into: &buffer)
        }
        if let side = observation.side {
            components.side(side, into: &buffer)
        }
        for side in BodySide.allCases {
            guard let tally = observation.perSide[side] else { continue }
            let measures = FHIRMeasure.perSide(side)
            components.count(measures.clean, tally.repCount, into: &buffer)
            components.count(measures.rejected, tally.rejectedCount, into: &buffer)
            components.quantity(measures.best, tally.best, unit: observation.unit, into: &buffer)
        }
    }

    /// Appends `{"system":…,"code":…,"display":…}`, without `display` when it is nil.
    static func appendCoding(system: String, code: String, display: String?, into buffer: inout [UInt8]) {
        buffer.appendLiteral(#"{"system":"#)
        buffer.appendJSONString(system)
        buffer.appendLiteral(#","code":"#)
        buffer.appendJSONString(code)
        if let display {
            buffer.appendLiteral(#","display":"#)
            buffer.appendJSONString(display)
        }
        buffer.append(UInt8(ascii: "}"))
    }
}

/// Writes an Observation's components one after another: each `{"code":…,"valueQuantity":…}`, or with
/// `dataAbsentReason` when the value is missing (`temp-unknown` while live, `not-applicable` once ended).
private struct ComponentWriter {
    let live: Bool
    private var first = true

    init(live: Bool) { self.live = live }

    mutating func count(_ measure: FHIRMeasure, _ value: Int, into buffer: inout [UInt8]) {
        open(measure, into: &buffer)
        buffer.appendLiteral(#","valueQuantity":{"value":"#)
        buffer.appendJSONInteger(value)
        buffer.appendLiteral(#","unit":"repetitions","system":"http://unitsofmeasure.org","code":"{reps}"}}"#)
    }

    mutating func seconds(_ measure: FHIRMeasure, _ value: Double?, into buffer: inout [UInt8]) {
        open(measure, into: &buffer)
        guard let value, value.isFinite else { return absent(into: &buffer) }
        buffer.appendLiteral(#","valueQuantity":{"value":"#)
        buffer.appendJSONNumber(Self.rounded(value, step: 100))
        buffer.appendLiteral(#","unit":"s","system":"http://unitsofmeasure.org","code":"s"}}"#)
    }

    mutating func quantity(
        _ measure: FHIRMeasure, _ value: Double?, unit: Measurement.Unit?, into buffer: inout [UInt8]
    ) {
        open(measure, into: &buffer)
        guard let value, value.isFinite, let unit else { return absent(into: &buffer) }
        buffer.appendLiteral(#","valueQuantity":{"value":"#)
        switch unit {
        case .degrees:
            buffer.appendJSONNumber(Self.rounded(value, step: 10))
            buffer.appendLiteral(#","unit":"degrees","system":"http://unitsofmeasure.org","code":"deg"}}"#)
        case .segmentLengths:
            buffer.appendJSONNumber(Self.rounded(value, step: 1000))
            buffer.appendLiteral(#","unit":"segment lengths","system":"http://unitsofmeasure.org","code":"1"}}"#)
        }
    }

    mutating func side(_ side: BodySide, into buffer: inout [UInt8]) {
        open(.side, into: &buffer)
        buffer.appendLiteral(#","valueCodeableConcept":{"coding":["#)
        FHIREncoder.appendCoding(
            system: FHIRSystem.measures, code: side.rawValue, display: side.fhirDisplay, into: &buffer)
        buffer.appendLiteral("]}}")
    }

    /// Opens a component and writes its code: the measure, then its LOINC code where it has one.
    private mutating func open(_ measure: FHIRMeasure, into buffer: inout [UInt8]) {
        buffer.appendLiteral(first ? #"{"code":{"coding":["# : #",{"code":{"coding":["#)
        first = false
        FHIREncoder.appendCoding(
            system: FHIRSystem.measures, code: measure.rawValue, display: measure.display, into: &buffer)
        if let loinc = measure.loinc {
            buffer.append(UInt8(ascii: ","))
            FHIREncoder.appendCoding(system: FHIRSystem.loinc, code: loinc.code, display: loinc.display, into: &buffer)
        }
        buffer.appendLiteral("]}")
    }

    private func absent(into buffer: inout [UInt8]) {
        buffer.appendLiteral(#","dataAbsentReason":{"coding":["#)
        if live {
            FHIREncoder.appendCoding(
                system: FHIRSystem.dataAbsentReason, code: "temp-unknown", display: "Temporarily Unknown",
                into: &buffer)
        } else {
            FHIREncoder.appendCoding(
                system: FHIRSystem.dataAbsentReason, code: "not-applicable", display: "Not Applicable", into: &buffer)
        }
        buffer.appendLiteral("]}}")
    }

    /// `value` to the nearest 1/`step`, the shortest text of which is what FHIR gets.
    private static func rounded(_ value: Double, step: Double) -> Double { (value * step).rounded() / step }
}
