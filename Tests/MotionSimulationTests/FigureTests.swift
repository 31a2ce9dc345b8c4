import MotionCore
import MotionSimulation
import Testing

/// The simulated figure of every catalog exercise measures what it is scripted to, and acts each fault by breaking
/// that rule alone.
@Suite("Simulated figures")
struct FigureTests {
    static let exercisesAndSides: [(Exercise, BodySide)] = Exercise.catalog.flatMap { exercise in
        BodySide.allCases.map { (exercise, $0) }
    }

    /// How close a figure must come to the scripted value: half a degree, or half a hundredth of a segment.
    static func tolerance(_ exercise: Exercise) -> Double { exercise.unit == .degrees ? 0.5 : 0.005 }

    /// One noise-free session of `exercise` with `reps`, alternating sides where the exercise does.
    static func simulation(_ exercise: Exercise, side: BodySide, reps: [SimulatedRep]) -> Simulation {
        var reps = reps
        if exercise.sidedness == .alternating {
            for index in reps.indices { reps[index].side = index % 2 == 0 ? side : side.opposite }
        }
        var simulation = Simulation(exercise: exercise, side: side, reps: reps)
        simulation.noise = 0
        return simulation
    }

    /// The measured value of each side in every pose, with the side the script moves at that moment.
    static func measure(_ simulation: Simulation) throws -> [(t: Double, side: BodySide, values: [BodySide: Double])] {
        var measurements = BodySide.allCases.map { simulation.exercise.measurement.resolve(side: $0) }
        var result: [(Double, BodySide, [BodySide: Double])] = []
        for pose in simulation.poses() {
            var values: [BodySide: Double] = [:]
            for (index, side) in BodySide.allCases.enumerated() { values[side] = measurements[index].measure(pose) }
            let rep = simulation.value(at: pose.timestamp).rep
            result.append((pose.timestamp, rep.flatMap { simulation.reps[$0].side } ?? simulation.side, values))
        }
        return result
    }

    static func peaks(_ exercise: Exercise) -> [Double] {
        let peak = Scenario.typicalPeak(for: exercise)
        guard exercise.kind == .rep else { return [peak] }
        let t = exercise.thresholds
        return [peak, t.rest + 0.6 * (exercise.target - t.rest)]
    }

    @Test(arguments: exercisesAndSides)
    func figureMeasuresTheScriptedValue(_ exercise: Exercise, _ side: BodySide) throws {
        let simulation = Self.simulation(
            exercise, side: side, reps: Self.peaks(exercise).map { SimulatedRep(peak: $0) })
        var worst = 0.0
        for (t, moving, values) in try Self.measure(simulation) {
            let measured = try #require(values[moving], "\(exercise.id) unmeasurable at \(t)")
            worst = max(worst, abs(measured - simulation.value(at: t).value))
        }
        #expect(worst < Self.tolerance(exercise), "\(exercise.id) \(side): off by up to \(worst)")
    }

    static let exercisesAndArms: [(Exercise, ArmPosition)] = Exercise.catalog.flatMap { exercise in
        ArmPosition.allCases.map { (exercise, $0) }
    }

    @Test(arguments: exercisesAndArms)
    func armsTheExerciseDoesNotMoveLeaveTheScriptedValueAlone(_ exercise: Exercise, _ arms: ArmPosition) throws {
        var simulation = Self.simulation(
            exercise, side: .left, reps: [SimulatedRep(peak: Scenario.typicalPeak(for: exercise))])
        simulation.arms = arms
        for (t, moving, values) in try Self.measure(simulation) {
            let measured = try #require(values[moving])
            #expect(
                abs(measured - simulation.value(at: t).value) < Self.tolerance(exercise), "\(exercise.id) \(arms)")
        }
    }

    static let faultCases: [(Exercise, FormFeedback, BodySide)] = Exercise.catalog.flatMap { exercise in
        exercise.possibleFaults.flatMap { fault in BodySide.allCases.map { (exercise, fault, $0) } }
    }

    /// Which rules of `exercise` the pose breaks, relative rules against `start`.
    static func broken(_ exercise: Exercise, side: BodySide, in pose: Pose, start: Pose) -> FormFeedbackSet {
        var faults: FormFeedbackSet = []
        for rule in exercise.rules {
            let measurement = rule.measurement.resolve(side: side)
            guard let value = measurement.value(in: pose) else { continue }
            if rule.relativeToStart {
                guard let reference = measurement.value(in: start) else { continue }
                if abs(value - reference) > rule.limit { faults.insert(rule.fault) }
            } else if value > rule.limit {
                faults.insert(rule.fault)
            }
        }
        return faults
    }

    /// The pose at the peak of the only rep (the middle of a hold's plateau) and the first pose, at rest.
    static func peakAndStart(_ simulation: Simulation) throws -> (peak: Pose, start: Pose) {
        let poses = simulation.poses()
        // A hold ramps up for a second, stays, and ramps down for a second before the tail.
        let attempt = simulation.duration - simulation.leadIn - simulation.tail
        let t =
            simulation.exercise.kind == .hold
            ? simulation.leadIn + attempt / 2 : simulation.leadIn + simulation.repDuration / 2
        let peak = try #require(poses.min { abs($0.timestamp - t) < abs($1.timestamp - t) })
        return (peak, try #require(poses.first))
    }

    @Test(arguments: exercisesAndSides)
    func aCleanPeakBreaksNoRule(_ exercise: Exercise, _ side: BodySide) throws {
        for peak in Self.peaks(exercise) {
            let simulation = Self.simulation(exercise, side: side, reps: [SimulatedRep(peak: peak)])
            let (pose, start) = try Self.peakAndStart(simulation)
            #expect(Self.broken(exercise, side: side, in: pose, start: start) == [], "\(exercise.id) at \(peak)")
        }
    }

    @Test(arguments: faultCases)
    func eachFaultBreaksItsRuleAndNoOther(_ exercise: Exercise, _ fault: FormFeedback, _ side: BodySide) throws {
        let peak = Scenario.typicalPeak(for: exercise)
        let simulation = Self.simulation(exercise, side: side, reps: [SimulatedRep(peak: peak, faults: [fault])])
        let (pose, start) = try Self.peakAndStart(simulation)
        #expect(Self.broken(exercise, side: side, in: pose, start: start) == [fault])
        // The rep still reaches its entry, so it is counted (and rejected).
        var measurement = exercise.measurement.resolve(side: side)
        for earlier in simulation.poses() where earlier.timestamp < pose.timestamp { _ = measurement.measure(earlier) }
        let measured = measurement.measure(pose)
        let value = try #require(measured)
        #expect(exercise.direction.sign * (value - exercise.thresholds.enter) > 0, "\(exercise.id) at \(value)")
    }
}
