public import MotionCore

/// The `type` of a measurement object in an exercise definition (docs/protocol.md §5.1), one per ``Measurement`` case,
/// with the members each type takes.
public enum MeasurementType: String, Sendable, Hashable, CaseIterable {
    /// `{"type":"flexion","joints":[proximal, joint, distal]}`.
    case flexion
    /// `{"type":"angleBetween","segments":[S, S]}`.
    case angleBetween
    /// `{"type":"inclination","segment":S}`.
    case inclination
    /// `{"type":"tilt","segment":S}`.
    case tilt
    /// `{"type":"tiltAgainst","segment":S,"reference":S}`.
    case tiltAgainst
    /// `{"type":"inclinationBeyond","segment":S,"reference":S}`.
    case inclinationBeyond
    /// `{"type":"lean","segment":S,"reference":S}`.
    case lean
    /// `{"type":"distance","joints":[a, b],"per":S}`.
    case distance
    /// `{"type":"height","joint":a,"above":b,"per":S}`.
    case height
    /// `{"type":"rise","joint":a,"per":S}`.
    case rise

    /// The type of `measurement`.
    /// - Parameter measurement: The measurement.
    public init(_ measurement: Measurement) {
        switch measurement {
        case .flexion: self = .flexion
        case .angleBetween: self = .angleBetween
        case .inclination: self = .inclination
        case .tilt: self = .tilt
        case .tiltAgainst: self = .tiltAgainst
        case .inclinationBeyond: self = .inclinationBeyond
        case .lean: self = .lean
        case .distance: self = .distance
        case .height: self = .height
        case .rise: self = .rise
        }
    }

    /// The members a measurement object of this type has besides `type`, in the order they are written.
    public var members: [String] {
        switch self {
        case .flexion: ["joints"]
        case .angleBetween: ["segments"]
        case .inclination, .tilt: ["segment"]
        case .tiltAgainst, .inclinationBeyond, .lean: ["segment", "reference"]
        case .distance: ["joints", "per"]
        case .height: ["joint", "above", "per"]
        case .rise: ["joint", "per"]
        }
    }
}
