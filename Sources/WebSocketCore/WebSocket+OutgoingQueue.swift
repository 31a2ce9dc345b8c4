import NetCore

extension WebSocket {
    /// The frames waiting for the socket, oldest first, and the count of their unsent bytes. Bookkeeping only: the
    /// connection does the writing.
    ///
    /// A frame queued with a key replaces, in its place, the newest queued frame with the same key that has not
    /// started to leave; other frames go last. A frame's bytes are released as soon as it has left, and the room of
    /// frames that have left is reclaimed as the queue advances, so a queue that never quite empties (a reader that
    /// only just keeps up) does not grow with what it has already sent.
    package struct OutgoingQueue {
        /// What a queued frame may be replaced by.
        package enum Key: Hashable {
            /// An application's coalescing key (``WebSocket/send(_:replacing:)``).
            case message(String)
            /// The pong to the newest ping (RFC 6455 §5.5.3).
            case pong
        }

        private var frames: [[UInt8]] = []
        /// The index of the first frame not wholly sent.
        private var head = 0
        /// How many bytes of the head frame have been sent.
        private var headOffset = 0
        /// Where the newest frame of each key is: replacing costs no search of the queue.
        private var newest: [Key: Int] = [:]
        /// The bytes not yet sent.
        package private(set) var byteCount = 0
        /// The most unsent bytes the queue admits (``ConnectionBudget/pendingOutputBytes``): past it the peer reads
        /// too slowly and the connection fails.
        package let limit: Int

        /// An empty queue.
        /// - Parameter limit: The most unsent bytes it admits.
        package init(limit: Int = .max) {
            self.limit = limit
        }

        /// Whether every frame has been sent.
        package var isEmpty: Bool { head == frames.count }

        /// How many frames the storage holds, sent ones not yet reclaimed included.
        package var storedFrameCount: Int { frames.count }

        /// Queues a frame: in place of the newest frame with the same key if that one has not started, else last.
        /// - Parameters:
        ///   - frame: The frame's bytes.
        ///   - key: What it replaces and may be replaced by.
        ///   - sent: How many of its bytes have already left; only for a frame that heads an empty queue.
        ///   - exempt: Whether the frame is admitted past ``limit`` (a close frame must always be sendable, and
        ///     nothing is queued after it).
        /// - Returns: Whether the queue is within its limit: false means the peer is too slow for it (the frame is
        ///   queued all the same; the connection fails).
        @discardableResult
        package mutating func append(_ frame: [UInt8], key: Key?, sent: Int = 0, exempt: Bool = false) -> Bool {
            precondition(sent == 0 || isEmpty, "only the head frame can have started")
            if let key, sent == 0, let index = newest[key], index > head || (index == head && headOffset == 0) {
                byteCount += frame.count - frames[index].count
                frames[index] = frame
            } else {
                if let key { newest[key] = frames.count }
                frames.append(frame)
                if sent > 0 { headOffset = sent }
                byteCount += frame.count - sent
            }
            return exempt || byteCount <= limit
        }

        /// Lends the head frame's unsent bytes to `body`. The queue must not be empty.
        package func withUnsentHead<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
            let offset = headOffset
            return frames[head].withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[offset...])) }
        }

        /// Records that `count` bytes of the head frame have left.
        package mutating func removeSent(_ count: Int) {
            headOffset += count
            byteCount -= count
            guard headOffset == frames[head].count else { return }
            frames[head] = []
            head += 1
            headOffset = 0
            if head == frames.count {
                // The room of a short queue is kept for the next burst; a backlog's is given back.
                frames.removeAll(keepingCapacity: frames.capacity <= 16)
                newest.removeAll(keepingCapacity: newest.capacity <= 4)
                head = 0
            } else if head >= 64, head * 2 >= frames.count {
                let removed = head
                frames.removeSubrange(..<removed)
                newest = newest.compactMapValues { $0 >= removed ? $0 - removed : nil }
                head = 0
            }
        }

        /// Drops every frame and gives back the room.
        package mutating func removeAll() { self = OutgoingQueue(limit: limit) }
    }
}

extension WebSocket {
    /// What a connection keeps only while frames wait for the socket: the queue and the write timeout. Loop thread
    /// only, like the connection.
    final class Backlog {
        /// The frames waiting, oldest first.
        var frames: OutgoingQueue
        /// Armed when a write first finds the socket full; it checks that the peer takes bytes.
        var writeTimeout = WriteTimeout()
        /// Whether the write timeout is timing a stall of these frames (``WriteTimeout/socketFilled(fd:on:timeout:then:)``
        /// was called for them).
        var isStallTimed = false

        /// An empty backlog.
        /// - Parameter limit: The most unsent bytes the queue admits (``ConnectionBudget/pendingOutputBytes``).
        init(limit: Int) { frames = OutgoingQueue(limit: limit) }
    }
}

@available(*, unavailable)
extension WebSocket.Backlog: Sendable {}
