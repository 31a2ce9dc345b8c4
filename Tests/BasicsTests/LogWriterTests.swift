import Dispatch
import Glibc
import Testing

@testable import Basics

/// Log lines handed to a writer thread, over a real pipe.
@Suite struct LogWriterTests {
    /// A pipe whose read end is drained by a thread of its own into `received`, until the write end closes.
    final class Drain: @unchecked Sendable {
        // Safety: `received` is written by the draining thread and read after `done` is signalled.
        let readEnd: Int32
        let writeEnd: Int32
        private var received: [UInt8] = []
        private let done = DispatchSemaphore(value: 0)

        init(pipeSize: Int32? = nil) throws {
            var fds: [Int32] = [0, 0]
            try #require(pipe(&fds) == 0)
            (readEnd, writeEnd) = (fds[0], fds[1])
            // F_SETPIPE_SZ (1031), which Glibc's module does not export.
            if let pipeSize { _ = fcntl(writeEnd, 1031, pipeSize) }
        }

        func start() {
            DispatchQueue.global().async { [self] in
                var buffer = [UInt8](repeating: 0, count: 65536)
                while true {
                    let count = buffer.withUnsafeMutableBytes { read(readEnd, $0.baseAddress, $0.count) }
                    if count <= 0 { break }
                    received += buffer[0..<count]
                }
                close(readEnd)
                done.signal()
            }
        }

        /// Closes the write end and returns every line read.
        func lines() -> [String] {
            close(writeEnd)
            done.wait()
            return String(decoding: received, as: UTF8.self).split(separator: "\n").map(String.init)
        }
    }

    @Test func linesFromManyThreadsArriveWholeAndInEachThreadsOrder() throws {
        let drain = try Drain()
        drain.start()
        let writer = LogWriter(fd: drain.writeEnd, name: "log-test")
        DispatchQueue.concurrentPerform(iterations: 4) { thread in
            for index in 0..<500 { writer.write(Array("thread=\(thread) line=\(index)\n".utf8)) }
        }
        writer.flush()
        let lines = drain.lines()
        #expect(lines.count == 2000)
        for thread in 0..<4 {
            let own = lines.filter { $0.hasPrefix("thread=\(thread) ") }
            #expect(own == (0..<500).map { "thread=\(thread) line=\($0)" })
        }
    }

    /// Nobody reads while the lines are written: the pipe fills, the writer thread blocks, the buffer reaches its
    /// bound and later lines are dropped, counted, and the count written once the reader drains the pipe.
    @Test func aStuckDescriptorDropsLinesAndSaysHowMany() throws {
        let drain = try Drain(pipeSize: 4096)
        let writer = LogWriter(fd: drain.writeEnd, capacity: 1024, name: "log-test")
        let total = 3000
        for index in 0..<total { writer.write(Array("line=\(index)\n".utf8)) }  // returns at once: never blocks
        drain.start()
        writer.flush()
        let lines = drain.lines()
        let kept = lines.filter { $0.hasPrefix("line=") }.map { Int($0.dropFirst(5))! }
        let dropped = lines.filter { $0.hasPrefix("level=warning msg=\"log lines dropped\" count=") }
            .map { Int($0.split(separator: "=").last!)! }
        #expect(!dropped.isEmpty, "a 4 KiB pipe and a 1 KiB buffer cannot hold \(total) lines")
        #expect(kept.count + dropped.reduce(0, +) == total, "every line written or counted")
        #expect(kept == kept.sorted(), "in order")
        #expect(kept.first == 0, "the first lines are kept")
    }
}
