import Foundation
import MotionCore
import Synchronization
import Testing

@testable import SessionStore

/// `kill -9` then restart: run `store-crash-probe` (a real process writing to a real file), SIGKILL it, reopen.
@Suite struct CrashRecoveryTests {
    @Test func killNineThenRestartLeavesNoSessionLive() async throws {
        let probe = try Self.probeExecutable()
        try await withTemporaryDirectory { directory in
            let path = directory.appendingPathComponent("crash.sqlite")
            let count = 5
            let process = Process()
            process.executableURL = probe
            process.arguments = [path.path, String(count)]
            let output = Pipe()
            process.standardOutput = output
            try process.run()
            let ready = try await Self.waitForReady(output, process: process, timeout: .seconds(120))
            #expect(ready, "the probe exited or timed out before printing ready")
            kill(process.processIdentifier, SIGKILL)
            let status = try #require(await Self.waitForEnd(of: process), "the probe ended")
            #expect(status == SIGKILL, "killed by SIGKILL, not ended otherwise")
            #expect(FileManager.default.fileExists(atPath: path.path + "-wal"))  // died without a clean close

            let store = try await SQLiteSessionStore(path: path.path)
            let before = try await store.list(SessionQuery(tenant: "probe", limit: 500)).sessions
            #expect(before.count == count)
            #expect(before.allSatisfy { $0.status == .live })
            #expect(try await store.abandonLiveSessions() == count)
            #expect(try await store.list(SessionQuery(tenant: "probe", status: .live)).sessions.isEmpty)
            for i in 0..<count {
                let id = SessionID(time: 1_700_000_000_000 + UInt64(i), random: UInt128(i))
                let session = try #require(try await store.session(id: id, tenant: "probe"))
                #expect(session.status == .abandoned)
                #expect(session.endedAt != nil)
                #expect(session.subject == "subject-\(i)")
                #expect(session.summary == Self.probeSummary(i))  // the last checkpoint, intact
            }
            await store.close()
        }
    }

    /// The signal that ended `process`, once it has (0 if it exited instead), or nil after 30 s.
    ///
    /// Not `Process.waitUntilExit()`: on Linux it can miss a child's end and wait forever. A fresh-root run hung in
    /// it with the killed probe a zombie that nothing reaped. The child is reaped here with `waitpid`; when
    /// Foundation reaped it first, its own record is read once it has one.
    private static func waitForEnd(of process: Process) async -> Int32? {
        let pid = process.processIdentifier
        for _ in 0..<3000 {
            var status: Int32 = 0
            let reaped = waitpid(pid, &status, WNOHANG)
            if reaped == pid { return status & 0x7f }
            if reaped == -1, errno == ECHILD, !process.isRunning {
                return process.terminationReason == .uncaughtSignal ? process.terminationStatus : 0
            }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return nil
    }

    /// What the probe checkpoints for its session `i` (keep in step with Tests/store-crash-probe/main.swift).
    private static func probeSummary(_ i: Int) -> SessionSummary {
        var series = ValueSeries(interval: 0.1, capacity: 100)
        for step in 0..<20 { series.record(step % 5 == 0 ? nil : Double(step), at: Double(step) * 0.1) }
        return SessionSummary(
            exercise: "elbowFlexion", side: .right, frames: 30 * (i + 1), visibleFrames: 29 * (i + 1), repCount: i,
            best: 100 + Double(i),
            reps: (0..<i).map { Rep(index: $0 + 1, peak: 120, trough: 10, start: Double($0), end: Double($0) + 1) },
            faultCounts: i % 2 == 0 ? [.keepUpperArmStill: i] : [:], series: series)
    }

    /// The probe binary, built beside the test bundle by `swift build` / `swift test`. Fails (not skips) if missing.
    private static func probeExecutable() throws -> URL {
        let fileManager = FileManager.default
        var directories: [URL] = []
        if let executable = try? fileManager.destinationOfSymbolicLink(atPath: "/proc/self/exe") {
            directories.append(URL(fileURLWithPath: executable).deletingLastPathComponent())
        }
        directories.append(Bundle.main.bundleURL)
        directories.append(Bundle.main.bundleURL.deletingLastPathComponent())
        // Tests/SessionStoreTests/CrashRecoveryTests.swift → the package's .build/debug.
        let package = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        directories.append(package.appendingPathComponent(".build/debug"))
        let candidates = directories.map { $0.appendingPathComponent("store-crash-probe") }
        guard let found = candidates.first(where: { fileManager.isExecutableFile(atPath: $0.path) }) else {
            Issue.record("store-crash-probe not found; run `swift build` first. Looked in: \(candidates.map(\.path))")
            throw ProbeMissing()
        }
        return found
    }

    private struct ProbeMissing: Error {}

    /// Reads the probe's output until it prints `ready` (true) or exits (false); kills it after `timeout`.
    private static func waitForReady(_ pipe: Pipe, process: Process, timeout: Duration) async throws -> Bool {
        let watchdog = Task {
            try await Task.sleep(for: timeout)
            process.terminate()
        }
        defer { watchdog.cancel() }
        return await withCheckedContinuation { continuation in
            let handle = pipe.fileHandleForReading
            Thread.detachNewThread {
                var text = ""
                while true {
                    let data = handle.availableData  // blocks; empty at end of file
                    if data.isEmpty { return continuation.resume(returning: false) }
                    text += String(decoding: data, as: UTF8.self)
                    if text.contains("ready\n") { return continuation.resume(returning: true) }
                }
            }
        }
    }
}
