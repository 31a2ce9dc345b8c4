/// Where a simulated person holds the arms that the exercise does not move.
///
/// Both arms in leg exercises (a squat with the arms forward), the other arm in one-arm exercises. Positions are
/// in the body's own frame: lying on the back, arms "at the sides" lie along the body and arms "forward" point at
/// the ceiling.
public enum ArmPosition: String, Sendable, Hashable, CaseIterable {
    /// Hanging at the sides.
    case atSides
    /// Raised forward to shoulder height, horizontal (a counterweight in bodyweight squats).
    case forward
    /// Hands on the hips, elbows out to the sides.
    case onHips
    /// Crossed on the chest, each hand on the other shoulder's side (the chair-stand test's position).
    case crossed
}
