import Basics
import Glibc
import Testing

@Suite struct LockedTests {
    @Test func threadsNeverLoseAnIncrement() {
        let counter = Locked((count: 0, finished: 0))
        for _ in 0..<4 {
            startThread(name: "locked-test") {
                for _ in 0..<10_000 { counter.withLock { $0.count += 1 } }
                counter.withLock { $0.finished += 1 }
                counter.wakeWaiters()
            }
        }
        let total = counter.withLock(waitingUntil: { $0.finished == 4 }, do: { $0.count })
        #expect(total == 40_000)
    }

    @Test func aWaiterRunsOnceTheValueIsReady() {
        let queue = Locked<[Int]>([])
        let taken = Locked<[Int]>([])
        startThread(name: "consumer") {
            for _ in 0..<3 {
                let first = queue.withLock(waitingUntil: { !$0.isEmpty }, do: { $0.removeFirst() })
                taken.withLock { $0.append(first) }
                taken.wakeWaiters()
            }
        }
        for value in [7, 8, 9] {
            queue.withLock { $0.append(value) }
            queue.wakeWaiters()
        }
        #expect(taken.withLock(waitingUntil: { $0.count == 3 }, do: { $0 }) == [7, 8, 9], "in order, none twice")
        #expect(queue.withLock { $0.isEmpty })
    }

    @Test func aReadyValueDoesNotWait() {
        let lock = Locked(1)
        let result = lock.withLock(
            waitingUntil: { $0 == 1 },
            do: { value -> Int in
                value += 1
                return value
            })
        #expect(result == 2)
    }

    struct Refusal: Error {}

    @Test func anErrorLeavesTheLockUsable() {
        let lock = Locked(0)
        #expect(throws: Refusal.self) {
            try lock.withLock { value in
                value = 5
                throw Refusal()
            }
        }
        #expect(lock.withLock { $0 } == 5, "what the body changed before throwing stays")
        lock.withLock { $0 += 1 }
        #expect(lock.withLock { $0 } == 6)
    }
}

@Suite struct StartThreadTests {
    /// The name the kernel holds for the thread that runs `startThread(name:)`'s body.
    static func nameSeen(starting name: String, stackSize: Int? = nil) -> String {
        let seen = Locked<String?>(nil)
        startThread(name: name, stackSize: stackSize) {
            var bytes = [UInt8](repeating: 0, count: 64)
            let fd = open("/proc/thread-self/comm", O_RDONLY)
            let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            close(fd)
            let comm = String(decoding: bytes.prefix(max(0, count)), as: UTF8.self)
            seen.withLock { $0 = comm.hasSuffix("\n") ? String(comm.dropLast()) : comm }
            seen.wakeWaiters()
        }
        return seen.withLock(waitingUntil: { $0 != nil }, do: { $0 ?? "" })
    }

    @Test func namesTheThread() {
        #expect(Self.nameSeen(starting: "store") == "store")
        #expect(Self.nameSeen(starting: "event-loop-3", stackSize: 1 << 20) == "event-loop-3")
    }

    @Test func keepsTheFirstFifteenBytesBetweenCharacters() {
        #expect(Self.nameSeen(starting: "load-test-event-loop-12") == "load-test-event")
        // "é" is two bytes: thirteen letters and one "é" fill the fifteen; after fourteen letters it would be cut
        // in half, so the name stops before it.
        #expect(Self.nameSeen(starting: "abcdefghijklm" + "éé") == "abcdefghijklmé")
        #expect(Self.nameSeen(starting: "abcdefghijklmn" + "é") == "abcdefghijklmn")
    }
}
