import Basics
import Testing

@testable import motion_load

/// motion-load's command line: flags, values and their refusals.
@Suite struct LoadOptionsTests {
    static let url = ["--url", "ws://127.0.0.1:8080/v1/stream"]

    static func read(_ arguments: [String], environment: [String: String] = [:]) throws(FlagError) -> LoadOptions? {
        try LoadOptions.read(arguments, environment: environment)
    }

    static func refusal(_ arguments: [String]) -> String? {
        do {
            _ = try read(arguments)
            return nil
        } catch {
            return error.message
        }
    }

    @Test func readsFlagsInBothFormsAndKeepsTheDefaults() throws {
        let options = try #require(
            try Self.read(
                Self.url + [
                    "--sessions=3", "--rate", "60", "--find-capacity", "--quiet", "--server-pid", "42", "--side=left",
                    "--snapshots", "0.5", "--subject", "load test", "--tick-us", "0",
                ]))
        #expect(options.target?.port == 8080)
        #expect(options.sessions == 3 && options.rate == 60 && options.findCapacity && options.quiet)
        #expect(options.serverPID == 42 && options.side == .left && options.snapshots == "0.5")
        #expect(options.subject == "load test" && options.tickMicroseconds == 0)
        #expect(!options.json && !options.poll && options.seconds == 30 && options.exercise == "squat")
    }

    @Test func motionIsOffUnlessAsked() throws {
        #expect(try #require(try Self.read(Self.url)).motion == false)
        #expect(try #require(try Self.read(Self.url + ["--motion"])).motion)
        #expect(Self.refusal(Self.url + ["--motion=yes"]) != nil)
    }

    @Test func motionSamplesGoInBatchesOfThreePosesUnlessTold() throws {
        #expect(try #require(try Self.read(Self.url + ["--motion"])).motionEvery == 3)
        #expect(try #require(try Self.read(Self.url + ["--motion", "--motion-every", "1"])).motionEvery == 1)
        for bad in ["0", "-2", "1.5", "x", "1001"] {
            #expect(Self.refusal(Self.url + ["--motion-every", bad]) != nil, "\(bad)")
        }
    }

    @Test func helpWinsOverWhatFollows() throws {
        #expect(try Self.read(["--help", "--nope"]) == nil)
        #expect(try Self.read(["-h"]) == nil)
    }

    @Test func aTokenComesFromTheFlagOrElseTheEnvironment() throws {
        func authorization(_ arguments: [String], _ environment: [String: String]) throws -> [String] {
            let options = try #require(try Self.read(Self.url + arguments, environment: environment))
            return options.target?.headers.filter { $0.0 == "Authorization" }.map(\.1) ?? []
        }
        #expect(try authorization([], ["MOTION_LOAD_TOKEN": "env"]) == ["Bearer env"])
        #expect(try authorization(["--token", "flag"], ["MOTION_LOAD_TOKEN": "env"]) == ["Bearer flag"])
        #expect(try authorization(["--token="], ["MOTION_LOAD_TOKEN": "env"]).isEmpty, "an empty flag sends none")
        #expect(try authorization([], [:]).isEmpty)
    }

    @Test(arguments: [
        ([], "--url is required"),
        (["--sessions", "0"], "--sessions must be a whole number ≥ 1, got '0'"),
        (["--sessions", "many"], "--sessions must be a whole number ≥ 1, got 'many'"),
        (["--sessions"], "--sessions needs a value"),
        (["--sessions", "--quiet"], "--sessions needs a value"),
        (["--rate", "0"], "--rate must be a number of poses per second above 0, at most 1000, got '0'"),
        (["--rate", "1001"], "--rate must be a number of poses per second above 0, at most 1000, got '1001'"),
        (["--seconds", "nan"], "--seconds must be a number > 0, got 'nan'"),
        (["--seconds", "-1"], "--seconds must be a number > 0, got '-1'"),
        (["--drain-seconds", "inf"], "--drain-seconds must be a number ≥ 0, got 'inf'"),
        (["--side", "up"], "--side must be left or right, got 'up'"),
        (["--snapshots", "sometimes"], "--snapshots must be every, off or a number of seconds, got 'sometimes'"),
        (["--subject="], "--subject must be 1 to 128 bytes, got ''"),
        (["--server-pid", "4294967296"], "--server-pid must be 1…2147483647, got '4294967296'"),
        (["--quiet=yes"], "--quiet takes no value"),
        (["--nope", "1"], "unknown flag --nope"),
        (["stray"], "unexpected argument 'stray'"),
        (["--exercise", "jumpingJacks"], "unknown exercise jumpingJacks; one of"),
        (["--drop-every", "0"], "--drop-every must be a number > 0, got '0'"),
        (["--drop-share", "1.5"], "--drop-share must be"),
    ])
    func refusesBadFlagsNamingThem(arguments: [String], message: String) {
        let url = arguments.isEmpty ? [] : Self.url
        let refusal = Self.refusal(url + arguments)
        #expect(refusal?.hasPrefix(message) == true, "\(refusal ?? "accepted")")
    }

    @Test func refusesABadURL() {
        #expect(Self.refusal(["--url", "http://127.0.0.1/"]) != nil)
    }
}
