import MotionCore

/// What one component of an exported Observation measures: a concept of the measures CodeSystem
/// (``FHIRSystem/measures``, `GET /fhir/CodeSystem/measures`). The raw values are the codes, and stable.
public enum FHIRMeasure: String, Sendable, Hashable, CaseIterable {
    /// Clean repetitions (for holds: holds that reached their time), `{reps}`.
    case cleanReps
    /// Repetitions (or holds) rejected for a form fault, `{reps}`.
    case rejectedReps
    /// The furthest value from rest, in the exercise's unit.
    case best
    /// The mean peak of the clean repetitions, in the exercise's unit.
    case meanPeak
    /// Seconds of exercise: from the first pose to the last.
    case duration
    /// Hold exercises: the seconds held, every attempt together.
    case heldTime
    /// Hold exercises: the longest single attempt, seconds.
    case longestHold
    /// The side a one-sided exercise was done with; its value is coded `left` or `right` in the same system.
    case side
    /// Alternating exercises: the left side's clean repetitions.
    case leftCleanReps
    /// Alternating exercises: the left side's rejected repetitions.
    case leftRejectedReps
    /// Alternating exercises: the left side's best value.
    case leftBest
    /// Alternating exercises: the right side's clean repetitions.
    case rightCleanReps
    /// Alternating exercises: the right side's rejected repetitions.
    case rightRejectedReps
    /// Alternating exercises: the right side's best value.
    case rightBest

    /// The English display.
    public var display: String {
        switch self {
        case .cleanReps: "Clean repetitions"
        case .rejectedReps: "Rejected repetitions"
        case .best: "Best value"
        case .meanPeak: "Mean peak of the clean repetitions"
        case .duration: "Exercise duration"
        case .heldTime: "Time held"
        case .longestHold: "Longest hold"
        case .side: "Side"
        case .leftCleanReps: "Clean repetitions, left side"
        case .leftRejectedReps: "Rejected repetitions, left side"
        case .leftBest: "Best value, left side"
        case .rightCleanReps: "Clean repetitions, right side"
        case .rightRejectedReps: "Rejected repetitions, right side"
        case .rightBest: "Best value, right side"
        }
    }

    /// The Spanish display.
    public var spanish: String {
        switch self {
        case .cleanReps: "Repeticiones correctas"
        case .rejectedReps: "Repeticiones rechazadas"
        case .best: "Mejor valor"
        case .meanPeak: "Pico medio de las repeticiones correctas"
        case .duration: "Duración del ejercicio"
        case .heldTime: "Tiempo mantenido"
        case .longestHold: "Mantenimiento más largo"
        case .side: "Lado"
        case .leftCleanReps: "Repeticiones correctas, lado izquierdo"
        case .leftRejectedReps: "Repeticiones rechazadas, lado izquierdo"
        case .leftBest: "Mejor valor, lado izquierdo"
        case .rightCleanReps: "Repeticiones correctas, lado derecho"
        case .rightRejectedReps: "Repeticiones rechazadas, lado derecho"
        case .rightBest: "Mejor valor, lado derecho"
        }
    }

    /// What the concept means, for the CodeSystem's `definition`.
    public var definition: String {
        switch self {
        case .cleanReps:
            "Repetitions completed without a form fault since the session's last reset; for a hold exercise, holds "
                + "that reached their prescribed time."
        case .rejectedReps: "Repetitions or holds that ended with a form fault since the session's last reset."
        case .best:
            "The furthest smoothed value from the start position reached since the last reset: the highest for an "
                + "exercise whose value rises during a repetition, the lowest for one whose value falls."
        case .meanPeak:
            "The mean of the clean repetitions' peaks (each the furthest value from rest in the repetition)."
        case .duration: "Seconds of exercise on the client's clock, from the first pose analysed to the last."
        case .heldTime: "Seconds held in the session's hold attempts together, each timed from reaching the hold."
        case .longestHold: "The seconds of the session's longest hold attempt."
        case .side: "The side of the body a one-sided exercise was done with, the patient's own."
        case .leftCleanReps, .rightCleanReps: "Clean repetitions of one side in an exercise done with alternate sides."
        case .leftRejectedReps, .rightRejectedReps:
            "Rejected repetitions of one side in an exercise done with alternate sides."
        case .leftBest, .rightBest: "The best value of one side in an exercise done with alternate sides."
        }
    }

    /// The LOINC code of the measure where one exists for exactly this (docs/fhir.md, "LOINC"): `55411-3`
    /// (Exercise duration) for ``duration``, as HL7's Physical Activity Implementation Guide uses it; nil for every
    /// other measure.
    public var loinc: (code: String, display: String)? {
        self == .duration ? ("55411-3", "Exercise duration") : nil
    }

    /// The clean repetitions, rejected repetitions and best value of one side of an alternating exercise.
    static func perSide(_ side: BodySide) -> (clean: FHIRMeasure, rejected: FHIRMeasure, best: FHIRMeasure) {
        switch side {
        case .left: (.leftCleanReps, .leftRejectedReps, .leftBest)
        case .right: (.rightCleanReps, .rightRejectedReps, .rightBest)
        }
    }
}

extension BodySide {
    /// The English display of the side as a coded value of ``FHIRMeasure/side``.
    var fhirDisplay: String { self == .left ? "Left side" : "Right side" }

    /// The Spanish display of the side.
    var fhirSpanish: String { self == .left ? "Lado izquierdo" : "Lado derecho" }
}
