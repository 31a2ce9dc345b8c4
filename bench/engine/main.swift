import Basics
import Glibc
import MotionCore
import MotionSimulation

/// Engine benchmark: nanoseconds per processed frame for every catalog exercise, median of several runs.
///
/// Usage: `engine-bench [--runs N] [--seconds S] [--passes P]`. Poses are simulated up front (noise, dropouts,
/// faults), so only `MotionEngine.process` is timed. With `--passes` only (no timing output) it serves the
/// allocation probe in `bench/engine.sh`, which runs it under valgrind with two pass counts.
struct Options {
    var runs = 5
    var seconds = 60.0
    var passes: Int?
    var exercise: String?

    /// Reads the command line; a malformed one is printed with the usage and exits 2.
    init(_ arguments: [String]) {
        let flags = CommandLineFlags([.value("runs"), .value("seconds"), .value("passes"), .value("exercise")])
        do throws(FlagError) {
            let parsed = try flags.parse(arguments)
            guard !parsed.wantsHelp else {
                Console.line(Self.usage)
                exit(0)
            }
            for flag in parsed.flags {
                switch flag.name {
                case "runs": runs = try flag.integer(in: 1...Int.max)
                case "seconds": seconds = try flag.number(in: 0.001...Double.infinity)
                case "passes": passes = try flag.integer(in: 1...Int.max)
                case "exercise": exercise = flag.value
                default: preconditionFailure("--\(flag.name) is not declared")
                }
            }
        } catch {
            Console.error("engine-bench: \(error.message)\n\(Self.usage)")
            exit(2)
        }
    }

    static let usage = "usage: engine-bench [--runs N] [--seconds S] [--passes P] [--exercise ID]"
}

func simulatedPoses(for exercise: Exercise, seconds: Double) -> [Pose] {
    let peak = Scenario.typicalPeak(for: exercise)
    // Peaks vary by a few percent of the way from rest, towards rest.
    let step = 0.04 * (peak - exercise.thresholds.rest)
    let faults = exercise.possibleFaults
    let repLength = exercise.kind == .hold ? exercise.thresholds.holdSeconds + 3.7 : 3.0
    let count = max(1, Int(seconds / repLength))
    var simulation = Simulation(
        exercise: exercise, side: .right,
        reps: (0..<count).map { i in
            SimulatedRep(
                peak: peak - Double(i % 4) * step,
                faults: i % 5 == 4 && !faults.isEmpty ? [faults[i % faults.count]] : [],
                side: exercise.sidedness == .alternating && i % 2 == 1 ? .left : nil)
        })
    simulation.noise = 1.5
    simulation.dropoutRate = 0.01
    simulation.outOfFrame = [simulation.duration / 2...simulation.duration / 2 + 0.5]
    return simulation.poses()
}

/// Feeds `poses` `passes` times through one engine, shifting timestamps so they keep increasing.
func process(_ poses: [Pose], exercise: Exercise, passes: Int) -> (events: Int, frames: Int) {
    var engine: MotionEngine
    do {
        engine = try MotionEngine(configuration: SessionConfiguration(exercise: exercise, side: .right))
    } catch {
        fatalError("catalog exercise refused: \(error)")
    }
    let span = (poses.last?.timestamp ?? 0) + 1
    var events = 0
    var buffer: [MotionEvent] = []
    buffer.reserveCapacity(8)
    for pass in 0..<passes {
        let offset = Double(pass) * span
        for var pose in poses {
            pose.timestamp += offset
            do {
                try engine.process(pose, into: &buffer)
                events += buffer.count
                buffer.removeAll(keepingCapacity: true)
            } catch {
                fatalError("simulated pose refused: \(error)")
            }
        }
    }
    return (events, poses.count * passes)
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1
        ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

func main() {
    let options = Options(Array(CommandLine.arguments.dropFirst()))
    let exercises = Exercise.catalog.filter { options.exercise == nil || $0.id == options.exercise }
    if let passes = options.passes {
        var total = (events: 0, frames: 0)
        for exercise in exercises {
            let poses = simulatedPoses(for: exercise, seconds: options.seconds)
            let counts = process(poses, exercise: exercise, passes: passes)
            total = (total.events + counts.events, total.frames + counts.frames)
        }
        print("frames \(total.frames) events \(total.events)")
        return
    }
    let clock = ContinuousClock()
    var all: [Double] = []
    print("exercise                 frames/run  ns/frame (median of \(options.runs))  min     max")
    for exercise in exercises {
        let poses = simulatedPoses(for: exercise, seconds: options.seconds)
        _ = process(poses, exercise: exercise, passes: 1)
        var perFrame: [Double] = []
        for _ in 0..<options.runs {
            var frames = 0
            let elapsed = clock.measure { frames = process(poses, exercise: exercise, passes: 1).frames }
            let ns = Double(elapsed.components.seconds) * 1e9 + Double(elapsed.components.attoseconds) / 1e9
            perFrame.append(ns / Double(frames))
        }
        all += perFrame
        let name = exercise.id + String(repeating: " ", count: max(0, 24 - exercise.id.count))
        print(
            "\(name) \(String(poses.count).leftPad(10))  \(fixed(median(perFrame)).leftPad(10))"
                + "                 \(fixed(perFrame.min() ?? 0).leftPad(6))  \(fixed(perFrame.max() ?? 0).leftPad(6))")
    }
    print(
        "all exercises: median \(fixed(median(all))) ns/frame = \(fixed(1e9 / median(all) / 1e6)) M frames/s per core")
}

func fixed(_ value: Double) -> String { String((value * 10).rounded() / 10) }

extension String {
    func leftPad(_ width: Int) -> String { String(repeating: " ", count: max(0, width - count)) + self }
}

main()
