import MotionCore
import MotionSimulation
import Testing

@Suite("Saved engine state: restored engines continue exactly")
struct EngineStateTests {
    /// A varied session of `exercise`: noise, dropouts, a moment out of frame, a faulty rep per fault.
    static func simulation(_ exercise: Exercise, seed: UInt64) -> Simulation {
        let peak = Scenario.typicalPeak(for: exercise)
        let lower = peak - 0.1 * exercise.direction.sign * (peak - exercise.thresholds.rest)
        var reps = [SimulatedRep(peak: peak), SimulatedRep(peak: lower)]
        for fault in exercise.possibleFaults { reps.append(SimulatedRep(peak: peak, faults: [fault])) }
        var simulation = Simulation(exercise: exercise, side: .right, reps: reps)
        simulation.noise = 1.5
        simulation.dropoutRate = 0.02
        simulation.seed = seed
        simulation.outOfFrame = [simulation.duration * 0.4...simulation.duration * 0.4 + 0.4]
        return simulation
    }

    static func configuration(_ exercise: Exercise) -> SessionConfiguration {
        var configuration = SessionConfiguration(
            exercise: exercise, side: exercise.sidedness == .oneSided ? .right : nil)
        configuration.startsBaseline = true
        configuration.baselineReps = 2
        configuration.prescription.reps = 2
        configuration.prescription.sets = 2
        return configuration
    }

    /// Events per pose and the final summary and snapshot, with the engine saved and restored before each pose
    /// index in `cuts`.
    static func replay(
        _ poses: [Pose], configuration: SessionConfiguration, cuts: Set<Int>, includingSeries: Bool = true
    ) throws -> (events: [[MotionEvent]], summary: SessionSummary, snapshot: MotionSnapshot, state: [UInt8]) {
        var engine = try MotionEngine(configuration: configuration)
        var events: [[MotionEvent]] = []
        for (index, pose) in poses.enumerated() {
            if cuts.contains(index) {
                let state = engine.savedState(includingSeries: includingSeries)
                engine = try MotionEngine(
                    configuration: configuration, restoring: state,
                    series: includingSeries ? nil : engine.summary.series)
                #expect(engine.savedState(includingSeries: includingSeries) == state, "saving again: same bytes")
            }
            events.append(try engine.process(pose))
        }
        return (events, engine.summary, engine.snapshot(), engine.savedState(includingSeries: true))
    }

    @Test(arguments: Exercise.catalog)
    func cutAnywhereSavedAndRestoredGivesIdenticalOutput(exercise: Exercise) throws {
        let configuration = Self.configuration(exercise)
        for seed: UInt64 in [1, 2, 3] {
            let poses = Self.simulation(exercise, seed: seed).poses()
            let whole = try Self.replay(poses, configuration: configuration, cuts: [])
            #expect(whole.summary.repCount + whole.summary.rejectedCount > 0, "the session must do something")
            var random = SeededRandom(seed: seed &* 7919)
            var cuts: Set<Int> = [1, poses.count - 1]
            while cuts.count < 12 { cuts.insert(Int(random.unit() * Double(poses.count))) }
            for includingSeries in [true, false] {
                let cut = try Self.replay(
                    poses, configuration: configuration, cuts: cuts, includingSeries: includingSeries)
                #expect(cut.events == whole.events, "\(exercise.id) seed \(seed)")
                #expect(cut.summary == whole.summary, "\(exercise.id) seed \(seed)")
                #expect(cut.snapshot == whole.snapshot, "\(exercise.id) seed \(seed)")
                #expect(cut.state == whole.state, "\(exercise.id) seed \(seed): final state bytes")
            }
        }
    }

    @Test func cutAtEveryFrameOfAShortSession() throws {
        let configuration = Self.configuration(.shoulderAbductionHold)
        let poses = Array(Self.simulation(.shoulderAbductionHold, seed: 5).poses().prefix(400))
        let whole = try Self.replay(poses, configuration: configuration, cuts: [])
        let cut = try Self.replay(poses, configuration: configuration, cuts: Set(poses.indices))
        #expect(cut.events == whole.events)
        #expect(cut.summary == whole.summary)
    }

    @Test func aBilateralSessionRestoresTheSideItFollows() throws {
        var simulation = Simulation(exercise: .squat, side: .left, reps: [.init(peak: 90), .init(peak: 85)])
        simulation.hidden = [(0...100, [.rightHip, .rightKnee, .rightAnkle])]
        let configuration = SessionConfiguration(exercise: .squat)
        let poses = simulation.poses()
        let whole = try Self.replay(poses, configuration: configuration, cuts: [])
        let cut = try Self.replay(poses, configuration: configuration, cuts: [40, 90, 130])
        #expect(whole.summary.repCount == 2)
        #expect(cut.summary == whole.summary)
    }

    @Test func stateIsCompact() throws {
        let configuration = Self.configuration(.elbowFlexion)
        var engine = try MotionEngine(configuration: configuration)
        for pose in Self.simulation(.elbowFlexion, seed: 1).poses() { _ = try engine.process(pose) }
        let reps = engine.summary.reps.count
        let state = engine.savedState()
        #expect(state.count < 400 + 50 * reps, "\(state.count) bytes for \(reps) reps")
    }

    @Test func stateOfAnotherConfigurationIsRefused() throws {
        var engine = try MotionEngine(configuration: Self.configuration(.elbowFlexion))
        for pose in Self.simulation(.elbowFlexion, seed: 1).poses().prefix(100) { _ = try engine.process(pose) }
        let state = engine.savedState()
        var other = Self.configuration(.elbowFlexion)
        other.side = .left
        #expect(throws: RestoreError.state(.configurationMismatch)) {
            try MotionEngine(configuration: other, restoring: state)
        }
        #expect(throws: RestoreError.state(.configurationMismatch)) {
            try MotionEngine(configuration: Self.configuration(.shoulderFlexion), restoring: state)
        }
        var prescribed = Self.configuration(.elbowFlexion)
        prescribed.prescription.target = 90
        #expect(throws: RestoreError.state(.configurationMismatch)) {
            try MotionEngine(configuration: prescribed, restoring: state)
        }
        #expect(throws: RestoreError.state(.unsupportedFormat)) {
            try MotionEngine(
                configuration: Self.configuration(.elbowFlexion), restoring: [0x4D, 0x53, 0x45, 9] + state.dropFirst(4))
        }
    }

    @Test func truncatedStateIsRefusedAtEveryLength() throws {
        let configuration = Self.configuration(.kneeExtension)
        var engine = try MotionEngine(configuration: configuration)
        for pose in Self.simulation(.kneeExtension, seed: 2).poses().prefix(300) { _ = try engine.process(pose) }
        let state = engine.savedState(includingSeries: true)
        for length in 0..<state.count {
            #expect(throws: RestoreError.self) {
                try MotionEngine(configuration: configuration, restoring: Array(state.prefix(length)))
            }
        }
        #expect(throws: RestoreError.state(.corrupt("bytes after the state"))) {
            try MotionEngine(configuration: configuration, restoring: state + [0])
        }
    }

    @Test func corruptedStateNeverCrashes() throws {
        let configuration = Self.configuration(.squat)
        var engine = try MotionEngine(configuration: configuration)
        let poses = Self.simulation(.squat, seed: 3).poses()
        for pose in poses.prefix(200) { _ = try engine.process(pose) }
        let state = engine.savedState(includingSeries: true)
        var random = SeededRandom(seed: 99)
        var refused = 0
        for _ in 0..<2000 {
            var mutated = state
            for _ in 0..<1 + Int(random.unit() * 3) {
                let index = Int(random.unit() * Double(mutated.count))
                mutated[index] = UInt8(truncatingIfNeeded: Int(random.unit() * 256))
            }
            // Either refused, or an engine that goes on processing poses.
            guard var restored = try? MotionEngine(configuration: configuration, restoring: mutated) else {
                refused += 1
                continue
            }
            for pose in poses.dropFirst(200).prefix(30) { _ = try? restored.process(pose) }
            _ = restored.summary
        }
        #expect(refused > 0)
    }

    @Test func repMotionValuesAreSavedAndRestored() throws {
        let configuration = Self.configuration(.elbowFlexion)
        var engine = try MotionEngine(configuration: configuration)
        let poses = Self.simulation(.elbowFlexion, seed: 1).poses()
        let half = poses.count / 2
        for pose in poses.prefix(half) { _ = try engine.process(pose) }
        let first = try #require(engine.summary.reps.first)
        let still = RepMotion(smoothness: nil, tremor: 0, rms: 0, covered: 1)
        let moving = RepMotion(smoothness: -1.625, tremor: 0.125, rms: 0.75, covered: first.duration)
        let found = engine.setMotion(moving, ofRep: first.index)
        #expect(found)
        let missing = engine.setMotion(moving, ofRep: 999)
        #expect(!missing, "no such rep")
        let second = try #require(engine.summary.reps.dropFirst().first, "the first half has two reps")
        let foundSecond = engine.setMotion(still, ofRep: second.index)
        #expect(foundSecond)
        #expect(engine.summary.reps.first?.motion == moving)
        var restored = try MotionEngine(
            configuration: configuration, restoring: engine.savedState(), series: engine.summary.series)
        #expect(restored.summary.reps == engine.summary.reps)
        #expect(restored.snapshot().lastRep == engine.snapshot().lastRep)
        // Both go on alike; later reps carry no motion values until a session attaches some.
        for pose in poses.dropFirst(half) {
            let expected = try engine.process(pose)
            let events = try restored.process(pose)
            #expect(events == expected)
        }
        #expect(restored.summary == engine.summary)
    }

    /// A live session stores its series in stretches, lets go of each once stored
    /// (``MotionEngine/releaseSeries(before:motion:)``) and may be restored from a state without samples: the
    /// stretches, put together, are the series of a session never cut, and the restored engine holds none of them.
    @Test func seriesReleasedAndRestoredByPositionGiveTheSameSamples() throws {
        let configuration = Self.configuration(.elbowFlexion)
        let poses = Self.simulation(.elbowFlexion, seed: 4).poses()
        func sample(at pose: Pose) -> MotionSample {
            MotionSample(
                t: pose.timestamp, acceleration: MotionVector(x: pose.timestamp.remainder(dividingBy: 1), y: -9.8, z: 0)
            )
        }
        var whole = try MotionEngine(configuration: configuration)
        for pose in poses {
            _ = try whole.process(pose)
            whole.recordMotion(sample(at: pose))
        }
        var engine = try MotionEngine(configuration: configuration)
        var stored = (times: [Double](), values: [Double?](), motion: [Double]())
        func store(_ summary: SessionSummary) {
            for position in max(stored.times.count, summary.series.heldStart)..<summary.series.count {
                stored.times.append(summary.series[position].t)
                stored.values.append(summary.series[position].value)
            }
            for position in max(stored.motion.count, summary.motion.heldStart)..<summary.motion.count {
                stored.motion.append(summary.motion[position].t)
            }
        }
        for (index, pose) in poses.enumerated() {
            if index % 97 == 50 {
                let summary = engine.summary
                store(summary)
                engine.releaseSeries(before: summary.series.count, motion: summary.motion.count)
                #expect(engine.summary.series.times.isEmpty && engine.summary.motion.times.isEmpty)
                engine = try MotionEngine(configuration: configuration, restoring: engine.savedState())
                #expect(engine.summary.series.heldStart == summary.series.count)
                #expect(engine.summary.motion.heldStart == summary.motion.count)
                #expect(engine.summary.series.lastTime == summary.series.lastTime)
            }
            _ = try engine.process(pose)
            engine.recordMotion(sample(at: pose))
        }
        store(engine.summary)
        let series = whole.summary.series
        #expect(series.count > 100 && series.interval == 0.1)
        #expect(stored.times == series.times)
        #expect(stored.values.elementsEqual(series.values) { $0 == $1 || ($0?.isNaN == true && $1?.isNaN == true) })
        #expect(stored.motion == whole.summary.motion.times)
        #expect(engine.summary.series.count == series.count && engine.summary.reps == whole.summary.reps)
    }

    @Test func stateOfEarlierFormatVersionsIsStillRead() throws {
        let configuration = Self.configuration(.squat)
        var engine = try MotionEngine(configuration: configuration)
        // No rep yet: the first version's bytes differ from the second's only in the version byte.
        for pose in Self.simulation(.squat, seed: 1).poses().prefix(20) { _ = try engine.process(pose) }
        #expect(engine.summary.reps.isEmpty)
        let series = engine.summary.series
        #expect(series.count > 2 && series.heldStart == 0)
        let state = engine.savedState(includingSeries: true)
        #expect(Array(state.prefix(4)) == [0x4D, 0x53, 0x45, 5])
        // Version 5 appends the holds that ended (none: a count of 0); version 4 appended when the squat's one form
        // rule was last broken before a rep, on the measured side and the standby one: never (a nil, one byte each).
        #expect(state.last == 0)
        let state4 = [0x4D, 0x53, 0x45, 4] + Array(state.dropFirst(4).dropLast(1))
        let restored4 = try MotionEngine(configuration: configuration, restoring: state4)
        #expect(restored4.summary == engine.summary, "version 4")
        let version4Tail: [UInt8] = [0, 0]
        #expect(Array(state4.suffix(2)) == version4Tail)
        let state3 = [0x4D, 0x53, 0x45, 3] + Array(state4.dropFirst(4).dropLast(version4Tail.count))
        let restored3 = try MotionEngine(configuration: configuration, restoring: state3)
        #expect(restored3.summary == engine.summary, "version 3")
        // Version 3 ends with the value series' position and samples, then the motion series' position (an empty
        // series: interval, count 0, no origin, no last time); version 2 ended with the value series' interval,
        // last slot + 1, count and samples.
        func varint(_ value: Int) -> [UInt8] {
            var bytes: [UInt8] = []
            var rest = UInt64(value)
            while rest >= 0x80 {
                bytes.append(UInt8(truncatingIfNeeded: rest) | 0x80)
                rest >>= 7
            }
            return bytes + [UInt8(rest)]
        }
        func double(_ value: Double) -> [UInt8] { withUnsafeBytes(of: value.bitPattern.littleEndian) { Array($0) } }
        var samples: [UInt8] = []
        for position in 0..<series.count {
            samples += double(series[position].t) + double(series[position].value ?? .nan)
        }
        let (first, last) = (try #require(series.times.first), try #require(series.lastTime))
        let version3Tail =
            double(series.interval) + varint(series.count) + [1] + double(first) + [1] + double(last)
            + varint(series.count) + samples + double(MotionSeries.defaultInterval) + [0, 0, 0]
        #expect(Array(state3.suffix(version3Tail.count)) == version3Tail)
        let common = Array(state3.dropFirst(4).dropLast(version3Tail.count))
        let lastSlot = Int(((last - first) / series.interval + 1e-6).rounded(.down))
        let version2Tail = double(series.interval) + varint(lastSlot + 1) + varint(series.count) + samples
        for version: UInt8 in [1, 2] {
            let restored = try MotionEngine(
                configuration: configuration, restoring: [0x4D, 0x53, 0x45, version] + common + version2Tail)
            #expect(restored.summary == engine.summary, "version \(version)")
        }
        #expect(throws: RestoreError.state(.unsupportedFormat)) {
            try MotionEngine(configuration: configuration, restoring: [0x4D, 0x53, 0x45, 6] + state.dropFirst(4))
        }
        #expect(throws: RestoreError.state(.unsupportedFormat)) {
            try MotionEngine(configuration: configuration, restoring: [0x4D, 0x53, 0x46, 5] + state.dropFirst(4))
        }
    }
}
