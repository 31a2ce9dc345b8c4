// A write/query micro-benchmark of a SessionStore, in process (no HTTP): creates and checkpoints one by one and in
// batches as live sessions write them (CreateBatcher, CheckpointBatcher), and list latency percentiles.
//
//     swift run -c release store-bench [SESSIONS] [--database postgres://…]
//
// Without --database the store is a SQLiteSessionStore in a new temporary file; with a PostgreSQL URL it is a
// PostgresSessionStore on that database, which should be empty (the script gives each run a new one).
//
// Work is inside a function: closures at the top level of main.swift are main-actor isolated.
import Foundation
import MotionCore
import SessionStore

/// The command line: `[SESSIONS] [--database URL]`, in any order.
struct Options {
    var sessions = 2_000
    var database: String?

    init(_ arguments: [String]) throws {
        var rest = arguments[...]
        while let argument = rest.popFirst() {
            if argument == "--database" {
                guard let url = rest.popFirst() else { throw UsageError(message: "--database needs a URL") }
                database = url
            } else if argument.hasPrefix("--database=") {
                database = String(argument.dropFirst("--database=".count))
            } else if let count = Int(argument), count > 0 {
                sessions = count
            } else {
                throw UsageError(message: "usage: store-bench [SESSIONS] [--database postgres://…]")
            }
        }
        if let database, !PostgresSessionStore.isURL(database) {
            throw UsageError(message: "--database takes a postgres:// URL (the default store is SQLite)")
        }
    }
}

/// A command line store-bench does not take.
struct UsageError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

func run() async throws {
    let options = try Options(Array(CommandLine.arguments.dropFirst()))
    let sessions = options.sessions
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("store-bench-\(getpid())")
    defer { try? FileManager.default.removeItem(at: directory) }
    let store: any SessionStore
    if let url = options.database {
        store = try await PostgresSessionStore(url: url)
        print("store: PostgreSQL (PostgresSessionStore)")
    } else {
        store = try await SQLiteSessionStore(path: directory.appendingPathComponent("bench.sqlite").path)
        print("store: SQLite (SQLiteSessionStore, WAL, synchronous=NORMAL)")
    }
    var series = ValueSeries(interval: 0.1, capacity: 36_000)
    for step in 0..<600 { series.record(Double(step % 90), at: Double(step) * 0.1) }  // one minute at 10 Hz
    var summary = SessionSummary(exercise: "elbowFlexion", side: .right, frames: 1_800, visibleFrames: 1_750)
    summary.reps = (1...10).map {
        Rep(index: $0, peak: 130, trough: 20, start: Double($0 * 6), end: Double($0 * 6 + 3))
    }
    summary.faultCounts = [.keepUpperArmStill: 2]
    summary.series = series

    let clock = ContinuousClock()
    var ids: [SessionID] = []
    let createTime = try await clock.measure {
        for i in 0..<sessions {
            let id = SessionID.generate(at: 1_700_000_000_000 + Int64(i))
            ids.append(id)
            try await store.create(
                StoredSession(
                    id: id, tenant: "t\(i % 4)", subject: "s\(i % 50)", startedAt: 1_700_000_000_000 + Int64(i),
                    summary: summary))
        }
    }
    // A burst of starts: new sessions as `start` writes them (nothing measured yet, a resume token's digest and the
    // start message), 25 a transaction, as the server gathers those that arrive while the store is busy.
    var fresh = SessionSummary(exercise: "elbowFlexion", side: .right)
    fresh.series = ValueSeries(interval: 0.1, capacity: 36_000)
    let resumption = SessionResumption(
        tokenDigest: Array(repeating: 0xA5, count: 32), start: #"{"type":"start","exercise":"elbowFlexion"}"#)
    let startTime = try await clock.measure {
        for first in stride(from: 0, to: sessions, by: 25) {
            let batch = (first..<min(first + 25, sessions)).map { i in
                var session = StoredSession(
                    id: SessionID.generate(at: 1_750_000_000_000 + Int64(i)), tenant: "starts",
                    startedAt: 1_750_000_000_000 + Int64(i), summary: fresh)
                session.resumption = resumption
                return session
            }
            let refused = try await store.create(batch)
            precondition(refused.isEmpty, "creates refused: \(refused)")
        }
    }
    let checkpointTime = try await clock.measure {
        for (i, id) in ids.enumerated() { try await store.checkpoint(id: id, tenant: "t\(i % 4)", summary: summary) }
    }
    var latencies: [Duration] = []
    for i in 0..<500 {
        let start = clock.now
        _ = try await store.list(SessionQuery(tenant: "t\(i % 4)", subject: i % 2 == 0 ? "s\(i % 50)" : nil))
        latencies.append(clock.now - start)
    }
    latencies.sort()
    var gets: [Duration] = []
    for i in 0..<500 {
        let id = ids[(i * 7_919) % ids.count]
        let start = clock.now
        _ = try await store.session(id: id, tenant: "t\((i * 7_919) % ids.count % 4)")
        gets.append(clock.now - start)
    }
    gets.sort()
    // REST under load: 16 clients at once, each reading 50 times in turn a page, a page by subject and a session.
    let clients = 16
    let (concurrent, concurrentTime) = try await measureConcurrentReads(
        store, ids: ids, clients: clients, readsEach: 50, clock: clock)

    // Long live sessions: an hour at 10 Hz (the series' full 36,000 samples) with 720 reps each, then one round of
    // checkpoints that each bring five more seconds (50 samples, one rep), as the live path writes them.
    let longSessions = max(1, sessions / 10)
    var hour = summary
    hour.series = ValueSeries(interval: 0.1, capacity: 36_000)
    for step in 0..<35_950 { hour.series.record(Double(step % 90), at: Double(step) * 0.1) }
    hour.reps = (1...720).map { Rep(index: $0, peak: 130, trough: 20, start: Double($0 * 5), end: Double($0 * 5 + 3)) }
    var longIDs: [SessionID] = []
    for i in 0..<longSessions {
        let id = SessionID.generate(at: 1_800_000_000_000 + Int64(i))
        longIDs.append(id)
        try await store.create(
            StoredSession(id: id, tenant: "long", startedAt: 1_800_000_000_000 + Int64(i), summary: hour))
    }
    var later = hour
    for step in 35_950..<36_000 { later.series.record(Double(step % 90), at: Double(step) * 0.1) }
    later.reps.append(Rep(index: 721, peak: 130, trough: 20, start: 3_605, end: 3_608))
    let longTime = try await clock.measure {
        for id in longIDs { try await store.checkpoint(id: id, tenant: "long", summary: later) }
    }
    // The live path at 2,500 sessions: each checkpoints every 5 s with its engine state (about 800 bytes) and the
    // 5 s of series and rep it gained, gathered by the server's batcher into one transaction per 50 ms — 25 sessions
    // a batch. One round is what the store thread writes every 5 s; each of the rounds brings 5 s more.
    let liveSessions = 2_500
    let perBatch = 25
    let liveRounds = 3
    // They start as a burst of new sessions does, the server writing the creates that gather while the store is busy
    // together: here 25 a transaction.
    let liveIDs = (0..<liveSessions).map { SessionID.generate(at: 1_900_000_000_000 + Int64($0)) }
    let batchedCreateTime = try await clock.measure {
        for start in stride(from: 0, to: liveSessions, by: perBatch) {
            let batch = (start..<min(start + perBatch, liveSessions)).map {
                StoredSession(
                    id: liveIDs[$0], tenant: "live", startedAt: 1_900_000_000_000 + Int64($0), summary: summary)
            }
            let refused = try await store.create(batch)
            precondition(refused.isEmpty, "creates refused: \(refused)")
        }
    }
    var gained = summary
    let state = [UInt8](repeating: 0x5A, count: 808)
    var batchTimes: [Duration] = []
    var roundTimes: [Duration] = []
    for round in 0..<liveRounds {
        for step in (600 + 50 * round)..<(650 + 50 * round) {
            gained.series.record(Double(step % 90), at: Double(step) * 0.1)
        }
        let rep = 11 + round
        gained.reps.append(
            Rep(index: rep, peak: 130, trough: 20, start: Double(rep * 6 - 5), end: Double(rep * 6 - 2)))
        var roundTime = Duration.zero
        for start in stride(from: 0, to: liveSessions, by: perBatch) {
            let batch = liveIDs[start..<min(start + perBatch, liveSessions)].map {
                SessionCheckpoint(id: $0, tenant: "live", summary: gained, engineState: state)
            }
            let time = try await clock.measure {
                let refused = try await store.checkpoint(batch)
                precondition(refused.isEmpty, "checkpoints refused: \(refused)")
            }
            batchTimes.append(time)
            roundTime += time
        }
        roundTimes.append(roundTime)
    }
    let liveTime = roundTimes.reduce(Duration.zero, +)
    roundTimes.sort()
    let roundTime = roundTimes[roundTimes.count / 2]
    batchTimes.sort()

    func perSecond(_ duration: Duration) -> Int {
        Int(Double(sessions) / (Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18))
    }
    print("sessions: \(sessions) (10 reps, 600-sample series each)")
    print("create: \(perSecond(createTime))/s, checkpoint: \(perSecond(checkpointTime))/s")
    print("burst of starts (new sessions without data, 25 a transaction): \(perSecond(startTime))/s")
    func seconds(_ duration: Duration) -> Double {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) * 1e-18
    }
    func ms(_ duration: Duration) -> String { String(format: "%.2f ms", seconds(duration) * 1_000) }
    print(
        "list (limit 50): p50 \(ms(latencies[latencies.count / 2])), p99 \(ms(latencies[latencies.count * 99 / 100]))")
    print(
        "get (one session with reps and series): p50 \(ms(gets[gets.count / 2])), p99 \(ms(gets[gets.count * 99 / 100]))"
    )
    print(
        "\(clients) clients reading at once (list, list by subject, get): \(concurrent.count) reads, "
            + "\(Int(Double(concurrent.count) / seconds(concurrentTime)))/s, p50 \(ms(concurrent[concurrent.count / 2])), "
            + "p99 \(ms(concurrent[concurrent.count * 99 / 100]))")
    let longSeconds = seconds(longTime)
    print(
        "hour-long sessions: \(longSessions) (36,000 samples, 720 reps); checkpoint adding 5 s: "
            + "\(Int(Double(longSessions) / longSeconds))/s")
    print(
        "live round at \(liveSessions) sessions (checkpoints with an 808-byte engine state, \(perBatch) a batch): "
            + "\(ms(roundTime)) per 5 s round, median of \(liveRounds) "
            + "(\(String(format: "%.1f", seconds(roundTime) / 5 * 100)) % of the store thread), "
            + "batch p50 \(ms(batchTimes[batchTimes.count / 2])), p99 \(ms(batchTimes[batchTimes.count * 99 / 100]))")
    print(
        "batched create: \(Int(Double(liveSessions) / seconds(batchedCreateTime)))/s "
            + "(\(liveSessions) sessions, \(perBatch) a transaction)")
    print(
        "batched checkpoint: \(Int(Double(liveSessions * liveRounds) / seconds(liveTime)))/s "
            + "(\(liveRounds) rounds of \(liveSessions), \(perBatch) a transaction)")
    await store.close()
}

try await run()

/// Reads from `clients` tasks at once, each `readsEach` times in turn a page, a page by subject and one session.
/// - Returns: Every read's latency, sorted, and the time all took.
func measureConcurrentReads(
    _ store: any SessionStore, ids: [SessionID], clients: Int, readsEach: Int, clock: ContinuousClock
) async throws -> ([Duration], Duration) {
    let start = clock.now
    var all = try await withThrowingTaskGroup(of: [Duration].self) { group in
        for client in 0..<clients {
            group.addTask {
                var latencies: [Duration] = []
                for read in 0..<readsEach {
                    let i = client * readsEach + read
                    let began = clock.now
                    switch read % 3 {
                    case 0: _ = try await store.list(SessionQuery(tenant: "t\(i % 4)"))
                    case 1: _ = try await store.list(SessionQuery(tenant: "t\(i % 4)", subject: "s\(i % 50)"))
                    default:
                        let index = (i * 7_919) % ids.count
                        _ = try await store.session(id: ids[index], tenant: "t\(index % 4)")
                    }
                    latencies.append(clock.now - began)
                }
                return latencies
            }
        }
        var all: [Duration] = []
        for try await latencies in group { all += latencies }
        return all
    }
    let time = clock.now - start
    all.sort()
    return (all, time)
}
