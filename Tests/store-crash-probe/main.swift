// Opens a session store, creates live sessions with checkpoints, prints "ready" and waits to be killed.
//
//     store-crash-probe PATH COUNT
//
// Used by SessionStoreTests to check that `kill -9` loses nothing checkpointed and that a restart abandons what was
// left live. The work is inside a function: closures at the top level of main.swift are main-actor isolated.
import Foundation
import MotionCore
import SessionStore

func run() async throws {
    let arguments = CommandLine.arguments
    guard arguments.count == 3, let count = Int(arguments[2]) else {
        FileHandle.standardError.write(Data("usage: store-crash-probe PATH COUNT\n".utf8))
        exit(2)
    }
    let store = try await SQLiteSessionStore(path: arguments[1])
    for i in 0..<count {
        let id = SessionID(time: 1_700_000_000_000 + UInt64(i), random: UInt128(i))
        var summary = SessionSummary(exercise: "elbowFlexion", side: .right)
        try await store.create(
            StoredSession(
                id: id, tenant: "probe", subject: "subject-\(i)", startedAt: 1_700_000_000_000 + Int64(i),
                summary: summary))
        var series = ValueSeries(interval: 0.1, capacity: 100)
        for step in 0..<20 { series.record(step % 5 == 0 ? nil : Double(step), at: Double(step) * 0.1) }
        summary.frames = 30 * (i + 1)
        summary.visibleFrames = 29 * (i + 1)
        summary.repCount = i
        summary.best = 100 + Double(i)
        summary.reps = (0..<i).map { Rep(index: $0 + 1, peak: 120, trough: 10, start: Double($0), end: Double($0) + 1) }
        summary.faultCounts = i % 2 == 0 ? [.keepUpperArmStill: i] : [:]
        summary.series = series
        try await store.checkpoint(id: id, tenant: "probe", summary: summary)
    }
    // Unbuffered, so the test sees it at once.
    FileHandle.standardOutput.write(Data("ready\n".utf8))
    while true { try await Task.sleep(for: .seconds(60)) }
}

try await run()
