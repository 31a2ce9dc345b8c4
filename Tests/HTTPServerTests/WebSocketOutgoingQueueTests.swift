import HTTPServer
import Testing

@Suite("WebSocket outgoing queue")
struct WebSocketOutgoingQueueTests {
    typealias Queue = WebSocket.OutgoingQueue

    /// Sends everything queued, `chunk` bytes at a time, and returns the bytes in the order they left.
    static func drain(_ queue: inout Queue, chunk: Int = .max) -> [UInt8] {
        var sent: [UInt8] = []
        while !queue.isEmpty {
            let count = queue.withUnsentHead { head in
                let count = min(chunk, head.count)
                sent += head.prefix(count)
                return count
            }
            queue.removeSent(count)
        }
        return sent
    }

    @Test func replacesAQueuedFrameWithTheSameKeyInItsPlace() {
        var queue = Queue()
        queue.append([1, 1], key: .message("snapshot"))
        queue.append([2], key: nil)
        queue.append([3, 3, 3], key: .message("snapshot"))
        queue.append([4], key: .message("other"))
        #expect(queue.byteCount == 5)
        #expect(Self.drain(&queue) == [3, 3, 3, 2, 4])
        #expect(queue.byteCount == 0)
    }

    @Test func neverReplacesAFrameThatHasStartedToLeave() {
        var queue = Queue()
        queue.append([1, 1, 1, 1], key: .pong, sent: 1)
        queue.append([2, 2], key: .pong)
        queue.append([3, 3], key: .pong)
        #expect(queue.byteCount == 5)
        #expect(Self.drain(&queue) == [1, 1, 1, 3, 3])
    }

    @Test func holdsOnePendingPongHoweverManyPingsArrive() {
        var queue = Queue()
        queue.append([0xA, 0x1, 0], key: .pong)
        queue.removeSent(1)
        for index in 1...10_000 { queue.append([0xA, 0x1, UInt8(truncatingIfNeeded: index)], key: .pong) }
        #expect(queue.byteCount == 2 + 3, "the rest of the started pong, and the newest")
        #expect(queue.storedFrameCount == 2)
        #expect(Self.drain(&queue, chunk: 1) == [0x1, 0, 0xA, 0x1, UInt8(truncatingIfNeeded: 10_000)])
    }

    @Test func reclaimsSentFramesWhenTheQueueNeverEmpties() {
        var queue = Queue()
        queue.append([0], key: nil)
        for index in 1...10_000 {
            queue.append([UInt8(truncatingIfNeeded: index)], key: index.isMultiple(of: 3) ? .message("k") : nil)
            queue.removeSent(1)
            #expect(queue.byteCount == 1)
        }
        #expect(queue.storedFrameCount <= 128, "sent frames are not kept: \(queue.storedFrameCount) stored")
        // Keys still point at the right frames after the storage moved.
        queue.append([7], key: .message("k"))
        queue.append([8], key: .message("k"))
        #expect(Self.drain(&queue) == [UInt8(truncatingIfNeeded: 10_000), 8])
    }

    @Test func givesBackABacklogsStorageOnceEmpty() {
        var queue = Queue()
        for _ in 0..<1000 { queue.append([1, 2, 3], key: nil) }
        _ = Self.drain(&queue)
        #expect(queue.isEmpty)
        #expect(queue.storedFrameCount == 0)
        queue.append([9], key: .message("k"))
        #expect(Self.drain(&queue) == [9])
    }

    @Test func admitsUpToItsLimitAndACloseFrameBeyondIt() {
        var queue = Queue(limit: 4)
        let first = queue.append([1, 1], key: .pong)
        #expect(first)
        let replaced = queue.append([2, 2, 2, 2], key: .pong)
        #expect(replaced, "at the limit is within it")
        let over = queue.append([3], key: nil)
        #expect(!over, "past the limit: the peer is too slow")
        #expect(queue.byteCount == 5, "the frame is queued all the same")
        let close = queue.append([0x88, 0], key: nil, exempt: true)
        #expect(close, "a close frame is always admitted")
        let shrunk = queue.append([4], key: .pong)
        #expect(shrunk, "a smaller replacement brings the queue back within it")
        #expect(queue.byteCount == 4)
        _ = Self.drain(&queue)
        let again = queue.append([5, 5, 5, 5], key: nil)
        #expect(again, "room comes back as bytes leave")
        queue.removeAll()
        #expect(queue.limit == 4 && queue.isEmpty)
    }
}
