import Glibc
import PortableBasics

/// How severe a log line is.
public enum LogLevel: Int, Sendable, Comparable, CaseIterable {
    case debug, info, notice, warning, error

    /// Parses `debug`, `info`, `notice`, `warning` or `error`, in any case.
    /// - Parameter name: The level's name.
    public init?(name: String) {
        guard let level = Self.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
        self = level
    }

    /// The level's name as written in log lines and flags: `debug`, `info`, `notice`, `warning` or `error`.
    public var name: String {
        switch self {
        case .debug: "debug"
        case .info: "info"
        case .notice: "notice"
        case .warning: "warning"
        case .error: "error"
        }
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

    /// Writes a line built field by field (for lines written often, such as one per request: numbers go in without
    /// becoming Strings), whatever the logger's level; check ``level`` before building it.
    /// - Parameter line: The line.
    public func write(_ line: LogLine) {
        LogWriter.standardError.write(line)
    }

    /// The line ``log(_:_:_:)`` writes, with its newline.
    static func line(_ level: LogLevel, _ message: String, _ fields: KeyValuePairs<String, String>) -> [UInt8] {
        var line = LogLine(level, message)
        for (key, value) in fields { line.field(key, value) }
        return line.bytes
    }
}

/// One log line in ``Logger``'s format, built field by field: `level=info msg=request status=200`.
///
/// ```swift
/// var line = LogLine(.info, "request")
/// line.field("path", request.path)
/// line.field("status", 200)
/// logger.write(line)
/// ```
public struct LogLine: Sendable {
    /// The line without its newline.
    private(set) var text: [UInt8] = []

    /// Starts a line.
    /// - Parameters:
    ///   - level: Its severity.
    ///   - message: What happened.
    public init(_ level: LogLevel, _ message: String) {
        text.reserveCapacity(160)
        text.append(contentsOf: "level=".utf8)
        text.append(contentsOf: level.name.utf8)
        text.append(contentsOf: " msg=".utf8)
        Self.append(message, to: &text)
    }

    /// Adds `key=value`, the value quoted and escaped unless it is printable ASCII without space, `"` and `=`.
    public mutating func field(_ key: String, _ value: String) {
        startField(key)
        Self.append(value, to: &text)
    }

    /// Adds `key=value` for a number.
    public mutating func field(_ key: String, _ value: Int) {
        startField(key)
        if value < 0 { text.append(0x2D) }
        guard value != .min else { return text.append(contentsOf: String(value).dropFirst().utf8) }
        text.appendDecimal(abs(value))
    }

    /// The line's bytes, with its newline.
    public var bytes: [UInt8] {
        var bytes = text
        bytes.append(0x0A)
        return bytes
    }

    private mutating func startField(_ key: String) {
        text.append(0x20)
        text.append(contentsOf: key.utf8)
        text.append(0x3D)
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
