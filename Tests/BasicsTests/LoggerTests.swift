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
        #expect(LogLevel.allCases.map { "\($0)" } == ["debug", "info", "notice", "warning", "error"])
        #expect(LogLevel.debug < .info && LogLevel.warning < .error)
    }
}
