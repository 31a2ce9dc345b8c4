/// This server's version: the top version of CHANGELOG.md (a test keeps the two equal). The FHIR export names it in
/// every Observation's `device` and every CodeSystem's `version` (docs/fhir.md).
public enum ServerVersion {
    /// The version, `major.minor.patch`.
    public static let current = "0.5.0"

    /// What an Observation's `device` says: `motion-server 0.5.0`.
    public static let device = "motion-server \(current)"
}
