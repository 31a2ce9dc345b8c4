import Foundation
import Testing

@testable import MotionCore
@testable import MotionWire

@Suite struct EncoderTests {
    static let rep3 = Rep(index: 3, peak: 142.5, trough: 20, start: 12.1, end: 14.2)
    static let rep4 = Rep(index: 4, peak: 120.0, trough: 25, start: 18.0, end: 20.0, faults: [.keepUpperArmStill])
    /// A rep of an alternating exercise, with its time to peak.
    static let rep5 = Rep(index: 5, peak: 55.5, trough: 12, start: 58, end: 60, timeToPeak: 0.75, side: .left)
    /// A falling exercise's rep: the peak is the lowest value, the range still positive.
    static let falling = Rep(index: 1, peak: -0.25, trough: 0.5, start: 1, end: 2.5, timeToPeak: 0.5)

    private static func encode(_ body: (inout [UInt8]) -> Void) -> String {
        var buffer: [UInt8] = []
        body(&buffer)
        return text(buffer)
    }

    static let snapshot = MotionSnapshot(
        timestamp: 14.2, value: 138.2, best: 142.5, repCount: 3, rejectedCount: 1, lastRep: rep3, holdProgress: nil,
        confidence: 0.88, setupIssues: [], isVisible: true, missingJoints: [], isRunning: true,
        baseline: BaselineStatus(progress: 0.66, value: nil))

    static let summary = SessionSummary(
        exercise: "elbowFlexion", side: .right, firstTimestamp: 10, lastTimestamp: 103.5, frames: 2802,
        visibleFrames: 2718, repCount: 10, rejectedCount: 2, best: 142.5, baseline: 128.0,
        reps: [Rep(index: 1, peak: 130.25, trough: 10, start: 3.5, end: 5.0)],
        faultCounts: [.keepTrunkUpright: 1, .keepUpperArmStill: 2], series: ValueSeries())

    static let metadata = SummaryMetadata(
        id: "s-1", subject: "patient-17", status: .finished, startedAt: 1_795_960_800, endedAt: 1_795_960_893.9)

    // MARK: Golden strings

    @Test func encodesAnEventListAsAnArrayOfEvents() {
        #expect(Self.encode { WireEncoder.encodeEvents([], into: &$0) } == "[]")
        let list = Self.encode {
            WireEncoder.encodeEvents(
                [(t: 1.5, event: .holdStarted), (t: 2, event: .formFault(.keepTrunkUpright))], into: &$0)
        }
        #expect(
            list
                == #"[{"type":"event","t":1.5,"event":"holdStarted"},"#
                + #"{"type":"event","t":2.0,"event":"formFault","fault":"keepTrunkUpright"}]"#)
    }

    @Test func encodesTheResumeWindowAfterTheTokenOnly() {
        let withToken = Self.encode {
            WireEncoder.encodeStarted(
                session: "abc", exercise: .elbowFlexion, resume: "tok", resumeSeconds: 4.5, into: &$0)
        }
        #expect(withToken.hasSuffix(#","resume":"tok","resumeSeconds":4.5}"#))
        let watcher = Self.encode {
            WireEncoder.encodeStarted(session: "abc", exercise: .elbowFlexion, resumeSeconds: 4.5, into: &$0)
        }
        #expect(!watcher.contains("resume"), "a watcher's started has neither")
    }

    @Test func encodesStartedWithTheWholeDefinitionAndTheV1Members() {
        let json = Self.encode { WireEncoder.encodeStarted(session: "abc", exercise: .elbowFlexion, into: &$0) }
        #expect(
            json
                == #"{"type":"started","session":"abc","exercise":{"id":"elbowFlexion","name":"Elbow flexion","#
                + #""view":"sagittal","kind":"rep","sidedness":"oneSided","posture":null,"#
                + #""measurement":{"type":"flexion","joints":["shoulder","elbow","wrist"]},"#
                + #""direction":"rising","unit":"degrees","#
                + #""thresholds":{"rest":30.0,"enter":60.0,"exit":40.0,"minAmplitude":40.0,"minDuration":0.5,"#
                + #""maxDuration":20.0,"holdSeconds":5.0,"holdTolerance":5.0},"target":150.0,"#
                + #""rules":[{"fault":"keepUpperArmStill","#
                + #""measurement":{"type":"angleBetween","segments":["trunk","upperArm"]},"limit":25.0,"#
                + #""relativeToStart":true},{"fault":"keepTrunkUpright","#
                + #""measurement":{"type":"inclination","segment":"trunk"},"limit":15.0,"relativeToStart":false}],"#
                + #""smoothing":{"minCutoff":1.5,"beta":0.02,"derivativeCutoff":1.0},"builtin":true,"version":1,"#
                + #""joints":["shoulder","elbow","wrist"],"holdSeconds":null,"#
                + #""faults":["keepUpperArmStill","keepTrunkUpright"],"#
                + #""names":{"en":"Elbow flexion","es":"Flexión de codo"}}}"#)
    }

    @Test func encodesHoldExercisesWithTheirHoldTime() {
        var exercise = Exercise.shoulderAbductionHold
        exercise.thresholds.holdSeconds = 8
        let json = Self.encode { WireEncoder.encodeExercise(exercise, into: &$0) }
        #expect(json.contains(#""kind":"hold","#))
        #expect(json.contains(#""joints":["neck","root","shoulder","elbow"],"holdSeconds":8.0,"faults":"#))
        #expect(json.contains(#""holdSeconds":8.0,"holdTolerance":7.0},"target":90.0,"#))
    }

    @Test(
        arguments: [
            (
                MotionEvent.repCompleted(rep3), 14.2,
                #"{"type":"event","t":14.2,"event":"repCompleted","rep":{"index":3,"peak":142.5,"start":12.1,"end":14.2,"#
                    + #""duration":2.0999999999999996,"clean":true,"faults":[],"trough":20.0,"range":122.5,"#
                    + #""timeToPeak":null,"side":null}}"#
            ),
            (
                .repRejected(rep4), 20.0,
                #"{"type":"event","t":20.0,"event":"repRejected","rep":{"index":4,"peak":120.0,"start":18.0,"end":20.0,"#
                    + #""duration":2.0,"clean":false,"faults":["keepUpperArmStill"],"trough":25.0,"range":95.0,"#
                    + #""timeToPeak":null,"side":null}}"#
            ),
            (.holdStarted, 30.5, #"{"type":"event","t":30.5,"event":"holdStarted"}"#),
            (
                .holdEnded(Hold(start: 30.5, held: 42.25, completed: true)), 72.75,
                #"{"type":"event","t":72.75,"event":"holdEnded","held":42.25,"completed":true,"start":30.5}"#
            ),
            (
                .holdEnded(Hold(start: 80, held: 0.5, completed: false)), 80.5,
                #"{"type":"event","t":80.5,"event":"holdEnded","held":0.5,"completed":false,"start":80.0}"#
            ),
            (
                .formFault(.keepTrunkUpright), 17.3,
                #"{"type":"event","t":17.3,"event":"formFault","fault":"keepTrunkUpright"}"#
            ),
            (
                .visibilityChanged(Visibility(missingJoints: [.rightWrist])), 40.0,
                #"{"type":"event","t":40.0,"event":"visibilityChanged","visible":false,"missingJoints":["rightWrist"]}"#
            ),
            (
                .visibilityChanged(Visibility(missingJoints: [])), 40.5,
                #"{"type":"event","t":40.5,"event":"visibilityChanged","visible":true,"missingJoints":[]}"#
            ),
            (.setupChanged([.tooFar]), 41.0, #"{"type":"event","t":41.0,"event":"setupChanged","issues":["tooFar"]}"#),
            (
                .setupChanged([.notCentered, .tooClose]), 41.5,
                #"{"type":"event","t":41.5,"event":"setupChanged","issues":["tooClose","notCentered"]}"#
            ),
            (.baselineCompleted(128.0), 45.0, #"{"type":"event","t":45.0,"event":"baselineCompleted","value":128.0}"#),
            (.setCompleted(number: 2), 51.5, #"{"type":"event","t":51.5,"event":"setCompleted","set":2}"#),
            (
                .repCompleted(rep5), 60.0,
                #"{"type":"event","t":60.0,"event":"repCompleted","rep":{"index":5,"peak":55.5,"start":58.0,"end":60.0,"#
                    + #""duration":2.0,"clean":true,"faults":[],"trough":12.0,"range":43.5,"timeToPeak":0.75,"#
                    + #""side":"left"}}"#
            ),
        ] as [(MotionEvent, Double, String)])
    func encodesEveryEventKindAsTheProtocolShows(_ event: MotionEvent, _ t: Double, _ expected: String) {
        #expect(Self.encode { WireEncoder.encodeEvent(event, at: t, into: &$0) } == expected)
    }

    @Test func encodesEventsWithoutTypeForRESTBodies() {
        let json = Self.encode { WireEncoder.encodeEvent(.holdStarted, at: 1, includeType: false, into: &$0) }
        #expect(json == #"{"t":1.0,"event":"holdStarted"}"#)
    }

    @Test func encodesTheProtocolSnapshot() {
        #expect(
            Self.encode { WireEncoder.encodeSnapshot(Self.snapshot, into: &$0) }
                == #"{"type":"snapshot","t":14.2,"value":138.2,"best":142.5,"repCount":3,"rejectedCount":1,"#
                + #""lastRep":{"index":3,"peak":142.5,"start":12.1,"end":14.2,"duration":2.0999999999999996,"#
                + #""clean":true,"faults":[],"trough":20.0,"range":122.5,"timeToPeak":null,"side":null},"#
                + #""holdProgress":null,"confidence":0.88,"setupIssues":[],"isVisible":true,"missingJoints":[],"#
                + #""isRunning":true,"baseline":{"progress":0.66,"value":null},"side":null,"set":null}"#)
    }

    @Test(arguments: [
        (
            SetProgress(number: 1, of: 3, reps: 4, goal: 10),
            #""set":{"number":1,"of":3,"reps":4,"goal":10,"complete":false}}"#
        ),
        (
            SetProgress(number: 3, of: 3, reps: 9, goal: 10),
            #""set":{"number":3,"of":3,"reps":9,"goal":10,"complete":false}}"#
        ),
        (
            SetProgress(number: 3, of: 3, reps: 10, goal: 10),
            #""set":{"number":3,"of":3,"reps":10,"goal":10,"complete":true}}"#
        ),
        (
            SetProgress(number: 1, of: 1, reps: 1000, goal: 1000),
            #""set":{"number":1,"of":1,"reps":1000,"goal":1000,"complete":true}}"#
        ),
    ])
    func encodesTheSnapshotsSideAndSetProgress(_ set: SetProgress, _ suffix: String) {
        var snapshot = Self.snapshot
        snapshot.lastRep = Self.rep5
        snapshot.side = .right
        snapshot.set = set
        let json = Self.encode { WireEncoder.encodeSnapshot(snapshot, into: &$0) }
        #expect(json.hasSuffix(#""baseline":{"progress":0.66,"value":null},"side":"right","# + suffix), "\(json)")
        #expect(json.contains(#""timeToPeak":0.75,"side":"left"},"holdProgress""#), "\(json)")
    }

    @Test func writesTheSnapshotsSideAndSetEachAlone() {
        var snapshot = Self.snapshot
        snapshot.side = .left
        #expect(
            Self.encode { WireEncoder.encodeSnapshot(snapshot, into: &$0) }
                .hasSuffix(#""value":null},"side":"left","set":null}"#))
        snapshot.side = nil
        snapshot.set = SetProgress(number: 1, of: 1, reps: 0, goal: 5)
        #expect(
            Self.encode { WireEncoder.encodeSnapshot(snapshot, into: &$0) }
                .hasSuffix(#""value":null},"side":null,"set":{"number":1,"of":1,"reps":0,"goal":5,"complete":false}}"#))
    }

    @Test func encodesAFallingRepWithAPositiveRange() {
        #expect(
            Self.encode { WireEncoder.encodeRep(Self.falling, into: &$0) }
                == #"{"index":1,"peak":-0.25,"start":1.0,"end":2.5,"duration":1.5,"clean":true,"faults":[],"#
                + #""trough":0.5,"range":0.75,"timeToPeak":0.5,"side":null}"#)
    }

    @Test func encodesARepsMotionValuesOnlyWhenItHasThem() {
        var rep = Self.falling
        rep.motion = RepMotion(smoothness: -1.5, tremor: 0.25, rms: 0.5, covered: 1.5)
        #expect(
            Self.encode { WireEncoder.encodeRep(rep, into: &$0) }
                .hasSuffix(#""timeToPeak":0.5,"side":null,"smoothness":-1.5,"tremor":0.25}"#))
        rep.motion = RepMotion(smoothness: nil, tremor: 0, rms: 0, covered: 1.5)
        #expect(
            Self.encode { WireEncoder.encodeRep(rep, into: &$0) }
                .hasSuffix(#""side":null,"smoothness":null,"tremor":0.0}"#))
    }

    @Test func encodesTheSnapshotsMotionLevelOnlyWhenThereIsOne() {
        var snapshot = Self.snapshot
        #expect(!Self.encode { WireEncoder.encodeSnapshot(snapshot, into: &$0) }.contains("motion"))
        snapshot.motion = MotionLevel(rms: 1.25, tremor: 0.5)
        #expect(
            Self.encode { WireEncoder.encodeSnapshot(snapshot, into: &$0) }
                .contains(#","motion":{"rms":1.25,"tremor":0.5},"side":"#))
    }

    @Test func aSessionsSnapshotCacheWritesWhatEncodingAfreshWrites() {
        var faulty = Self.rep3
        faulty.faults = [.keepUpperArmStill]
        var laterPeak = Self.rep3
        laterPeak.peak = 150
        var timed = Self.rep3
        timed.timeToPeak = 1.25
        var sided = timed
        sided.side = .right
        let reps: [Rep?] = [
            nil, Self.rep3, Self.rep3, faulty, laterPeak, nil, Rep(index: 1, peak: 90, trough: 5, start: 0, end: 1.5),
            Self.rep3, timed, sided, sided, Self.rep3,
        ]
        var cache = SnapshotCache()
        for (step, rep) in reps.enumerated() {
            var snapshot = Self.snapshot
            snapshot.lastRep = rep
            snapshot.timestamp = 14.2 + Double(step) / 30
            let fresh = Self.encode {
                WireEncoder.encodeSnapshot(snapshot, includeType: step.isMultiple(of: 2), into: &$0)
            }
            let cached = Self.encode {
                WireEncoder.encodeSnapshot(snapshot, includeType: step.isMultiple(of: 2), cache: &cache, into: &$0)
            }
            #expect(cached == fresh, "step \(step)")
        }
    }

    /// The best value and the confidence come from the cache while their bits stay the same: `0.0` and `-0.0`, equal
    /// as numbers, are written apart, and a number that is not finite or absent is `null` whatever came before.
    @Test func aSessionsSnapshotCacheWritesEachNumberAsAfresh() {
        let numbers: [Double?] = [
            93.41234567891235, 93.41234567891235, 0.0, -0.0, -0.0, nil, .nan, .infinity, 0.1, 0.1, nil,
            2.0999999999999996,
        ]
        var cache = SnapshotCache()
        for (step, best) in numbers.enumerated() {
            var snapshot = Self.snapshot
            snapshot.best = best
            snapshot.confidence = numbers[numbers.count - 1 - step]
            let fresh = Self.encode { WireEncoder.encodeSnapshot(snapshot, into: &$0) }
            let cached = Self.encode { WireEncoder.encodeSnapshot(snapshot, cache: &cache, into: &$0) }
            #expect(cached == fresh, "step \(step)")
        }
    }

    @Test func numbersAreWrittenAsTheirShortestRoundTripForm() {
        var generator = SystemRandomNumberGenerator()
        var values: [Double] = [
            0, -0.0, 1, -1, 0.1, 2.0999999999999996, 1e-7, 123_456_789_012_345_680, .leastNonzeroMagnitude,
            .leastNormalMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, 93.41234567891235, 1e16, 1e15,
        ]
        for _ in 0..<20_000 {
            values.append(Double(bitPattern: generator.next()))
            values.append(Double.random(in: -360...360, using: &generator))
            values.append((Double.random(in: 0...10_000, using: &generator) * 1000).rounded() / 1000)
        }
        for value in values where value.isFinite {
            var buffer: [UInt8] = [0x2C]
            buffer.appendJSONNumber(value)
            #expect(buffer == [0x2C] + Array(value.description.utf8), "\(value)")
            #expect(Double(String(decoding: buffer.dropFirst(), as: UTF8.self)) == value)
        }
        var buffer: [UInt8] = []
        for value in [Double.nan, .infinity, -.infinity, nil] { buffer.appendJSONNumber(value) }
        #expect(String(decoding: buffer, as: UTF8.self) == "nullnullnullnull")
    }

    @Test func encodesAnEmptySnapshotWithNulls() {
        let empty = MotionSnapshot(
            timestamp: nil, value: .nan, best: .infinity, repCount: 0, rejectedCount: 0, lastRep: nil,
            holdProgress: 0.5, confidence: nil, setupIssues: [.tooClose, .notSideways], isVisible: false,
            missingJoints: [.rightWrist, .rightElbow], isRunning: false, baseline: nil)
        #expect(
            Self.encode { WireEncoder.encodeSnapshot(empty, includeType: false, into: &$0) }
                == #"{"t":null,"value":null,"best":null,"repCount":0,"rejectedCount":0,"lastRep":null,"#
                + #""holdProgress":0.5,"confidence":null,"setupIssues":["tooClose","notSideways"],"isVisible":false,"#
                + #""missingJoints":["rightElbow","rightWrist"],"isRunning":false,"baseline":null,"side":null,"#
                + #""set":null}"#)
    }

    @Test func encodesTheSummaryForRESTAndWebSocket() {
        let body =
            #"{"id":"s-1","subject":"patient-17","exercise":"elbowFlexion","side":"right","status":"finished","#
            + #""connected":null,"startedAt":"2026-11-29T14:00:00Z","endedAt":"2026-11-29T14:01:33Z","duration":93.5,"frames":2802,"#
            + #""visibleRatio":0.9700214132762313,"repCount":10,"rejectedCount":2,"best":142.5,"baseline":128.0,"#
            + #""reps":[{"index":1,"peak":130.25,"start":3.5,"end":5.0,"duration":1.5,"clean":true,"faults":[],"#
            + #""trough":10.0,"range":120.25,"timeToPeak":null,"side":null}],"#
            + #""faultCounts":{"keepUpperArmStill":2,"keepTrunkUpright":1},"exerciseVersion":1,"#
            + #""prescription":{"target":null,"rest":null,"enter":null,"exit":null,"holdSeconds":null,"reps":null,"#
            + #""sets":null},"perSide":null,"holds":[],"bestHold":null,"goal":null,"programme":null,"demo":false}"#
        #expect(Self.encode { WireEncoder.encodeSummary(Self.summary, metadata: Self.metadata, into: &$0) } == body)
        let message = Self.encode {
            WireEncoder.encodeSummary(Self.summary, metadata: Self.metadata, includeType: true, into: &$0)
        }
        #expect(message == #"{"type":"summary","# + body.dropFirst())
    }

    @Test func encodesALiveSummaryWithNulls() {
        var summary = Self.summary
        summary.side = nil
        summary.best = nil
        summary.baseline = nil
        summary.reps = []
        summary.faultCounts = [:]
        let metadata = SummaryMetadata(id: "x", status: .live, startedAt: 0)
        let json = Self.encode { WireEncoder.encodeSummary(summary, metadata: metadata, into: &$0) }
        #expect(json.hasPrefix(#"{"id":"x","subject":null,"exercise":"elbowFlexion","side":null,"status":"live","#))
        #expect(json.contains(#""startedAt":"1970-01-01T00:00:00Z","endedAt":null,"#))
        #expect(json.contains(#""best":null,"baseline":null,"reps":[],"faultCounts":{},"exerciseVersion":1,"#))
        #expect(
            json.hasSuffix(#""perSide":null,"holds":[],"bestHold":null,"goal":null,"programme":null,"demo":false}"#))
    }

    /// A programme item's session (docs/protocol.md §5.3): its goal among the measures, then its programme and the
    /// demonstration flag.
    @Test func encodesTheGoalTheProgrammeAndTheDemoFlag() {
        var summary = Self.summary
        summary.prescription = Prescription(reps: 4, sets: 3)
        summary.reps = Self.repsInARow(10)
        var metadata = Self.metadata
        metadata.programme = ProgrammeLink(id: "01KBZ0000000000000000000AA", version: 2, item: "a1")
        metadata.demo = true
        let json = Self.encode { WireEncoder.encodeSummary(summary, metadata: metadata, into: &$0) }
        #expect(
            json.hasSuffix(
                #""bestHold":null,"goal":{"sets":3,"setsDone":2,"repsPerSet":4,"met":false},"#
                    + #""programme":{"id":"01KBZ0000000000000000000AA","version":2,"item":"a1"},"demo":true}"#),
            "\(json)")
        summary.reps = Self.repsInARow(12)
        summary.repCount = 12
        let met = Self.encode { WireEncoder.encodeSummary(summary, metadata: metadata, into: &$0) }
        #expect(met.contains(#""goal":{"sets":3,"setsDone":3,"repsPerSet":4,"met":true}"#))
    }

    /// `count` clean reps without a rest between them.
    static func repsInARow(_ count: Int) -> [Rep] {
        (0..<count).map { Rep(index: $0 + 1, peak: 130, trough: 10, start: Double($0) * 2, end: Double($0) * 2 + 1) }
    }

    @Test func encodesEveryHoldAndTheLongestAsBestHold() {
        var summary = Self.summary
        summary.holds = [
            Hold(start: 2.5, held: 4.25, completed: false), Hold(start: 9, held: 121.5, completed: true),
            Hold(start: 140, held: 12, completed: true),
        ]
        let json = Self.encode { WireEncoder.encodeSummary(summary, metadata: Self.metadata, into: &$0) }
        #expect(
            json.hasSuffix(
                #""perSide":null,"holds":[{"start":2.5,"held":4.25,"completed":false},"#
                    + #"{"start":9.0,"held":121.5,"completed":true},{"start":140.0,"held":12.0,"completed":true}],"#
                    + #""bestHold":121.5,"goal":null,"programme":null,"demo":false}"#), "\(json)")
    }

    @Test func encodesTheEffectivePrescriptionAndPerSideTallies() {
        var summary = Self.summary
        summary.exerciseVersion = 3
        summary.prescription = Prescription(
            target: 50, rest: 30, enter: 35.333333333333336, exit: 32, holdSeconds: nil, reps: 10, sets: 3)
        summary.perSide = [
            .right: SideTally(repCount: 2, rejectedCount: 0, best: nil),
            .left: SideTally(repCount: 3, rejectedCount: 1, best: 55.5),
        ]
        let json = Self.encode { WireEncoder.encodeSummary(summary, metadata: Self.metadata, into: &$0) }
        let tail: String = [
            #""faultCounts":{"keepUpperArmStill":2,"keepTrunkUpright":1},"exerciseVersion":3,"#,
            #""prescription":{"target":50.0,"rest":30.0,"enter":35.333333333333336,"exit":32.0,"#,
            #""holdSeconds":null,"reps":10,"sets":3},"#,
            #""perSide":{"left":{"repCount":3,"rejectedCount":1,"best":55.5},"#,
            #""right":{"repCount":2,"rejectedCount":0,"best":null}},"holds":[],"bestHold":null,"#,
            #""goal":{"sets":3,"setsDone":0,"repsPerSet":10,"met":false},"programme":null,"demo":false}"#,
        ].joined()
        #expect(json.hasSuffix(tail), "\(json)")
        var hold = Prescription(target: 90, rest: 30, enter: 90, exit: 60, holdSeconds: 8)
        hold.sets = 2
        #expect(
            Self.encode { WireEncoder.encodePrescription(hold, into: &$0) }
                == #"{"target":90.0,"rest":30.0,"enter":90.0,"exit":60.0,"holdSeconds":8.0,"reps":null,"sets":2}"#)
        summary.perSide = [.left: SideTally()]
        #expect(
            Self.encode { WireEncoder.encodeSummary(summary, metadata: Self.metadata, into: &$0) }
                .hasSuffix(
                    #""perSide":{"left":{"repCount":0,"rejectedCount":0,"best":null}},"holds":[],"bestHold":null,"#
                        + #""goal":{"sets":3,"setsDone":0,"repsPerSet":10,"met":false},"programme":null,"demo":false}"#)
        )
    }

    /// A summary with every kind of member the measures hold: reps with and without motion and faults, fault
    /// counts, a prescription, per-side tallies and holds.
    static let everyMeasure: SessionSummary = {
        var summary = EncoderTests.summary
        summary.exerciseVersion = 2
        summary.prescription = Prescription(
            target: 50, rest: 30, enter: 35.333333333333336, exit: 32, holdSeconds: nil, reps: 10, sets: 3)
        summary.perSide = [.left: SideTally(repCount: 3, rejectedCount: 1, best: 55.5), .right: SideTally()]
        summary.reps.append(
            Rep(
                index: 2, peak: 48.125, trough: 11, start: 6, end: 8.25, timeToPeak: 0.75, side: .left,
                faults: [.keepUpperArmStill],
                motion: RepMotion(smoothness: 0.875, tremor: 0.0625, rms: 1.5, covered: 0.5)))
        summary.holds = [Hold(start: 2.5, held: 14.75, completed: true), Hold(start: 20, held: 0.5, completed: false)]
        return summary
    }()

    @Test func encodesAStoredRenderingOfTheMeasuresAsTheSummaryItself() {
        for summary in [Self.summary, Self.everyMeasure] {
            let measures = Self.encode { WireEncoder.encodeSummaryMeasures(summary, into: &$0) }
            let whole = Self.encode { WireEncoder.encodeSummary(summary, metadata: Self.metadata, into: &$0) }
            let fromMeasures = Self.encode {
                WireEncoder.encodeSummary(
                    measures: Array(measures.utf8), exercise: summary.exercise, side: summary.side,
                    metadata: Self.metadata, into: &$0)
            }
            #expect(fromMeasures == whole)
            #expect(whole.hasSuffix("," + measures + #","programme":null,"demo":false}"#))
        }
    }

    /// Stores keep rendered measures with ``WireEncoder/summaryMeasuresVersion`` and use them only at that version:
    /// these bytes are version 4 (version 1 ended at `perSide`, version 2 at `bestHold`, version 3 counted the goal's
    /// sets from the clean reps alone; 4 counts them as the session ran them: one clean rep is no set of 10). When
    /// this fails, the measures' JSON changed: raise the
    /// version, then record the new bytes here, so that measures stored by the older code are encoded again rather
    /// than served.
    @Test func theMeasuresOfVersionFourAreTheseBytes() {
        #expect(WireEncoder.summaryMeasuresVersion == 4)
        #expect(
            Self.encode { WireEncoder.encodeSummaryMeasures(Self.everyMeasure, into: &$0) }
                == #""duration":93.5,"frames":2802,"visibleRatio":0.9700214132762313,"repCount":10,"rejectedCount":2,"#
                + #""best":142.5,"baseline":128.0,"reps":[{"index":1,"peak":130.25,"start":3.5,"end":5.0,"#
                + #""duration":1.5,"clean":true,"faults":[],"trough":10.0,"range":120.25,"timeToPeak":null,"#
                + #""side":null},{"index":2,"peak":48.125,"start":6.0,"end":8.25,"duration":2.25,"clean":false,"#
                + #""faults":["keepUpperArmStill"],"trough":11.0,"range":37.125,"timeToPeak":0.75,"side":"left","#
                + #""smoothness":0.875,"tremor":0.0625}],"faultCounts":{"keepUpperArmStill":2,"#
                + #""keepTrunkUpright":1},"exerciseVersion":2,"prescription":{"target":50.0,"rest":30.0,"#
                + #""enter":35.333333333333336,"exit":32.0,"holdSeconds":null,"reps":10,"sets":3},"#
                + #""perSide":{"left":{"repCount":3,"rejectedCount":1,"best":55.5},"#
                + #""right":{"repCount":0,"rejectedCount":0,"best":null}},"#
                + #""holds":[{"start":2.5,"held":14.75,"completed":true},{"start":20.0,"held":0.5,"completed":false}],"#
                + #""bestHold":14.75,"goal":{"sets":3,"setsDone":0,"repsPerSet":10,"met":false}"#)
    }

    @Test func encodesErrors() {
        let error = WireError(code: .invalidPose, message: "t is required")
        #expect(
            Self.encode { WireEncoder.encodeError(error, frame: 812, into: &$0) }
                == #"{"type":"error","code":"invalidPose","message":"t is required","frame":812}"#)
        #expect(
            Self.encode { WireEncoder.encodeError(error, into: &$0) }
                == #"{"type":"error","code":"invalidPose","message":"t is required"}"#)
        #expect(
            Self.encode { WireEncoder.encodeErrorBody(error, into: &$0) }
                == #"{"error":{"code":"invalidPose","message":"t is required"}}"#)
    }

    @Test func encodesTheBatchIndexOfAFrameRefusedAlone() {
        let error = WireError(code: .invalidPose, message: "frames[3]: t is required")
        #expect(
            Self.encode { WireEncoder.encodeError(error, frame: 812, batchIndex: 3, into: &$0) }
                == #"{"type":"error","code":"invalidPose","message":"frames[3]: t is required","frame":812,"#
                + #""batchIndex":3}"#)
        #expect(
            Self.encode { WireEncoder.encodeError(error, batchIndex: 0, into: &$0) }
                == #"{"type":"error","code":"invalidPose","message":"frames[3]: t is required","batchIndex":0}"#)
    }

    @Test func encodesTheFrameErrorsOfARESTBatch() {
        #expect(Self.encode { WireEncoder.encodeFrameErrors([], into: &$0) } == "[]")
        let errors: [(batchIndex: Int?, error: WireError)] = [
            (nil, WireError.unknownJoint("leftHeel")),
            (1, WireError(code: .invalidPose, message: "frames[1]: t is required")),
            (4, WireError(code: .nonIncreasingTime, message: "t \"2\"")),
        ]
        let expected =
            #"[{"code":"unknownJoint","message":"unknown joint \"leftHeel\" (ignored)"},"#
            + #"{"code":"invalidPose","message":"frames[1]: t is required","batchIndex":1},"#
            + #"{"code":"nonIncreasingTime","message":"t \"2\"","batchIndex":4}]"#
        #expect(Self.encode { WireEncoder.encodeFrameErrors(errors, into: &$0) } == expected)
    }

    @Test func escapesStringsPerRFC8259() {
        let error = WireError(code: .invalidJSON, message: "a\"b\\c/\n\r\t\u{8}\u{C}\u{0}\u{1F}é😀\u{7F}")
        #expect(
            Self.encode { WireEncoder.encodeErrorBody(error, into: &$0) }
                == #"{"error":{"code":"invalidJSON","message":"a\"b\\c/\n\r\t\b\f\u0000\u001fé😀"# + "\u{7F}\"}}")
    }

    @Test func appendsToTheBufferItIsGiven() {
        var buffer = bytes("[")
        WireEncoder.encodeEvent(.holdStarted, at: 1, into: &buffer)
        buffer.append(UInt8(ascii: ","))
        WireEncoder.encodeEvent(.holdStarted, at: 2, into: &buffer)
        buffer.append(UInt8(ascii: "]"))
        #expect(
            text(buffer)
                == #"[{"type":"event","t":1.0,"event":"holdStarted"},{"type":"event","t":2.0,"event":"holdStarted"}]"#)
    }

    @Test func writesNumbersInShortestRoundTripForm() throws {
        var random = SeededGenerator(seed: 99)
        for _ in 0..<2000 {
            let value = Double(bitPattern: random.next())
            var buffer: [UInt8] = []
            buffer.appendJSONNumber(value)
            guard value.isFinite else {
                #expect(text(buffer) == "null")
                continue
            }
            guard case .number(let read) = try JSONValue.parse(buffer), read.bitPattern == value.bitPattern else {
                Issue.record("\(value) did not round-trip as \(text(buffer))")
                return
            }
        }
        for value in [0, -1, 1, 9, 10, 99, 812, Int.max, Int.min] {
            var buffer: [UInt8] = []
            buffer.appendJSONInteger(value)
            #expect(text(buffer) == String(value))
        }
    }

    @Test(arguments: [
        (0.0, "1970-01-01T00:00:00Z"), (-1, "1969-12-31T23:59:59Z"), (951_782_400, "2000-02-29T00:00:00Z"),
        (1_795_960_893.999, "2026-11-29T14:01:33Z"), (253_402_300_799, "9999-12-31T23:59:59Z"),
        (-62_167_219_200, "0000-01-01T00:00:00Z"), (4_107_542_400, "2100-03-01T00:00:00Z"),
    ])
    func formatsISO8601Timestamps(_ seconds: Double, _ expected: String) {
        #expect(ISO8601Timestamp.string(fromUnixSeconds: seconds) == expected)
    }

    @Test func formatsTimestampsLikeFoundation() {
        var random = SeededGenerator(seed: 3)
        let formatter = ISO8601DateFormatter()
        formatter.timeZone = TimeZone(identifier: "UTC")
        for _ in 0..<2000 {
            let seconds = Double(Int64.random(in: -5_000_000_000...10_000_000_000, using: &random))
            #expect(
                ISO8601Timestamp.string(fromUnixSeconds: seconds)
                    == formatter.string(from: Date(timeIntervalSince1970: seconds)))
        }
        #expect(ISO8601Timestamp.string(fromUnixSeconds: .nan) == nil)
        #expect(ISO8601Timestamp.string(fromUnixSeconds: 253_402_300_800) == nil)
    }

    // MARK: Round trip

    @Test func everyEncoderWritesJSONThatFoundationAndOurReaderParse() throws {
        var outputs: [[UInt8]] = []
        func add(_ body: (inout [UInt8]) -> Void) {
            var buffer: [UInt8] = []
            body(&buffer)
            outputs.append(buffer)
        }
        for exercise in Exercise.catalog {
            add { WireEncoder.encodeStarted(session: "id \"quoted\"", exercise: exercise, into: &$0) }
            add { WireEncoder.encodeExercise(exercise, into: &$0) }
        }
        let events: [MotionEvent] = [
            .repCompleted(Self.rep3), .repRejected(Self.rep4), .holdStarted, .formFault(.keepHipsLevel),
            .visibilityChanged(Visibility(missingJoints: [.nose, .root])), .setupChanged([]),
            .baselineCompleted(.nan), .setCompleted(number: 1), .repCompleted(Self.rep5), .repRejected(Self.falling),
        ]
        for event in events {
            add { WireEncoder.encodeEvent(event, at: 1e-7, into: &$0) }
            add { WireEncoder.encodeEvent(event, at: -0.0, includeType: false, into: &$0) }
        }
        add { WireEncoder.encodeSnapshot(Self.snapshot, into: &$0) }
        var busy = Self.snapshot
        busy.side = .left
        busy.set = SetProgress(number: 2, of: 3, reps: 0, goal: 8)
        add { WireEncoder.encodeSnapshot(busy, into: &$0) }
        add { WireEncoder.encodeSummary(Self.summary, metadata: Self.metadata, includeType: true, into: &$0) }
        var alternating = Self.summary
        alternating.reps = [Self.rep5, Self.falling]
        alternating.prescription = Prescription(target: .infinity, rest: -0.0, reps: 1)
        alternating.perSide = [.left: SideTally(repCount: 1, rejectedCount: 0, best: 55.5), .right: SideTally()]
        add { WireEncoder.encodeSummary(alternating, metadata: Self.metadata, into: &$0) }
        add { WireEncoder.encodeError(WireError(code: .rateLimited, message: "\u{1}\u{2028}"), frame: -3, into: &$0) }
        add { WireEncoder.encodeErrorBody(WireError(code: .notStarted, message: ""), into: &$0) }
        add { WireEncoder.encodeError(WireError(code: .invalidPose, message: "\u{0}"), batchIndex: 9, into: &$0) }
        add { buffer in
            buffer.appendLiteral(#"{"errors":"#)
            WireEncoder.encodeFrameErrors([(0, WireError(code: .invalidJSON, message: "\"\u{7}"))], into: &buffer)
            buffer.append(UInt8(ascii: "}"))
        }
        for output in outputs {
            let object = try JSONSerialization.jsonObject(with: Data(output))
            #expect(object is [String: Any], "\(text(output))")
            let ours = try JSONValue.parse(output)
            #expect(ours == DifferentialTests.foundationValue(output), "\(text(output))")
        }
    }

    @Test func decodesWhatItsOwnErrorsSay() throws {
        var buffer: [UInt8] = []
        let error = WireError(code: .invalidPose, message: "frames[2]: \"t\" is required")
        WireEncoder.encodeError(error, frame: 7, into: &buffer)
        let value = try JSONValue.parse(buffer)
        #expect(
            value
                == .object([
                    "type": .string("error"), "code": .string("invalidPose"), "message": .string(error.message),
                    "frame": .number(7),
                ]))
    }
}
