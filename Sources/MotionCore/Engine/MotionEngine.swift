/// The analysis of one session as a plain value: poses in, events out. Deterministic and single-threaded;
/// ``MotionSession`` wraps it for sharing across tasks, and an actor that owns a session can use it directly.
///
/// All timing uses pose timestamps, never a clock, so a recorded stream replays identically at any speed.
public struct MotionEngine: Sendable {
    /// The configuration the engine was created with.
    public let configuration: SessionConfiguration
    /// The exercise, with the configuration's prescription applied.
    public let exercise: Exercise

    /// The side measured: the only one, or for alternating exercises the first of two.
    private var track: Track
    /// Bilateral exercises without a named side: the other side, swapped in when only it is seen. Alternating
    /// exercises: the other side, measured beside ``track``.
    private var other: Track?
    private let isAlternating: Bool
    private let setupCheck: SetupCheck
    private var visibility: Debouncer<Visibility>
    private var setup: Debouncer<SetupIssueSet>
    /// Whether the posture was last judged wrong at the start position (kept while the value is away from it).
    private var postureIsWrong = false
    private var results: Results

    private var firstTimestamp: Double?
    private var lastTimestamp: Double?
    private var frames = 0
    private var visibleFrames = 0
    private var confidence: Double?
    private var series: ValueSeries
    /// The phone's acceleration, downsampled, as ``recordMotion(_:)`` gave it.
    private var motionSeries = MotionSeries()

    /// Creates an engine.
    /// - Parameter configuration: The exercise, side and options.
    /// - Throws: ``SessionError/missingSide(exercise:)`` for a one-sided exercise without a side;
    ///   ``SessionError/invalidConfiguration(_:)`` when the exercise or an option is unusable.
    public init(configuration: SessionConfiguration) throws(SessionError) {
        let exercise = configuration.effectiveExercise
        var problems = exercise.validationErrors
        if configuration.baselineReps < 1 { problems.append("baselineReps must be ≥ 1") }
        if let reps = configuration.prescription.reps, reps < 1 { problems.append("reps must be ≥ 1") }
        if let sets = configuration.prescription.sets, sets < 1 { problems.append("sets must be ≥ 1") }
        let delays = [
            configuration.visibilityDelay, configuration.setupDelay, configuration.faultDelay, configuration.maxGap,
        ]
        if delays.contains(where: { !($0 >= 0 && $0.isFinite) }) { problems.append("delays must be finite and ≥ 0") }
        if !(configuration.seriesInterval > 0 && configuration.seriesInterval.isFinite) {
            problems.append("seriesInterval must be > 0")
        }
        guard problems.isEmpty else { throw .invalidConfiguration(problems) }
        if exercise.sidedness == .oneSided, configuration.side == nil { throw .missingSide(exercise: exercise.id) }

        func makeTrack(_ side: BodySide) -> Track {
            Track(side: side, exercise: exercise, configuration: configuration)
        }
        self.configuration = configuration
        self.exercise = exercise
        isAlternating = exercise.sidedness == .alternating
        if isAlternating {
            track = makeTrack(.left)
            other = makeTrack(.right)
        } else {
            track = makeTrack(configuration.side ?? .right)
            other = configuration.side == nil ? makeTrack(.left) : nil
        }
        setupCheck = SetupCheck(limits: configuration.setupLimits, view: exercise.view)
        let measured = isAlternating ? track.joints.union(other?.joints ?? []) : track.joints
        visibility = Debouncer(initial: Visibility(missingJoints: measured), delay: configuration.visibilityDelay)
        setup = Debouncer(initial: [], delay: configuration.setupDelay)
        series = ValueSeries(interval: configuration.seriesInterval, capacity: configuration.seriesCapacity)
        results = Results(prescription: configuration.prescription)
        if configuration.startsBaseline { startBaseline() }
    }

    /// The side being measured (for bilateral exercises without a named side, the one seen last; for alternating
    /// ones, the side of the snapshot's value).
    public var side: BodySide { reading.side }

    /// Analyses one pose.
    ///
    /// ```swift
    /// var engine = try MotionEngine(configuration: SessionConfiguration(exercise: .elbowFlexion, side: .right))
    /// for pose in poses {
    ///     for event in try engine.process(pose) { print(event) }
    /// }
    /// ```
    /// - Parameter pose: The pose, in image pixels with anatomical sides.
    /// - Returns: The events this pose caused, in order (usually none).
    /// - Throws: ``PoseError`` when the pose is refused; the engine is then unchanged.
    /// - Complexity: O(1); no heap allocation unless an event occurs (see ``process(_:into:)`` to avoid even that).
    public mutating func process(_ pose: Pose) throws(PoseError) -> [MotionEvent] {
        var events: [MotionEvent] = []
        try process(pose, into: &events)
        return events
    }

    /// Analyses one pose and appends its events to a buffer the caller reuses, so the hot path never allocates.
    /// - Parameters:
    ///   - input: The pose, in image pixels with anatomical sides.
    ///   - events: Where this pose's events are appended, in order.
    /// - Throws: ``PoseError`` when the pose is refused; the engine and `events` are then unchanged.
    /// - Complexity: O(1).
    public mutating func process(_ input: Pose, into events: inout [MotionEvent]) throws(PoseError) {
        guard input.isFinite else { throw .nonFinite }
        if let lastTimestamp, !(input.timestamp > lastTimestamp) {
            throw .nonIncreasingTime(previous: lastTimestamp, received: input.timestamp)
        }
        var pose = input
        pose.deriveCentralJoints()
        let t = pose.timestamp
        if firstTimestamp == nil { firstTimestamp = t }
        lastTimestamp = t
        frames += 1

        chooseSide(for: pose)
        track.measure(pose)
        if isAlternating { other?.measure(pose) }
        let measured = isAlternating ? track.joints.union(other?.joints ?? []) : track.joints
        let missing = measured.subtracting(pose.seenJoints)
        if missing.isEmpty { visibleFrames += 1 }
        if let changed = visibility.update(Visibility(missingJoints: missing), at: t) {
            events.append(.visibilityChanged(changed))
        }
        var placementIsFine = false
        if !pose.isEmpty {
            var issues = setupCheck.issues(in: pose, measured: measured)
            if let required = exercise.posture {
                // Judged at the start position, on this pose's value of each measured side: the pose between it and
                // a rep may look like another posture (rising from a chair). From the wrong side the posture cannot
                // be read (a thigh pointing at the camera looks seated), so the view is put right first.
                var atStart = track.counter.isAtStartPosition(track.value)
                if isAlternating, let other { atStart = atStart && other.counter.isAtStartPosition(other.value) }
                let viewIsRight = !issues.contains(.notFacing) && !issues.contains(.notSideways)
                if atStart, viewIsRight, let seen = setupCheck.posture(in: pose) {
                    postureIsWrong = seen != required
                }
                if postureIsWrong { issues.insert(.wrongPosture) }
            }
            placementIsFine = issues.isEmpty
            if let changed = setup.update(issues, at: t) { events.append(.setupChanged(changed)) }
        }

        track.advance(
            with: pose, mayStart: placementIsFine, labelsSide: isAlternating, results: &results, events: &events)
        if isAlternating {
            other?.advance(with: pose, mayStart: placementIsFine, labelsSide: true, results: &results, events: &events)
        }
        confidence = pose.confidence(of: measured)
        series.record(reading.value, at: t)
    }

    /// The value to show and the side it belongs to: for alternating exercises the side furthest from rest.
    private var reading: (value: Double?, side: BodySide) {
        guard isAlternating, let other, let second = other.value else { return (track.value, track.side) }
        guard let first = track.value else { return (second, other.side) }
        return exercise.direction.sign * second > exercise.direction.sign * first
            ? (second, other.side) : (first, track.side)
    }

    /// For a bilateral exercise without a named side, switches to the other side when only it is fully seen.
    private mutating func chooseSide(for pose: Pose) {
        // The track is copied only when the side changes, not to look at its joints on every pose.
        guard !isAlternating, !track.joints.isSubset(of: pose.seenJoints),
            other?.joints.isSubset(of: pose.seenJoints) == true, var standby = other
        else { return }
        // The side taken over carries on counting where the other left off.
        standby.counter = track.counter
        other = track
        track = standby
        track.restart()
    }

    /// Ends a hold under way, as the session stops (docs/protocol.md §5.4): it is recorded with the time held so far.
    /// - Returns: The `holdEnded` event, none when no hold is under way.
    public mutating func endHold() -> [MotionEvent] {
        var events: [MotionEvent] = []
        track.endHold(results: &results, events: &events)
        other?.endHold(results: &results, events: &events)
        return events
    }

    /// Clears best, counts, sets and the rep in progress; the exercise, the history of frames and a finished
    /// baseline stay. Counting resumes once the start position is reached again; a running baseline starts over.
    public mutating func reset() {
        track.reset()
        other?.reset()
        results.reset()
    }

    /// Records how a rep moved by the phone's motion sensors (``MotionAnalyzer/rep(from:to:)``), so the summary, the
    /// snapshot's last rep and the saved state carry it. The engine judges poses only; the session feeding the
    /// analyzer calls this when the rep's event comes out.
    /// - Parameters:
    ///   - motion: The rep's motion values.
    ///   - index: The rep's ``Rep/index`` since the last reset.
    /// - Returns: Whether a rep with that index was found.
    /// - Complexity: O(1) for one of the last reps.
    @discardableResult
    public mutating func setMotion(_ motion: RepMotion, ofRep index: Int) -> Bool {
        guard let position = results.reps.lastIndex(where: { $0.index == index }) else { return false }
        results.reps[position].motion = motion
        return true
    }

    /// Keeps a motion sample's acceleration in the summary's downsampled ``SessionSummary/motion`` series. The
    /// engine judges poses only; the session that accepted the sample (``MotionAnalyzer/append(_:)``) calls this.
    /// - Parameter sample: An accepted sample.
    /// - Complexity: Amortised O(1).
    public mutating func recordMotion(_ sample: MotionSample) {
        motionSeries.record(sample)
    }

    /// Lets go of the series samples the caller has stored: those before `position` in the value series and before
    /// `motionPosition` in the motion series (their counts in a stored ``summary``). The summary then carries only
    /// the samples recorded since, so a live session's memory stays bounded however long it runs; see
    /// ``ValueSeries/release(before:)``.
    /// - Parameters:
    ///   - position: The value series' first position to keep holding.
    ///   - motionPosition: The motion series' first position to keep holding.
    public mutating func releaseSeries(before position: Int, motion motionPosition: Int) {
        series.release(before: position)
        motionSeries.release(before: motionPosition)
    }

    /// Starts (or restarts) the baseline: the mean peak of the next clean reps (``SessionConfiguration/baselineReps``),
    /// or of the next completed hold.
    public mutating func startBaseline() {
        results.baseline = Baseline(needed: exercise.kind == .hold ? 1 : configuration.baselineReps)
    }

    /// The session as of the last processed pose.
    /// - Parameter isRunning: What to report as ``MotionSnapshot/isRunning``.
    /// - Complexity: O(1), no allocation.
    public func snapshot(isRunning: Bool = true) -> MotionSnapshot {
        let reading = reading
        let holdProgress =
            isAlternating
            ? track.counter.holdProgress ?? other?.counter.holdProgress : track.counter.holdProgress
        return MotionSnapshot(
            timestamp: lastTimestamp, value: reading.value, best: results.best, repCount: results.repCount,
            rejectedCount: results.rejectedCount, lastRep: results.reps.last, holdProgress: holdProgress,
            confidence: confidence, setupIssues: setup.reported, isVisible: visibility.reported.isVisible,
            missingJoints: visibility.reported.missingJoints, isRunning: isRunning, baseline: results.baseline?.status,
            side: isAlternating ? reading.side : nil, set: results.sets?.progress)
    }

    /// What is stored for the session, as of the last processed pose.
    public var summary: SessionSummary {
        var counts: [FormFeedback: Int] = [:]
        for fault in FormFeedback.allCases where results.faultCounts[fault.bitIndex] > 0 {
            counts[fault] = results.faultCounts[fault.bitIndex]
        }
        var perSide: [BodySide: SideTally] = [:]
        if isAlternating, let other {
            perSide[track.side] = track.tally
            perSide[other.side] = other.tally
        }
        return SessionSummary(
            exercise: exercise.id, exerciseVersion: exercise.version, side: configuration.side,
            prescription: configuration.prescription.effective(for: exercise),
            firstTimestamp: firstTimestamp, lastTimestamp: lastTimestamp, frames: frames,
            visibleFrames: visibleFrames, repCount: results.repCount, rejectedCount: results.rejectedCount,
            best: results.best, baseline: results.baseline?.value, reps: results.reps, holds: results.holds,
            faultCounts: counts, perSide: perSide, series: series, motion: motionSeries)
    }
}

extension MotionEngine {
    /// What a session has achieved since the last reset, whichever side did it.
    fileprivate struct Results: Sendable {
        var best: Double?
        var repCount = 0
        var rejectedCount = 0
        var reps: [Rep] = []
        var faultCounts = [Int](repeating: 0, count: FormFeedback.allCases.count)
        var baseline: Baseline?
        var sets: SetCount?
        /// Every hold attempt that ended, in order.
        var holds: [Hold] = []

        init(prescription: Prescription) {
            sets = prescription.reps.map { SetCount(goal: $0, sets: prescription.sets ?? 1) }
        }

        mutating func reset() {
            best = nil
            repCount = 0
            rejectedCount = 0
            reps.removeAll(keepingCapacity: true)
            holds.removeAll(keepingCapacity: true)
            for i in faultCounts.indices { faultCounts[i] = 0 }
            if let running = baseline, running.value == nil { baseline = Baseline(needed: running.needed) }
            if let counted = sets { sets = SetCount(goal: counted.goal, sets: counted.sets) }
        }
    }

    /// One measured side: its measurement, smoothing, rep counter and form rules.
    fileprivate struct Track: Sendable {
        let side: BodySide
        let sign: Double
        private(set) var measurement: ResolvedMeasurement
        private var filter: OneEuroFilter
        var counter: RepCounter
        private var form: FormMonitor
        private let rules: [FormRule]
        private let faultDelay: Double
        private let faultApproach: Double
        /// The smoothed value in the last pose, nil when it could not be measured.
        private(set) var value: Double?
        private(set) var tally = SideTally()

        init(side: BodySide, exercise: Exercise, configuration: SessionConfiguration) {
            self.side = side
            sign = exercise.direction.sign
            measurement = exercise.measurement.resolve(side: side)
            filter = OneEuroFilter(parameters: exercise.smoothing, maxGap: configuration.maxGap)
            counter = RepCounter(
                kind: exercise.kind, direction: exercise.direction, thresholds: exercise.thresholds,
                maxGap: configuration.maxGap)
            rules = exercise.rules
            faultDelay = configuration.faultDelay
            faultApproach = configuration.faultApproach
            form = FormMonitor(rules: rules, side: side, delay: faultDelay, approach: faultApproach)
        }

        var joints: JointSet { measurement.joints }

        /// Starts smoothing and form references afresh (the side was just taken over).
        mutating func restart() {
            filter.reset()
            form = FormMonitor(rules: rules, side: side, delay: faultDelay, approach: faultApproach)
        }

        mutating func reset() {
            counter.reset()
            form.reset()
            tally = SideTally()
        }

        /// Measures and smooths the value in `pose` (before the setup checks, which judge the posture on it).
        mutating func measure(_ pose: Pose) {
            value = measurement.measure(pose).map { filter.filter($0, at: pose.timestamp) }
        }

        /// Moves the counter and form rules on with the value ``measure(_:)`` took from `pose`, recording what
        /// completes in `results`.
        /// - Parameter labelsSide: Whether reps say which side did them (alternating exercises).
        mutating func advance(
            with pose: Pose, mayStart: Bool, labelsSide: Bool, results: inout Results, events: inout [MotionEvent]
        ) {
            let t = pose.timestamp
            guard let value else { return }
            let due = form.update(
                pose, inAttempt: counter.isInAttempt, approaching: counter.hasStarted && !counter.isInAttempt,
                atLow: counter.isAtLow(value))
            for fault in due {
                results.faultCounts[fault.bitIndex] += 1
                events.append(.formFault(fault))
            }
            let step = counter.update(value, at: t, mayStart: mayStart)
            if counter.hasStarted {
                tally.best = furthest(tally.best, value)
                results.best = furthest(results.best, value)
            }
            switch step {
            case .none, .dropped:
                break
            case .holdEnded(let end):
                record(end, results: &results, events: &events)
            case .repStarted:
                for fault in form.beginRep(at: t, fromApproach: true) {
                    results.faultCounts[fault.bitIndex] += 1
                    events.append(.formFault(fault))
                }
            case .holdStarted:
                _ = form.beginRep(at: t, fromApproach: false)
                events.append(.holdStarted)
            case .completed(let done):
                let rep = Rep(
                    index: results.reps.count + 1, peak: done.peak, trough: done.trough, start: done.start,
                    end: done.end, timeToPeak: done.peakTime - done.start, side: labelsSide ? side : nil,
                    faults: form.reported)
                results.reps.append(rep)
                let completedSet = results.sets?.record(rep)
                if rep.isClean {
                    results.repCount += 1
                    tally.repCount += 1
                    events.append(.repCompleted(rep))
                    if let done = results.baseline?.record(peak: rep.peak) { events.append(.baselineCompleted(done)) }
                    if let completedSet { events.append(.setCompleted(number: completedSet)) }
                } else {
                    results.rejectedCount += 1
                    tally.rejectedCount += 1
                    events.append(.repRejected(rep))
                }
            }
        }

        /// Ends a hold under way at the last pose (the session stops), recording how long it was held.
        mutating func endHold(results: inout Results, events: inout [MotionEvent]) {
            guard let end = counter.endHold() else { return }
            record(end, results: &results, events: &events)
        }

        private func record(_ end: RepCounter.HoldEnd, results: inout Results, events: inout [MotionEvent]) {
            let hold = Hold(start: end.start, held: end.held, completed: end.completed)
            results.holds.append(hold)
            events.append(.holdEnded(hold))
        }

        /// The further of `best` and `value` from rest.
        private func furthest(_ best: Double?, _ value: Double) -> Double {
            guard let best else { return value }
            return sign * value > sign * best ? value : best
        }
    }
}

extension MotionEngine.Track {
    func saveApproach(to writer: inout EngineStateWriter) { form.saveApproach(to: &writer) }

    mutating func restoreApproach(from reader: inout EngineStateReader) throws(EngineStateError) {
        try form.restoreApproach(from: &reader)
    }

    func save(to writer: inout EngineStateWriter) {
        measurement.save(to: &writer)
        filter.save(to: &writer)
        counter.save(to: &writer)
        form.save(to: &writer)
        writer.write(value)
        writer.write(tally.repCount)
        writer.write(tally.rejectedCount)
        writer.write(tally.best)
    }

    mutating func restore(from reader: inout EngineStateReader, version: UInt8) throws(EngineStateError) {
        try measurement.restore(from: &reader)
        try filter.restore(from: &reader)
        try counter.restore(from: &reader, version: version)
        try form.restore(from: &reader)
        value = try reader.readOptionalDouble()
        tally = SideTally(
            repCount: try reader.readCount(), rejectedCount: try reader.readCount(),
            best: try reader.readOptionalDouble())
    }
}

extension MotionEngine.Results {
    func save(to writer: inout EngineStateWriter) {
        writer.write(best)
        writer.write(repCount)
        writer.write(rejectedCount)
        writer.write(reps.count)
        for rep in reps {
            writer.write(rep.index)
            writer.write(rep.peak)
            writer.write(rep.trough)
            writer.write(rep.start)
            writer.write(rep.end)
            writer.write(rep.timeToPeak)
            writer.write(rep.side)
            writer.write(UInt64(rep.faults.rawValue))
            writer.write(rep.motion != nil)
            if let motion = rep.motion {
                writer.write(motion.smoothness)
                writer.write(motion.tremor)
                writer.write(motion.rms)
                writer.write(motion.covered)
            }
        }
        for count in faultCounts { writer.write(count) }
        writer.write(baseline != nil)
        baseline?.save(to: &writer)
        writer.write(sets != nil)
        if let progress = sets?.progress {
            writer.write(progress.number)
            writer.write(progress.reps)
        }
    }

    /// Saves the holds that ended (format version 5, after the rest).
    func saveHolds(to writer: inout EngineStateWriter) {
        writer.write(holds.count)
        for hold in holds {
            writer.write(hold.start)
            writer.write(hold.held)
            writer.write(hold.completed)
        }
    }

    mutating func restoreHolds(from reader: inout EngineStateReader) throws(EngineStateError) {
        holds.removeAll(keepingCapacity: true)
        for _ in 0..<(try reader.readCount(atMost: reader.bytes.count)) {
            holds.append(
                Hold(start: try reader.readDouble(), held: try reader.readDouble(), completed: try reader.readBool()))
        }
    }

    /// Restores the results saved by ``save(to:)``; state of format version 1 has no per-rep motion.
    mutating func restore(from reader: inout EngineStateReader, version: UInt8) throws(EngineStateError) {
        best = try reader.readOptionalDouble()
        repCount = try reader.readCount()
        rejectedCount = try reader.readCount()
        let count = try reader.readCount(atMost: reader.bytes.count)
        let faults = FormFeedbackSet(FormFeedback.allCases).rawValue
        reps.removeAll(keepingCapacity: true)
        for _ in 0..<count {
            reps.append(
                Rep(
                    index: try reader.readCount(), peak: try reader.readDouble(), trough: try reader.readDouble(),
                    start: try reader.readDouble(), end: try reader.readDouble(),
                    timeToPeak: try reader.readOptionalDouble(), side: try reader.readSide(),
                    faults: FormFeedbackSet(rawValue: try reader.readBits(within: faults))))
            if version >= 2, try reader.readBool() {
                reps[reps.count - 1].motion = RepMotion(
                    smoothness: try reader.readOptionalDouble(), tremor: try reader.readDouble(),
                    rms: try reader.readDouble(), covered: try reader.readDouble())
            }
        }
        for i in faultCounts.indices { faultCounts[i] = try reader.readCount() }
        baseline = try reader.readBool() ? try Baseline.restore(from: &reader) : nil
        guard try reader.readBool() == (sets != nil) else { throw .configurationMismatch }
        if let counted = sets {
            // The count is the reps' (SetCount): counted again from them; the saved progress is only checked.
            let number = try reader.readCount()
            _ = try reader.readCount()
            guard (1...counted.sets).contains(number) else { throw .corrupt("set \(number) of \(counted.sets)") }
            var recounted = SetCount(goal: counted.goal, sets: counted.sets)
            for rep in reps { recounted.record(rep) }
            sets = recounted
        }
        holds.removeAll(keepingCapacity: true)
    }
}

// MARK: Saved state (EngineState.swift has the byte format)

extension MotionEngine {
    /// The first bytes of saved state: `"MSE"` and the format version. Version 2 adds each rep's motion values;
    /// version 3 saves both series' positions (and the value series' samples only when asked); version 4 appends when
    /// each form rule was last broken in the approach to a rep; version 5 keeps holds timed past their completion and
    /// the holds that ended. State of versions 1 to 4 is still read (reps without motion values; the series given to
    /// the restore, or the value series saved whole; no approach; no hold records).
    static let stateMagic: [UInt8] = [0x4D, 0x53, 0x45, 5]

    /// Saves everything the engine carries between frames — smoothing, rep counters, hold clocks, form rules,
    /// debouncers, baseline, sets, best, reps and counts — as compact, deterministic bytes (the same engine state
    /// always gives the same bytes).
    ///
    /// An engine created with the same configuration and restored from them (``init(configuration:restoring:series:)``)
    /// continues exactly as this one: fed the same remaining poses, it produces the same events and summary, bit for
    /// bit.
    /// - Parameter includingSeries: Whether the value series' held samples go with it. A live session leaves them
    ///   out: its store holds the series, and the restored engine records the next samples where this one would
    ///   have (both series' positions always go with the state).
    /// - Returns: The state: about 250 bytes plus 40 per rep (and 16 per held series sample when included).
    public func savedState(includingSeries: Bool = false) -> [UInt8] {
        var writer = EngineStateWriter()
        writer.bytes.append(contentsOf: Self.stateMagic)
        writer.write(configurationFingerprint)
        writer.write(track.side == .left)
        track.save(to: &writer)
        writer.write(other != nil)
        other?.save(to: &writer)
        writer.write(postureIsWrong)
        visibility.save(to: &writer)
        setup.save(to: &writer)
        results.save(to: &writer)
        writer.write(firstTimestamp)
        writer.write(lastTimestamp)
        writer.write(frames)
        writer.write(visibleFrames)
        writer.write(confidence)
        writer.write(includingSeries)
        series.save(to: &writer, includingSamples: includingSeries)
        motionSeries.savePosition(to: &writer)
        track.saveApproach(to: &writer)
        other?.saveApproach(to: &writer)
        results.saveHolds(to: &writer)
        return writer.bytes
    }

    /// Creates an engine for `configuration` and restores the state another one saved with it.
    /// - Parameters:
    ///   - configuration: The configuration the saving engine was created with.
    ///   - state: What ``savedState(includingSeries:)`` returned.
    ///   - series: The whole value series, when the state was saved without its samples (e.g. read back from the
    ///     store): it is continued when it is the one the state was saved with (the same count, interval and last
    ///     time), else the restored series holds no sample and records the next ones where the saved one would
    ///     have. Ignored when the state carries the samples.
    ///   - motion: The whole motion series (the saved state never carries its samples), taken as `series`.
    /// - Throws: ``RestoreError/session(_:)`` when the configuration is unusable (as ``init(configuration:)``),
    ///   ``RestoreError/state(_:)`` when the state is truncated, corrupt or saved for another configuration.
    public init(
        configuration: SessionConfiguration, restoring state: [UInt8], series: ValueSeries? = nil,
        motion: MotionSeries = MotionSeries()
    )
        throws(RestoreError)
    {
        do {
            try self.init(configuration: configuration)
        } catch {
            throw .session(error)
        }
        do {
            try restore(from: state, series: series, motion: motion)
        } catch {
            throw .state(error)
        }
    }

    private mutating func restore(
        from state: [UInt8], series stored: ValueSeries?, motion storedMotion: MotionSeries
    ) throws(EngineStateError) {
        var reader = EngineStateReader(bytes: state)
        let magic = try reader.bytes(Self.stateMagic.count)
        guard magic.dropLast() == Self.stateMagic.dropLast(), let version = magic.last, (1...5).contains(version) else {
            throw .unsupportedFormat
        }
        guard try reader.readUInt64() == configurationFingerprint else { throw .configurationMismatch }
        let primaryIsLeft = try reader.readBool()
        if primaryIsLeft != (track.side == .left) {
            guard let standby = other, !isAlternating else { throw .configurationMismatch }
            other = track
            track = standby
        }
        try track.restore(from: &reader, version: version)
        guard try reader.readBool() == (other != nil) else { throw .configurationMismatch }
        try other?.restore(from: &reader, version: version)
        postureIsWrong = try reader.readBool()
        try visibility.restore(from: &reader)
        try setup.restore(from: &reader)
        try results.restore(from: &reader, version: version)
        firstTimestamp = try reader.readOptionalDouble()
        lastTimestamp = try reader.readOptionalDouble()
        frames = try reader.readCount()
        visibleFrames = try reader.readCount()
        confidence = try reader.readOptionalDouble()
        let includesSeries = try reader.readBool()
        let capacity = configuration.seriesCapacity
        if version < 3 {
            if includesSeries {
                series = try ValueSeries(restoringVersion2From: &reader, capacity: capacity)
            } else if let stored {
                series = stored
            }
            motionSeries = storedMotion
        } else {
            series = try ValueSeries(restoringFrom: &reader, capacity: capacity, includingSamples: includesSeries)
            motionSeries = try MotionSeries(restoringPositionFrom: &reader)
            if !includesSeries, let stored, stored.holdsAllSamples(of: series) { series = stored }
            if storedMotion.holdsAllSamples(of: motionSeries) { motionSeries = storedMotion }
        }
        if version >= 4 {
            try track.restoreApproach(from: &reader)
            try other?.restoreApproach(from: &reader)
        }
        if version >= 5 { try results.restoreHolds(from: &reader) }
        guard reader.isAtEnd else { throw .corrupt("bytes after the state") }
    }

    /// A hash of what shapes the state (exercise, version, side, sidedness, rule count, prescription goals), so
    /// state is never restored into an engine it does not fit.
    private var configurationFingerprint: UInt64 {
        var hash = FNV1a()
        hash.add(exercise.id)
        hash.add(UInt64(exercise.version))
        hash.add(configuration.side?.rawValue ?? "-")
        hash.add(exercise.sidedness.rawValue)
        hash.add(exercise.direction.rawValue)
        hash.add(UInt64(exercise.rules.count))
        hash.add(UInt64(configuration.prescription.reps ?? 0))
        hash.add(UInt64(configuration.prescription.sets ?? 0))
        for level in [exercise.thresholds.rest, exercise.thresholds.enter, exercise.thresholds.exit, exercise.target] {
            hash.add(level.bitPattern)
        }
        return hash.value
    }
}
