import Glibc
import LoadKit
import MotionCore
import NetCore

// motion-load: how many live sessions at 30 poses/s a motion-server holds. See `LoadOptions.usage`.

/// Runs `body` on `loop`'s thread and returns its result.
func onLoop<T: Sendable>(_ loop: EventLoop, _ body: @escaping @Sendable () -> T) async -> T {
    await withCheckedContinuation { continuation in loop.execute { continuation.resume(returning: body()) } }
}

func sleep(seconds: Double) async {
    try? await Task.sleep(for: .nanoseconds(Int64(max(0, seconds) * 1e9)))
}

func sleep(until deadline: UInt64) async {
    let now = EventLoop.now()
    if deadline > now { await sleep(seconds: Double(deadline - now) / 1e9) }
}

@main
struct MotionLoad {
    static func main() async {
        let options = LoadOptions.parse(Array(CommandLine.arguments.dropFirst()))
        signal(SIGPIPE, SIG_IGN)
        ProcessStats.raiseFileLimit(needed: options.findCapacity ? options.maxSessions : options.sessions)
        let script: PoseScript
        do {
            if let path = options.posesFile {
                script = try PoseScript.recorded(path: path)
            } else {
                let exercise = Exercise.catalog.first { $0.id == options.exercise } ?? .squat
                script = try PoseScript.simulated(exercise: exercise, side: options.side, rate: options.rate)
            }
        } catch {
            LoadOptions.fail(error.description)
        }
        guard let target = options.target else { LoadOptions.fail("--url is required") }
        let group: EventLoopGroup
        do {
            let tick = Duration.nanoseconds(Int64(max(1, options.tickMicroseconds * 1000)))
            group = try EventLoopGroup(
                loops: options.loops, name: "load-loop", idleWait: options.poll ? .poll(interval: tick) : .block)
        } catch {
            LoadOptions.fail("cannot start event loops: \(error)")
        }
        let driver = LoadDriver(options: options, target: target, script: script, group: group)
        let succeeded = await driver.run().succeeded
        exit(succeeded ? 0 : 1)
    }
}
