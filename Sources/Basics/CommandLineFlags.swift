import Glibc

/// The flags a command accepts, and the one reading of a command line against them: `--name value`,
/// `--name=value`, boolean flags, `--help` (or `-h`), `--` before positional arguments, and an environment
/// variable behind any flag.
///
/// The parser checks the shape of the command line; what a value means is the command's to check, with
/// ``Flag/integer(in:)``, ``Flag/number(in:)`` or ``Flag/invalid(_:)`` for the error.
///
/// ```swift
/// let flags = CommandLineFlags([.value("port", environment: "MOTION_PORT"), .boolean("verbose")])
/// let parsed = try flags.parse(["--port=9000", "--verbose"], environment: [:])
/// for flag in parsed.flags {
///     switch flag.name {
///     case "port": port = try flag.integer(in: 0...65535)
///     default: verbose = true
///     }
/// }
/// ```
public struct CommandLineFlags: Sendable {
    /// One flag a command accepts.
    public struct Declaration: Sendable {
        /// The name without the leading `--`.
        public let name: String
        /// Whether it takes a value (`--port 80`) or stands alone (`--verbose`).
        public let takesValue: Bool
        /// The environment variable read when the command line does not give the flag.
        public let environment: String?

        /// A flag with a value.
        /// - Parameters:
        ///   - name: The name without the leading `--`.
        ///   - environment: The variable behind it; an empty one counts as unset.
        public static func value(_ name: String, environment: String? = nil) -> Declaration {
            Declaration(name: name, takesValue: true, environment: environment)
        }

        /// A flag without a value: on when given, off otherwise.
        /// - Parameters:
        ///   - name: The name without the leading `--`.
        ///   - environment: The variable behind it: `1`, `true` or `yes` (in any case) turn the flag on, anything
        ///     else leaves it off.
        public static func boolean(_ name: String, environment: String? = nil) -> Declaration {
            Declaration(name: name, takesValue: false, environment: environment)
        }
    }

    /// What a command line said.
    public struct Parsed: Sendable, Equatable {
        /// The flags, first those from the environment (by flag name), then the command line's in order: applied
        /// in order, a later one wins, so a flag on the command line wins over its variable and the last of a
        /// repeated flag wins.
        public var flags: [Flag] = []
        /// The positional arguments, in order (always empty for a command that takes none).
        public var arguments: [String] = []
        /// Whether `--help` or `-h` was given; what follows it is not read.
        public var wantsHelp = false
    }

    private let declarations: [String: Declaration]
    private let takesArguments: Bool

    /// Declares a command's flags.
    /// - Parameters:
    ///   - declarations: The flags; the names must differ.
    ///   - takesArguments: Whether the command takes positional arguments. Without them, a word that is not a
    ///     flag is an error, and so is `--`.
    public init(_ declarations: [Declaration], takesArguments: Bool = false) {
        self.declarations = Dictionary(declarations.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        self.takesArguments = takesArguments
    }

    /// Reads a command line.
    ///
    /// A value is the rest of its argument after the first `=` (`--database=a=b` is `a=b`, `--public=` empty), or
    /// else the next argument, unless that one starts with `--`: `--port --threads 4` is a missing value, not
    /// port `--threads`. A value starting with `--` can still be given as `--name=--value`.
    /// - Parameters:
    ///   - arguments: The command line without the program name.
    ///   - environment: The process environment (``ProcessEnvironment/variables()``), for the flags that have a
    ///     variable.
    /// - Returns: The flags, arguments and whether help was asked for.
    /// - Throws: ``FlagError`` for an unknown flag, a missing value, a value given to a boolean flag, or a
    ///   positional argument (or `--`) where the command takes none.
    public func parse(_ arguments: [String], environment: [String: String] = [:]) throws(FlagError) -> Parsed {
        var parsed = Parsed()
        for declaration in declarations.values.sorted(by: { $0.name < $1.name }) {
            guard let variable = declaration.environment, let value = environment[variable], !value.isEmpty else {
                continue
            }
            if declaration.takesValue {
                parsed.flags.append(Flag(name: declaration.name, value: value))
            } else if ["1", "true", "yes"].contains(value.lowercased()) {
                parsed.flags.append(Flag(name: declaration.name, value: ""))
            }
        }
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            index += 1
            if argument == "--help" || argument == "-h" {
                parsed.wantsHelp = true
                return parsed
            }
            if argument == "--" && takesArguments {
                parsed.arguments += arguments[index...]
                return parsed
            }
            guard argument.hasPrefix("--") else {
                guard takesArguments else { throw FlagError(message: "unexpected argument '\(argument)'") }
                parsed.arguments.append(argument)
                continue
            }
            var name = Substring(argument.dropFirst(2))
            var inline: Substring?
            if let equals = name.firstIndex(of: "=") {
                inline = name[name.index(after: equals)...]
                name = name[..<equals]
            }
            guard let declaration = declarations[String(name)] else {
                throw FlagError(message: "unknown flag --\(name)")
            }
            guard declaration.takesValue else {
                guard inline == nil else { throw FlagError(message: "--\(name) takes no value") }
                parsed.flags.append(Flag(name: declaration.name, value: ""))
                continue
            }
            if let inline {
                parsed.flags.append(Flag(name: declaration.name, value: String(inline)))
            } else if index < arguments.endIndex, !arguments[index].hasPrefix("--") {
                parsed.flags.append(Flag(name: declaration.name, value: arguments[index]))
                index += 1
            } else {
                throw FlagError(message: "--\(name) needs a value")
            }
        }
        return parsed
    }
}

/// One flag as given: its name, and its value (empty for a boolean flag).
public struct Flag: Sendable, Equatable {
    /// The name without the leading `--`.
    public let name: String
    /// The value as given, not trimmed; empty for a boolean flag.
    public let value: String

    /// Creates a flag.
    /// - Parameters:
    ///   - name: The name without the leading `--`.
    ///   - value: The value.
    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }

    /// The error for a value the flag cannot take: `--NAME must be EXPECTED, got 'VALUE'`.
    /// - Parameter expected: What a good value is, e.g. `debug, info or error`.
    /// - Returns: The error, to throw.
    public func invalid(_ expected: String) -> FlagError {
        FlagError(message: "--\(name) must be \(expected), got '\(value)'")
    }

    /// The value as a whole number within `range`, decimal, with an optional sign.
    /// - Parameter range: The numbers allowed; an upper bound of `Int.max` reads as no bound.
    /// - Returns: The number.
    /// - Throws: ``invalid(_:)`` naming the range (`--threads must be 1…256, got '0'`).
    public func integer(in range: ClosedRange<Int>) throws(FlagError) -> Int {
        guard let number = Int(value), range.contains(number) else {
            throw invalid(
                range.upperBound == .max
                    ? "a whole number ≥ \(range.lowerBound)" : "\(range.lowerBound)…\(range.upperBound)")
        }
        return number
    }

    /// The value as a finite number within `range` (what `Double(_:)` reads: `1.5`, `1e3`, not `nan` or `inf`).
    /// - Parameter range: The numbers allowed; an upper bound of infinity reads as no bound.
    /// - Returns: The number.
    /// - Throws: ``invalid(_:)`` naming the range (`--rate must be 1…100000, got '0.5'`).
    public func number(in range: ClosedRange<Double>) throws(FlagError) -> Double {
        guard let number = Double(value), number.isFinite, range.contains(number) else {
            throw invalid(
                range.upperBound == .infinity
                    ? "a number ≥ \(Self.format(range.lowerBound))"
                    : "\(Self.format(range.lowerBound))…\(Self.format(range.upperBound))")
        }
        return number
    }

    /// A bound as a reader writes it: `100000`, not `100000.0`.
    private static func format(_ value: Double) -> String {
        value == value.rounded() && abs(value) < 1e15 ? String(Int64(value)) : "\(value)"
    }
}

/// Why a command line could not be read: a message that names the flag, e.g. `--port needs a value`.
public struct FlagError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What was wrong.
    public var message: String

    /// Creates an error.
    /// - Parameter message: What was wrong, naming the flag.
    public init(message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}

/// The process's environment variables, read without Foundation.
public enum ProcessEnvironment {
    /// Every variable, by name (a name given twice keeps its last value).
    public static func variables() -> [String: String] {
        var values: [String: String] = [:]
        var pointer = environ
        while let entry = pointer.pointee {
            let text = String(cString: entry)
            if let equals = text.firstIndex(of: "=") {
                values[String(text[..<equals])] = String(text[text.index(after: equals)...])
            }
            pointer += 1
        }
        return values
    }
}
