import MotionWire

/// How the FHIR export names what belongs to a tenant (docs/fhir.md, "Systems"): the system of its subjects'
/// identifiers, and the code system of its custom exercises.
public struct FHIRConfiguration: Sendable, Equatable {
    /// The placeholder of ``subjectSystem`` that stands for the tenant's name.
    public static let tenantPlaceholder = "{tenant}"
    /// The longest ``subjectSystem`` taken, in bytes.
    public static let maxSubjectSystemBytes = 1024

    /// The system of the subjects' identifiers (`--fhir-subject-system`): an absolute URI, in which
    /// ``tenantPlaceholder`` is replaced by the tenant's name, percent-encoded. Nil gives each tenant a system of its
    /// own: `urn:uuid:` and the version 5 UUID of the tenant's name in the namespace ``FHIRSystem/subjects``.
    public var subjectSystem: String?

    /// Creates the defaults.
    public init() {}

    /// The system of `tenant`'s subjects.
    /// - Parameter tenant: The tenant.
    public func subjectSystem(tenant: String) -> String {
        guard let subjectSystem else { return Self.derived(FHIRSystem.subjects, tenant) }
        return subjectSystem.replacing(Self.tenantPlaceholder, with: Self.percentEncoded(tenant))
    }

    /// The code system of `tenant`'s custom exercises: `urn:uuid:` and the version 5 UUID of the tenant's name in the
    /// namespace ``FHIRSystem/exercises``.
    /// - Parameter tenant: The tenant.
    public static func customExerciseSystem(tenant: String) -> String { derived(FHIRSystem.exercises, tenant) }

    /// The `fullUrl` of a session's entry: `urn:uuid:` and the version 5 UUID of its id in the namespace
    /// ``FHIRSystem/sessions``.
    /// - Parameter session: The session id.
    static func entry(session: String) -> String { derived(FHIRSystem.sessions, session) }

    /// Why a ``subjectSystem`` is refused, nil when it is taken: it must be an absolute URI (a scheme, `:`, more),
    /// without spaces, control characters, `|` (which separates system and value in a FHIR search) or braces other
    /// than ``tenantPlaceholder``, and at most ``maxSubjectSystemBytes`` long.
    /// - Parameter text: The flag's value.
    public static func problem(withSubjectSystem text: String) -> String? {
        guard !text.isEmpty, text.utf8.count <= maxSubjectSystemBytes else {
            return "1 to \(maxSubjectSystemBytes) bytes"
        }
        let rest = Array(text.replacing(tenantPlaceholder, with: "x").utf8)
        guard let colon = rest.firstIndex(of: UInt8(ascii: ":")), colon > 0, colon + 1 < rest.count,
            Self.isLetter(rest[0]),
            rest[..<colon].allSatisfy({
                Self.isLetter($0) || ($0 >= 0x30 && $0 <= 0x39) || $0 == 0x2B || $0 == 0x2D || $0 == 0x2E
            })
        else { return "an absolute URI with a scheme, e.g. https://clinic.example/patients or urn:oid:1.2.3" }
        guard !rest.contains(where: { $0 <= 0x20 || $0 == 0x7F || $0 == 0x7C || $0 == 0x7B || $0 == 0x7D }) else {
            return "a URI without spaces, control characters, | or braces (but {tenant})"
        }
        return nil
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= 0x61 && (byte | 0x20) <= 0x7A }

    private static func derived(_ namespace: String, _ name: String) -> String {
        // The namespaces are constants: a failure here is a broken constant, which a test would catch.
        "urn:uuid:"
            + (NameBasedUUID.version5(namespace: namespace, name: name) ?? "00000000-0000-0000-0000-000000000000")
    }

    /// RFC 3986 §2.1: every byte but the unreserved characters as `%XX`.
    static func percentEncoded(_ text: String) -> String {
        let digits = Array("0123456789ABCDEF".utf8)
        var encoded: [UInt8] = []
        for byte in text.utf8 {
            let unreserved =
                isLetter(byte) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2D || byte == 0x2E || byte == 0x5F
                || byte == 0x7E
            if unreserved {
                encoded.append(byte)
            } else {
                encoded += [UInt8(ascii: "%"), digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
            }
        }
        return String(decoding: encoded, as: UTF8.self)
    }
}
