/// Where a simulated person holds the arms that the exercise does not move.
///
/// Both arms in leg exercises (a squat with the arms forward), the other arm in one-arm exercises.
public enum ArmPosition: String, Sendable, Hashable, CaseIterable {
    /// Hanging at the sides.
    case atSides
    /// Raised forward to shoulder height, horizontal (a counterweight in bodyweight squats).
    case forward
    /// Hands on the hips, elbows out to the sides.
    case onHips
}
