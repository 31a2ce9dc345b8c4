import Glibc

/// How severe a log line is.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case debug, info, notice, warning, error

    /// Parses `debug`, `info`, `notice`, `warning` or `error`, in any case.
    /// - Parameter name: The level's name.
    public init?(name: String) {
        guard let level = Self.allCases.first(where: { "\($0)" == name.lowercased() }) else { return nil }
        self = level
    }

    /// Orders by severity.
    public static func < (lhs: LogLevel, rhs: LogLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// Structured log lines on standard error, written by ``LogWriter/standardError``'s thread so that logging never
/// blocks the caller: `level=info msg=request path=/v1/exercises`.
///
/// A message or value is written as it is when it is printable ASCII without spaces, `"` or `=`; otherwise it is
/// quoted and escaped as a JSON string, so a line never breaks and parses back. Keys are written as they are.
///
/// ```swift
/// let logger = Logger(level: .notice)
/// logger.log(.warning, "client stopped reading; closing", ["peer": "127.0.0.1:50312"])
/// // level=warning msg="client stopped reading; closing" peer=127.0.0.1:50312
/// ```
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
        LogWriter.standardError.write(Self.line(level, message(), fields))
    }

    /// The line ``log(_:_:_:)`` writes, with its newline.
    static func line(_ level: LogLevel, _ message: String, _ fields: KeyValuePairs<String, String>) -> [UInt8] {
        var line: [UInt8] = []
        line.append(contentsOf: "level=\(level) msg=".utf8)
        append(message, to: &line)
        for (key, value) in fields {
            line.append(0x20)
            line.append(contentsOf: key.utf8)
            line.append(0x3D)
            append(value, to: &line)
        }
        line.append(0x0A)
        return line
    }

    /// Appends `value` bare when it is printable ASCII without space, `"` and `=`, quoted and escaped otherwise.
    private static func append(_ value: String, to line: inout [UInt8]) {
        if !value.isEmpty && value.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != 0x22 && $0 != 0x3D }) {
            line.append(contentsOf: value.utf8)
        } else {
            line.append(0x22)
            line.appendJSONEscaped(value)
            line.append(0x22)
        }
    }
}
