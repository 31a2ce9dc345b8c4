public import MotionCore

extension Simulation {
    /// Reps in a demonstration of a rep exercise; a hold exercise shows half as many holds.
    public static let demoReps = 6

    /// A demonstration of `exercise` for people to watch, to be played in a loop: a short rest, six reps at
    /// typical depths (three holds of a hold exercise, each a second past its time), the second and fifth acting a
    /// form fault of the exercise (the second hold), then a moment out of frame and back to rest. The sides take
    /// turns in an alternating exercise. Every exercise, built-in or custom, counts its clean reps on it.
    /// - Parameters:
    ///   - exercise: The exercise.
    ///   - side: The working side (the first side of an alternating exercise).
    /// - Returns: The simulation, with light detector noise and the detector's confidences.
    public static func demo(of exercise: Exercise, side: BodySide) -> Simulation {
        let isHold = exercise.kind == .hold
        let faults = exercise.possibleFaults
        let count = isHold ? demoReps / 2 : demoReps
        let depths = [0.9, 0.85, 0.95, 0.8, 0.9, 0.85]
        let faulty: [Int: FormFeedback] =
            isHold
            ? [1: faults.first].compactMapValues { $0 }
            : [1: faults.first, 4: faults.dropFirst().first ?? faults.first].compactMapValues { $0 }
        let reps = (0..<count).map { index in
            SimulatedRep(
                peak: isHold
                    ? Scenario.typicalPeak(for: exercise) : Scenario.peakAt(fraction: depths[index], of: exercise),
                faults: faulty[index].map { [$0] } ?? [],
                holdFor: isHold ? exercise.thresholds.holdSeconds + 1 : nil,
                side: exercise.sidedness == .alternating ? (index.isMultiple(of: 2) ? side : side.opposite) : nil)
        }
        var simulation = Simulation(exercise: exercise, side: side, reps: reps)
        simulation.noise = 0.8
        simulation.seed = Scenario.stableSeed(exercise.id)
        simulation.tail = 3
        let end = simulation.duration
        simulation.outOfFrame = [(end - 2)...(end - 0.5)]
        return simulation
    }

    /// When each rep (or hold) of the simulation is acted: from its start to its end, seconds from the first pose.
    public var actedTimes: [ClosedRange<Double>] {
        var start = startTime + leadIn
        return reps.indices.map { index in
            let length = attemptDuration(index)
            defer { start += length + restDuration }
            return start...(start + length)
        }
    }
}
