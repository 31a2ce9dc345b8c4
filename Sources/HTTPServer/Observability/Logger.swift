import Glibc
import Synchronization

/// How severe a log line is.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case debug, info, notice, warning, error

    /// Parses `debug`, `info`, `notice`, `warning` or `error`.
    /// - Parameter name: The level's name.
    public init?(name: String) {
        guard let level = Self.allCases.first(where: { "\($0)" == name.lowercased() }) else { return nil }
        self = level
    }

    /// Orders by severity.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Structured log lines (`level=info msg="…" key=value …`) on standard error, one `write` per line.
public struct Logger: Sendable {
    /// The least severe level written.
    public var level: LogLevel

    /// Creates a logger.
    /// - Parameter level: The least severe level written.
    public init(level: LogLevel = .info) { self.level = level }

    /// Writes a line when `level` is severe enough.
    /// - Parameters:
    ///   - level: The line's severity.
    ///   - message: What happened.
    ///   - fields: Extra key/value pairs, in order.
    public func log(
        _ level: LogLevel, _ message: @autoclosure () -> String, _ fields: KeyValuePairs<String, String> = [:]
    ) {
        guard level >= self.level else { return }
        var line = "level=\(level) msg=\(Self.quote(message()))"
        for (key, value) in fields { line += " \(key)=\(Self.quote(value))" }
        line += "\n"
        _ = line.utf8CString.withUnsafeBufferPointer { write(2, $0.baseAddress, $0.count - 1) }
    }

    private static func quote(_ value: String) -> String {
        let plain = !value.isEmpty && value.utf8.allSatisfy { $0 > 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x3D }
        return plain ? value : "\"" + JSONText.escape(value) + "\""
    }
}
