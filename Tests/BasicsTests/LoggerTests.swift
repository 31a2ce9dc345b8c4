import Testing

@testable import Basics

@Suite struct LoggerTests {
    static func line(_ message: String, _ fields: KeyValuePairs<String, String> = [:]) -> String {
        String(decoding: Logger.line(.info, message, fields), as: UTF8.self)
    }

    @Test func writesBareWordsAsTheyAre() {
        #expect(
            Self.line("request", ["path": "/v1/exercises", "status": "200"])
                == "level=info msg=request path=/v1/exercises status=200\n")
        #expect(String(decoding: Logger.line(.warning, "x", [:]), as: UTF8.self) == "level=warning msg=x\n")
    }

    @Test func quotesWhatAReaderCouldMisread() {
        #expect(Self.line("client stopped reading; closing") == "level=info msg=\"client stopped reading; closing\"\n")
        #expect(
            Self.line("m", ["a": "", "b": "x=y", "c": "say \"hi\"", "d": "é"])
                == #"level=info msg=m a="" b="x=y" c="say \"hi\"" d="é""# + "\n")
        #expect(Self.line("m", ["e": "\u{7F}"]) == "level=info msg=m e=\"\u{7F}\"\n")
    }

    @Test func neverBreaksALine() {
        #expect(
            Self.line("a\nb", ["v": "\r\t\u{0}\u{8}\u{C}\u{1B}[31m"])
                == #"level=info msg="a\nb" v="\r\t\u0000\b\f\u001b[31m""# + "\n")
    }

    @Test func writesOnlySevereEnoughLevels() {
        #expect(LogLevel(name: "WARNING") == .warning)
        #expect(LogLevel(name: "verbose") == nil)
        #expect(LogLevel.allCases.map(\.name) == ["debug", "info", "notice", "warning", "error"])
        #expect(LogLevel.allCases.allSatisfy { LogLevel(name: $0.name) == $0 })
        #expect(LogLevel.debug < .info && LogLevel.warning < .error)
    }

    /// A line built field by field reads as ``Logger/log(_:_:_:)`` writes it; numbers go in as decimals.
    @Test func buildsLinesFieldByField() {
        var line = LogLine(.notice, "request")
        line.field("path", "/a b")
        line.field("status", 200)
        line.field("zero", 0)
        line.field("negative", -42)
        line.field("least", Int.min)
        line.field("most", Int.max)
        let text = line.text + [0x0A]
        #expect(
            String(decoding: text, as: UTF8.self)
                == #"level=notice msg=request path="/a b" status=200 zero=0 negative=-42 "#
                + "least=\(Int.min) most=\(Int.max)\n")
        #expect(
            text
                == Logger.line(
                    .notice, "request",
                    [
                        "path": "/a b", "status": "200", "zero": "0", "negative": "-42", "least": "\(Int.min)",
                        "most": "\(Int.max)",
                    ]))
    }
}
