import Testing

@testable import MotionCore
@testable import MotionWire

@Suite struct RESTEncoderTests {
    private static func encode(_ body: (inout [UInt8]) -> Void) -> String {
        var buffer: [UInt8] = []
        body(&buffer)
        return text(buffer)
    }

    private static let refused: [(batchIndex: Int?, error: WireError)] = [
        (2, WireError(code: .invalidPose, message: "frames[2]: t is required"))
    ]

    @Test func encodesTheCatalogAsAnArrayOfEntries() {
        let one = Self.encode { WireEncoder.encodeExercise(Exercise.catalog[0], into: &$0) }
        let two = Self.encode { WireEncoder.encodeExercise(Exercise.catalog[1], into: &$0) }
        #expect(
            Self.encode { WireEncoder.encodeCatalog(Array(Exercise.catalog.prefix(2)), into: &$0) }
                == #"{"exercises":["# + one + "," + two + "]}")
        #expect(Self.encode { WireEncoder.encodeCatalog([], into: &$0) } == #"{"exercises":[]}"#)
    }

    @Test func encodesACatalogFromEntriesEncodedBeforeAndMore() {
        let one = Self.encode { WireEncoder.encodeExercise(Exercise.catalog[0], into: &$0) }
        let two = Self.encode { WireEncoder.encodeExercise(Exercise.catalog[1], into: &$0) }
        let three = Self.encode { WireEncoder.encodeExercise(Exercise.catalog[2], into: &$0) }
        var entries: [UInt8] = []
        WireEncoder.encodeCatalogEntries(Array(Exercise.catalog.prefix(2)), into: &entries)
        #expect(String(decoding: entries, as: UTF8.self) == one + "," + two)
        let catalog = { (entries: [UInt8], more: [Exercise]) in
            Self.encode { WireEncoder.encodeCatalog(entries: entries, then: more, into: &$0) }
        }
        #expect(catalog(entries, [Exercise.catalog[2]]) == #"{"exercises":["# + one + "," + two + "," + three + "]}")
        #expect(catalog(entries, []) == #"{"exercises":["# + one + "," + two + "]}")
        #expect(
            catalog([], [Exercise.catalog[2], Exercise.catalog[0]]) == #"{"exercises":["# + three + "," + one + "]}")
        #expect(catalog([], []) == #"{"exercises":[]}"#)
    }

    @Test func encodesTheCreatedSessionsId() {
        #expect(Self.encode { WireEncoder.encodeCreated(id: "a\"b", into: &$0) } == #"{"id":"a\"b"}"#)
    }

    @Test func encodesABatchAnswerWithErrorsOnlyWhenFramesWereRefused() {
        let snapshot = Self.encode { WireEncoder.encodeSnapshot(EncoderTests.snapshot, into: &$0) }
        #expect(
            Self.encode {
                WireEncoder.encodeBatchAnswer(events: [], snapshot: EncoderTests.snapshot, errors: [], into: &$0)
            } == #"{"events":[],"snapshot":"# + snapshot + "}")
        #expect(
            Self.encode {
                WireEncoder.encodeBatchAnswer(
                    events: [], snapshot: EncoderTests.snapshot, errors: Self.refused, into: &$0)
            }
                == #"{"events":[],"snapshot":"# + snapshot
                + #","errors":[{"code":"invalidPose","message":"frames[2]: t is required","batchIndex":2}]}"#)
    }

    @Test func encodesAnAnalysisWithEventsSummaryAndErrors() {
        let summary = Self.encode {
            WireEncoder.encodeSummary(EncoderTests.summary, metadata: EncoderTests.metadata, into: &$0)
        }
        let events = Self.encode { WireEncoder.encodeEvents([(t: 5.0, event: .holdStarted)], into: &$0) }
        #expect(
            Self.encode {
                WireEncoder.encodeAnalysis(
                    events: [(t: 5.0, event: .holdStarted)], summary: EncoderTests.summary,
                    metadata: EncoderTests.metadata, errors: Self.refused, into: &$0)
            }
                == #"{"events":"# + events + #","summary":"# + summary
                + #","errors":[{"code":"invalidPose","message":"frames[2]: t is required","batchIndex":2}]}"#)
    }

    @Test func encodesASessionPageWithItsCursorOrNull() {
        let page = Self.encode { buffer in
            WireEncoder.encodeSessionPage(count: 2, next: "c1", into: &buffer) { index, buffer in
                buffer.appendLiteral("{}")
                buffer.appendJSONInteger(index)
            }
        }
        #expect(page == #"{"sessions":[{}0,{}1],"next":"c1"}"#)
        #expect(
            Self.encode { WireEncoder.encodeSessionPage(count: 0, next: nil, into: &$0) { _, _ in } }
                == #"{"sessions":[],"next":null}"#)
    }

    @Test func writesTheTotalAfterTheCursorOnlyWhenGiven() {
        #expect(
            Self.encode { WireEncoder.encodeSessionPage(count: 0, next: "c2", total: 137, into: &$0) { _, _ in } }
                == #"{"sessions":[],"next":"c2","total":137}"#)
        #expect(
            Self.encode { WireEncoder.encodeSessionPage(count: 0, next: nil, total: 0, into: &$0) { _, _ in } }
                == #"{"sessions":[],"next":null,"total":0}"#)
    }

    @Test func encodesASeriesWithNullWhereNothingWasMeasured() {
        var series = ValueSeries(interval: 0.5)
        series.record(10, at: 0)
        series.record(nil, at: 0.5)
        series.record(12.25, at: 1)
        #expect(
            Self.encode { WireEncoder.encodeSeries(series, into: &$0) }
                == #"{"interval":0.5,"t":[0.0,0.5,1.0],"value":[10.0,null,12.25]}"#)
        #expect(
            Self.encode { WireEncoder.encodeSeries(ValueSeries(interval: 0.1), into: &$0) }
                == #"{"interval":0.1,"t":[],"value":[]}"#)
    }

    @Test func encodesRepsAsCSVWithCRLFAndFaultsByName() {
        let reps = [
            Rep(index: 1, peak: 130.2, trough: 31.5, start: 3.1, end: 5.0),
            Rep(index: 2, peak: 128, trough: 30, start: 6, end: 8.5, faults: [.keepUpperArmStill, .keepTrunkUpright]),
            Rep(index: 3, peak: 55.5, trough: 12, start: 9, end: 11, timeToPeak: 0.75, side: .left),
            Rep(index: 4, peak: -0.25, trough: 0.5, start: 12, end: 13, timeToPeak: 0.5, side: .right),
            Rep(
                index: 5, peak: 100, trough: 10, start: 14, end: 16,
                motion: RepMotion(smoothness: -1.5, tremor: 0.25, rms: 0.5, covered: 2)),
            Rep(
                index: 6, peak: 100, trough: 10, start: 17, end: 19,
                motion: RepMotion(smoothness: nil, tremor: 0, rms: 0, covered: 2)),
        ]
        let header =
            "index,peak,trough,start,end,duration,clean,faults,range,timeToPeak,side,smoothness,tremor,held\r\n"
        #expect(
            Self.encode { WireEncoder.encodeRepsCSV(reps, into: &$0) }
                == header
                + "1,130.2,31.5,3.1,5.0,1.9,true,,98.69999999999999,,,,,\r\n"
                + "2,128.0,30.0,6.0,8.5,2.5,false,keepUpperArmStill;keepTrunkUpright,98.0,,,,,\r\n"
                + "3,55.5,12.0,9.0,11.0,2.0,true,,43.5,0.75,left,,,\r\n"
                + "4,-0.25,0.5,12.0,13.0,1.0,true,,0.75,0.5,right,,,\r\n"
                + "5,100.0,10.0,14.0,16.0,2.0,true,,90.0,,,-1.5,0.25,\r\n"
                + "6,100.0,10.0,17.0,19.0,2.0,true,,90.0,,,,0.0,\r\n")
        #expect(Self.encode { WireEncoder.encodeRepsCSV([], into: &$0) } == header)
    }

    /// A hold exercise's reps are its completed holds: `held` is the whole time each was kept, past the `duration`
    /// it took to count; a hold broken early has no rep, a hold still under way no time yet.
    @Test func encodesTheTimeEachCompletedHoldWasHeld() {
        let reps = [
            Rep(index: 1, peak: 0.31, trough: 0.05, start: 2.5, end: 12.5),
            Rep(index: 2, peak: 0.3, trough: 0.05, start: 150.25, end: 160.25, faults: [.keepBodyStraight]),
            Rep(index: 3, peak: 0.32, trough: 0.04, start: 200, end: 210),
        ]
        let holds = [
            Hold(start: 2.5, held: 121.03333333333333, completed: true), Hold(start: 140, held: 4.5, completed: false),
            Hold(start: 150.25, held: 10.5, completed: true),
        ]
        let lines = Self.encode { WireEncoder.encodeRepsCSV(reps, holds: holds, into: &$0) }.split(separator: "\r\n")
        #expect(lines.first?.hasSuffix(",tremor,held") == true)
        #expect(lines.count == 4)
        #expect(lines[1] == "1,0.31,0.05,2.5,12.5,10.0,true,,0.26,,,,,121.03333333333333")
        #expect(lines[2].hasSuffix(",false,keepBodyStraight,0.25,,,,,10.5"))
        #expect(lines[3].hasSuffix(",,,,,"), "under way at 200 s: no time held yet")
    }

    @Test func keepsTheFirstVersionsCSVColumnsInTheirPlaces() {
        let rep = Rep(
            index: 7, peak: 90, trough: 10, start: 1, end: 3, timeToPeak: 1, side: .left, faults: [.keepHipsLevel])
        let lines = Self.encode { WireEncoder.encodeRepsCSV([rep], into: &$0) }.split(separator: "\r\n")
        let header = lines[0].split(separator: ",", omittingEmptySubsequences: false)
        let row = lines[1].split(separator: ",", omittingEmptySubsequences: false)
        #expect(Array(header.prefix(8)) == ["index", "peak", "trough", "start", "end", "duration", "clean", "faults"])
        #expect(row.count == header.count)
        #expect(Array(row.prefix(8)) == ["7", "90.0", "10.0", "1.0", "3.0", "2.0", "false", "keepHipsLevel"])
        // No field can start a spreadsheet formula.
        for field in row { #expect(!["=", "+", "@", "\t", "\r"].contains(field.first.map(String.init) ?? "")) }
    }

    @Test func encodesProgressOldestFirstWithNullsAndTheCursor() {
        let entries = [
            ProgressEntry(
                id: "a", startedAt: 1_795_960_800.5, exercise: "squat", status: .finished, best: 92.5, repCount: 10,
                rejectedCount: 1, meanPeak: 88.25, faultCounts: [.keepHipsLevel: 1, .keepTrunkUpright: 3], target: 90),
            ProgressEntry(
                id: "b\"", startedAt: 1_795_964_400, exercise: "hipAbduction", status: .live, best: nil, repCount: 0,
                rejectedCount: 0, meanPeak: nil),
        ]
        #expect(
            Self.encode { WireEncoder.encodeProgress(entries, next: nil, into: &$0) }
                == #"{"sessions":[{"id":"a","startedAt":"2026-11-29T14:00:00Z","exercise":"squat","status":"finished","#
                + #""best":92.5,"repCount":10,"rejectedCount":1,"meanPeak":88.25,"#
                + #""faultCounts":{"keepTrunkUpright":3,"keepHipsLevel":1},"target":90.0},"#
                + #"{"id":"b\"","startedAt":"2026-11-29T15:00:00Z","exercise":"hipAbduction","status":"live","#
                + #""best":null,"repCount":0,"rejectedCount":0,"meanPeak":null,"faultCounts":{},"target":null}],"#
                + #""next":null}"#)
        #expect(
            Self.encode { WireEncoder.encodeProgress([], next: "c1", into: &$0) } == #"{"sessions":[],"next":"c1"}"#)
    }
}
