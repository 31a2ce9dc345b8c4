/// The analysis of one session as a plain value: poses in, events out. Deterministic and single-threaded;
/// ``MotionSession`` wraps it for sharing across tasks, and an actor that owns a session can use it directly.
///
/// All timing uses pose timestamps, never a clock, so a recorded stream replays identically at any speed.
public struct MotionEngine: Sendable {
    private struct SideModel: Sendable {
        let side: BodySide
        let measurement: ResolvedMeasurement
        let rules: [FormRule]
    }

    /// The configuration the engine was created with.
    public let configuration: SessionConfiguration
    /// The exercise, with the configuration's overrides applied.
    public let exercise: Exercise

    private var model: SideModel
    private var alternate: SideModel?
    private var filter: OneEuroFilter
    private var counter: RepCounter
    private var form: FormMonitor
    private let setupCheck: SetupCheck
    private var visibility: Debouncer<Visibility>
    private var setup: Debouncer<SetupIssueSet>
    private var baseline: Baseline?

    private var firstTimestamp: Double?
    private var lastTimestamp: Double?
    private var frames = 0
    private var visibleFrames = 0
    private var value: Double?
    private var confidence: Double?
    private var best: Double?
    private var repCount = 0
    private var rejectedCount = 0
    private var reps: [Rep] = []
    private var faultCounts = [Int](repeating: 0, count: FormFeedback.allCases.count)
    private var series: ValueSeries

    /// Creates an engine.
    /// - Parameter configuration: The exercise, side and options.
    /// - Throws: ``SessionError/missingSide(exercise:)`` for a one-sided exercise without a side;
    ///   ``SessionError/invalidConfiguration(_:)`` when the exercise or an option is unusable.
    public init(configuration: SessionConfiguration) throws(SessionError) {
        let exercise = configuration.effectiveExercise
        var problems = exercise.validationErrors
        if configuration.baselineReps < 1 { problems.append("baselineReps must be ≥ 1") }
        let delays = [
            configuration.visibilityDelay, configuration.setupDelay, configuration.faultDelay, configuration.maxGap,
        ]
        if delays.contains(where: { !($0 >= 0 && $0.isFinite) }) { problems.append("delays must be finite and ≥ 0") }
        if !(configuration.seriesInterval > 0 && configuration.seriesInterval.isFinite) {
            problems.append("seriesInterval must be > 0")
        }
        guard problems.isEmpty else { throw .invalidConfiguration(problems) }
        if exercise.sidedness == .oneSided, configuration.side == nil { throw .missingSide(exercise: exercise.id) }

        func makeModel(_ side: BodySide) -> SideModel {
            SideModel(side: side, measurement: exercise.measurement.resolve(side: side), rules: exercise.rules)
        }
        self.configuration = configuration
        self.exercise = exercise
        let model = makeModel(configuration.side ?? .right)
        self.model = model
        self.alternate = configuration.side == nil ? makeModel(.left) : nil
        self.filter = OneEuroFilter(parameters: exercise.smoothing, maxGap: configuration.maxGap)
        self.counter = RepCounter(kind: exercise.kind, thresholds: exercise.thresholds, maxGap: configuration.maxGap)
        self.form = FormMonitor(rules: exercise.rules, side: model.side, delay: configuration.faultDelay)
        self.setupCheck = SetupCheck(limits: configuration.setupLimits, view: exercise.view)
        self.visibility = Debouncer(
            initial: Visibility(missingJoints: model.measurement.joints), delay: configuration.visibilityDelay)
        self.setup = Debouncer(initial: [], delay: configuration.setupDelay)
        self.series = ValueSeries(interval: configuration.seriesInterval, capacity: configuration.seriesCapacity)
        if configuration.startsBaseline { startBaseline() }
    }

    /// The side being measured (for bilateral exercises without a named side, the one seen last).
    public var side: BodySide { model.side }

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
        let measured = model.measurement.joints
        let missing = measured.subtracting(pose.seenJoints)
        if missing.isEmpty { visibleFrames += 1 }
        if let changed = visibility.update(Visibility(missingJoints: missing), at: t) {
            events.append(.visibilityChanged(changed))
        }
        var placementIsFine = false
        if !pose.isEmpty {
            let issues = setupCheck.issues(in: pose, measured: measured)
            placementIsFine = issues.isEmpty
            if let changed = setup.update(issues, at: t) { events.append(.setupChanged(changed)) }
        }

        value = model.measurement.value(in: pose).map { filter.filter($0, at: t) }
        confidence = pose.confidence(of: measured)
        if let value { advance(with: value, pose: pose, mayStart: placementIsFine, events: &events) }
        series.record(value, at: t)
    }

    private mutating func advance(with value: Double, pose: Pose, mayStart: Bool, events: inout [MotionEvent]) {
        if counter.isInAttempt {
            for fault in form.check(pose) {
                faultCounts[fault.bitIndex] += 1
                events.append(.formFault(fault))
            }
        } else if value <= exercise.thresholds.exit {
            form.captureReferences(in: pose)
        }
        let step = counter.update(value, at: pose.timestamp, mayStart: mayStart)
        if counter.hasStarted { best = max(best ?? value, value) }
        switch step {
        case .none, .holdBroken, .dropped:
            break
        case .repStarted:
            form.beginRep()
        case .holdStarted:
            form.beginRep()
            events.append(.holdStarted)
        case .completed(let peak, let trough, let start, let end):
            let rep = Rep(
                index: reps.count + 1, peak: peak, trough: trough, start: start, end: end, faults: form.reported)
            reps.append(rep)
            if rep.isClean {
                repCount += 1
                events.append(.repCompleted(rep))
                if let done = baseline?.record(peak: peak) { events.append(.baselineCompleted(done)) }
            } else {
                rejectedCount += 1
                events.append(.repRejected(rep))
            }
        }
    }

    /// For a bilateral exercise without a named side, switches to the other side when only it is fully seen.
    private mutating func chooseSide(for pose: Pose) {
        guard let other = alternate, !model.measurement.joints.isSubset(of: pose.seenJoints),
            other.measurement.joints.isSubset(of: pose.seenJoints)
        else { return }
        alternate = model
        model = other
        filter.reset()
        form = FormMonitor(rules: other.rules, side: other.side, delay: configuration.faultDelay)
    }

    /// Clears best, counts and the rep in progress; the exercise, the history of frames and a finished baseline
    /// stay. Counting resumes once the start position is reached again; a running baseline starts over.
    public mutating func reset() {
        counter.reset()
        form.reset()
        best = nil
        repCount = 0
        rejectedCount = 0
        reps.removeAll(keepingCapacity: true)
        for i in faultCounts.indices { faultCounts[i] = 0 }
        if let running = baseline, running.value == nil { baseline = Baseline(needed: running.needed) }
    }

    /// Starts (or restarts) the baseline: the mean peak of the next clean reps (``SessionConfiguration/baselineReps``),
    /// or of the next completed hold.
    public mutating func startBaseline() {
        baseline = Baseline(needed: exercise.kind == .hold ? 1 : configuration.baselineReps)
    }

    /// The session as of the last processed pose.
    /// - Parameter isRunning: What to report as ``MotionSnapshot/isRunning``.
    /// - Complexity: O(1), no allocation.
    public func snapshot(isRunning: Bool = true) -> MotionSnapshot {
        MotionSnapshot(
            timestamp: lastTimestamp, value: value, best: best, repCount: repCount, rejectedCount: rejectedCount,
            lastRep: reps.last, holdProgress: counter.holdProgress, confidence: confidence,
            setupIssues: setup.reported, isVisible: visibility.reported.isVisible,
            missingJoints: visibility.reported.missingJoints, isRunning: isRunning, baseline: baseline?.status)
    }

    /// What is stored for the session, as of the last processed pose.
    public var summary: SessionSummary {
        var counts: [FormFeedback: Int] = [:]
        for fault in FormFeedback.allCases where faultCounts[fault.bitIndex] > 0 {
            counts[fault] = faultCounts[fault.bitIndex]
        }
        return SessionSummary(
            exercise: exercise.id, side: configuration.side,
            firstTimestamp: firstTimestamp, lastTimestamp: lastTimestamp, frames: frames,
            visibleFrames: visibleFrames, repCount: repCount, rejectedCount: rejectedCount, best: best,
            baseline: baseline?.value, reps: reps, faultCounts: counts, series: series)
    }
}
