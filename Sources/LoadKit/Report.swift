import Basics

/// Output for command-line load tools without Foundation: whole lines to stdout, messages to stderr, and the
/// pieces of flat JSON objects.
public enum Report {
    /// Writes `text` and a newline to stdout.
    /// - Parameter text: One line.
    public static func line(_ text: String) { Console.line(text) }

    /// Writes `text` and a newline to stderr.
    /// - Parameter text: One line.
    public static func error(_ text: String) { Console.error(text) }

    /// A JSON object from already-encoded values, in the given order.
    /// - Parameter fields: Names and their JSON-encoded values.
    /// - Returns: `{"name":value,…}`.
    public static func json(_ fields: [(String, String)]) -> String {
        "{" + fields.map { "\"\($0.0)\":\($0.1)" }.joined(separator: ",") + "}"
    }

    /// A JSON string literal (control characters become spaces).
    /// - Parameter text: Any text.
    /// - Returns: The quoted, escaped text.
    public static func string(_ text: String) -> String {
        let spaced = String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 ? " " : $0 }))
        var bytes: [UInt8] = []
        bytes.appendJSONString(spaced)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// A number with a fixed count of decimals, or `null` when not finite (no Foundation formatting).
    /// - Parameters:
    ///   - value: The number.
    ///   - places: Decimals, 0–9.
    /// - Returns: For example `12.500`.
    public static func fixed(_ value: Double, _ places: Int = 3) -> String {
        guard value.isFinite else { return "null" }
        var scale = 1.0
        for _ in 0..<places { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        guard scaled < 9e18 else { return "\(value)" }
        let integer = UInt64(scaled)
        let divisor = UInt64(scale)
        var text = "\(integer / divisor)"
        if places > 0 {
            let fraction = "\(integer % divisor)"
            text += "." + String(repeating: "0", count: places - fraction.count) + fraction
        }
        return (value < 0 && integer != 0 ? "-" : "") + text
    }

    /// Nanoseconds as milliseconds with three decimals.
    /// - Parameter nanoseconds: A duration.
    /// - Returns: For example `1.250`.
    public static func milliseconds(_ nanoseconds: UInt64) -> String { fixed(Double(nanoseconds) / 1e6) }

    /// Counts by name as a JSON object, largest first, at most `limit` entries.
    /// - Parameters:
    ///   - counts: Counts by name.
    ///   - limit: Entries kept.
    /// - Returns: For example `{"rateLimited":3}`.
    public static func counts(_ counts: [String: Int], limit: Int = 8) -> String {
        let sorted = counts.sorted { $0.value != $1.value ? $0.value > $1.value : $0.key < $1.key }.prefix(limit)
        return "{" + sorted.map { "\(string($0.key)):\($0.value)" }.joined(separator: ",") + "}"
    }
}
