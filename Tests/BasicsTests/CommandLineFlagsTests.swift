import Basics
import Testing

@Suite struct CommandLineFlagsTests {
    static let flags = CommandLineFlags([
        .value("port", environment: "TEST_PORT"), .value("host", environment: "TEST_HOST"), .value("name"),
        .boolean("verbose", environment: "TEST_VERBOSE"), .boolean("dry-run"),
    ])

    static func parse(
        _ arguments: [String], environment: [String: String] = [:], takesArguments: Bool = false
    ) throws(FlagError) -> CommandLineFlags.Parsed {
        let flags =
            takesArguments
            ? CommandLineFlags([.value("port"), .boolean("verbose")], takesArguments: true) : Self.flags
        return try flags.parse(arguments, environment: environment)
    }

    /// The message `arguments` are refused with, or nil when they are read.
    static func refusal(_ arguments: [String], takesArguments: Bool = false) -> String? {
        do {
            _ = try parse(arguments, takesArguments: takesArguments)
            return nil
        } catch {
            return error.message
        }
    }

    static func flag(_ name: String, _ value: String = "") -> Flag { Flag(name: name, value: value) }

    @Test func readsSeparateAndInlineValuesAndBooleans() throws {
        let parsed = try Self.parse(["--port", "80", "--host=::1", "--verbose", "--name=a=b", "--dry-run"])
        #expect(
            parsed.flags == [
                Self.flag("port", "80"), Self.flag("host", "::1"), Self.flag("verbose"), Self.flag("name", "a=b"),
                Self.flag("dry-run"),
            ])
        #expect(parsed.arguments.isEmpty && !parsed.wantsHelp)
        let empty = try Self.parse([])
        #expect(empty.flags.isEmpty && empty.arguments.isEmpty && !empty.wantsHelp)
    }

    @Test func keepsValuesAsGiven() throws {
        #expect(try Self.parse(["--name="]).flags == [Self.flag("name", "")], "an empty inline value is a value")
        #expect(try Self.parse(["--name", ""]).flags == [Self.flag("name", "")])
        #expect(try Self.parse(["--name", " x "]).flags == [Self.flag("name", " x ")], "not trimmed")
        #expect(try Self.parse(["--name", "-1"]).flags == [Self.flag("name", "-1")], "one dash is a value")
        #expect(try Self.parse(["--name", "-"]).flags == [Self.flag("name", "-")])
        #expect(try Self.parse(["--name=--port"]).flags == [Self.flag("name", "--port")], "inline, anything goes")
        #expect(try Self.parse(["--name", "é=日本"]).flags == [Self.flag("name", "é=日本")])
    }

    @Test func keepsRepeatedFlagsInOrderSoTheLastWins() throws {
        let parsed = try Self.parse(["--port", "1", "--verbose", "--port=2", "--verbose"])
        #expect(
            parsed.flags == [
                Self.flag("port", "1"), Self.flag("verbose"), Self.flag("port", "2"), Self.flag("verbose"),
            ])
    }

    @Test(arguments: [
        (["--nope"], "unknown flag --nope"),
        (["--nope=1"], "unknown flag --nope"),
        (["--Port", "1"], "unknown flag --Port"),
        (["--"], "unknown flag --"),
        (["--=1"], "unknown flag --"),
        (["---port", "1"], "unknown flag ---port"),
        (["-port", "1"], "unexpected argument '-port'"),
        (["serve"], "unexpected argument 'serve'"),
        ([""], "unexpected argument ''"),
        (["--port"], "--port needs a value"),
        (["--port", "--verbose"], "--port needs a value"),
        (["--port", "--"], "--port needs a value"),
        (["--host", "h", "--name"], "--name needs a value"),
        (["--verbose=no"], "--verbose takes no value"),
        (["--verbose="], "--verbose takes no value"),
        (["--port", "1", "extra"], "unexpected argument 'extra'"),
    ])
    func refusesMalformedCommandLinesNamingTheFlag(arguments: [String], message: String) {
        #expect(Self.refusal(arguments) == message)
    }

    @Test func stopsAtHelp() throws {
        for help in ["--help", "-h"] {
            let parsed = try Self.parse(["--port", "1", help, "--nope", "stray"])
            #expect(parsed.wantsHelp)
            #expect(parsed.flags == [Self.flag("port", "1")], "what follows help is not read")
        }
        #expect(Self.refusal(["--nope", "--help"]) == "unknown flag --nope", "what comes before is")
    }

    @Test func readsTheEnvironmentFirstSoAFlagWins() throws {
        let environment = [
            "TEST_PORT": "7000", "TEST_HOST": "", "TEST_VERBOSE": "YES", "OTHER": "--port 1", "port": "9",
        ]
        let parsed = try Self.parse(["--port", "7001"], environment: environment)
        #expect(parsed.flags == [Self.flag("port", "7000"), Self.flag("verbose"), Self.flag("port", "7001")])
        for off in ["0", "no", "false", "", "2", "on"] {
            #expect(try Self.parse([], environment: ["TEST_VERBOSE": off]).flags.isEmpty, "\(off)")
        }
        for on in ["1", "true", "TRUE", "yes"] {
            #expect(try Self.parse([], environment: ["TEST_VERBOSE": on]).flags == [Self.flag("verbose")])
        }
        // By flag name, whatever the dictionary's order: the same environment always fails the same way.
        #expect(
            try Self.parse([], environment: ["TEST_PORT": "1", "TEST_HOST": "h"]).flags == [
                Self.flag("host", "h"), Self.flag("port", "1"),
            ])
    }

    @Test func takesPositionalArgumentsAndEverythingAfterTheDoubleDash() throws {
        let parsed = try Self.parse(
            ["a", "--port", "1", "b", "--", "--verbose", "--nope", "-h"], takesArguments: true)
        #expect(parsed.flags == [Self.flag("port", "1")])
        #expect(parsed.arguments == ["a", "b", "--verbose", "--nope", "-h"])
        #expect(try Self.parse(["--"], takesArguments: true).arguments.isEmpty)
        #expect(Self.refusal(["--nope", "a"], takesArguments: true) == "unknown flag --nope")
        #expect(Self.refusal(["--port", "--", "a"], takesArguments: true) == "--port needs a value")
    }
}

@Suite struct FlagValueTests {
    static func refusal(_ body: () throws -> Void) -> String? {
        do {
            try body()
            return nil
        } catch {
            return (error as? FlagError)?.message ?? "\(error)"
        }
    }

    @Test func readsWholeNumbersInARange() throws {
        #expect(try Flag(name: "port", value: "65535").integer(in: 0...65535) == 65535)
        #expect(try Flag(name: "port", value: "+80").integer(in: 0...65535) == 80)
        #expect(try Flag(name: "n", value: "-3").integer(in: -5...5) == -3)
        for bad in ["65536", "-1", "", " 80", "80 ", "0x50", "1e3", "8.0", "99999999999999999999999", "eighty"] {
            #expect(
                Self.refusal { _ = try Flag(name: "port", value: bad).integer(in: 0...65535) }
                    == "--port must be 0…65535, got '\(bad)'")
        }
        #expect(
            Self.refusal { _ = try Flag(name: "sessions", value: "0").integer(in: 1...Int.max) }
                == "--sessions must be a whole number ≥ 1, got '0'")
    }

    @Test func readsFiniteNumbersInARange() throws {
        #expect(try Flag(name: "rate", value: "60.5").number(in: 1...100_000) == 60.5)
        #expect(try Flag(name: "rate", value: "1e3").number(in: 1...100_000) == 1000)
        for bad in ["0.5", "100001", "nan", "inf", "-inf", "1e400", "", "1,5", "fast"] {
            #expect(
                Self.refusal { _ = try Flag(name: "rate", value: bad).number(in: 1...100_000) }
                    == "--rate must be 1…100000, got '\(bad)'")
        }
        #expect(
            Self.refusal { _ = try Flag(name: "t", value: "inf").number(in: 0...Double.infinity) }
                == "--t must be a number ≥ 0, got 'inf'")
        #expect(
            Self.refusal { _ = try Flag(name: "t", value: "2").number(in: 0.001...1.5) }
                == "--t must be 0.001…1.5, got '2'")
    }

    @Test func namesTheFlagAndTheValueOfAnyOtherRefusal() {
        #expect(
            Flag(name: "log-level", value: "loud").invalid("debug or info").message
                == "--log-level must be debug or info, got 'loud'")
    }
}
