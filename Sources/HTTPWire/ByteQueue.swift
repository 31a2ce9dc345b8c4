/// The parser's input buffer: appended bytes plus a read cursor.
///
/// Consumed bytes are dropped on the next append, so the buffer only ever holds bytes that have not been parsed
/// yet. Line scanning is resumable, so feeding a long line one byte at a time stays linear.
struct ByteQueue: Sendable {
    /// Outcome of looking for the next CRLF-terminated line.
    enum LineScan: Equatable {
        /// A complete line; the range (into `storage`) excludes CRLF. The line has been consumed.
        case line(Range<Int>)
        /// No complete line yet and the limit is not reached.
        case incomplete
        /// No line terminator within the allowed number of bytes.
        case tooLong
        /// A line ended in LF without CR (RFC 9112 §2.2).
        case bareLineFeed
        /// A CR not followed by LF (RFC 9112 §2.2).
        case bareCarriageReturn
    }

    /// Backing storage; bytes before `readIndex` are already consumed.
    private(set) var storage: [UInt8] = []
    /// Index of the first unconsumed byte.
    private(set) var readIndex = 0
    /// How far (relative to `readIndex`) the current line was already scanned without finding its end.
    private var scanOffset = 0

    /// Capacity above which an emptied buffer releases its memory.
    private static let retainedCapacity = 64 * 1024

    /// Number of unconsumed bytes.
    var count: Int { storage.count - readIndex }

    /// Whether no unconsumed bytes remain.
    var isEmpty: Bool { readIndex == storage.count }

    /// Appends raw bytes.
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        compact()
        storage.append(contentsOf: bytes)
    }

    /// Appends a sequence of bytes.
    mutating func append(contentsOf bytes: some Sequence<UInt8>) {
        compact()
        storage.append(contentsOf: bytes)
    }

    /// Drops consumed bytes from the front of the storage.
    private mutating func compact() {
        guard readIndex > 0 else { return }
        if readIndex == storage.count {
            if storage.capacity > Self.retainedCapacity {
                storage = []
            } else {
                storage.removeAll(keepingCapacity: true)
            }
        } else {
            storage.removeSubrange(0..<readIndex)
        }
        readIndex = 0
    }

    /// Consumes and returns up to `maxCount` bytes.
    mutating func read(upTo maxCount: Int) -> [UInt8] {
        let taken = min(maxCount, count)
        let bytes = Array(storage[readIndex..<(readIndex + taken)])
        advance(by: taken)
        return bytes
    }

    /// Consumes and returns every unconsumed byte.
    mutating func readAll() -> [UInt8] {
        read(upTo: count)
    }

    /// Calls `body` with the unconsumed bytes.
    func withUnconsumedBytes<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        storage.withUnsafeBytes { body(UnsafeRawBufferPointer(rebasing: $0[readIndex...])) }
    }

    /// Calls `body` with the unconsumed bytes, which it may change in place.
    mutating func withUnconsumedMutableBytes<Result>(_ body: (UnsafeMutableRawBufferPointer) -> Result) -> Result {
        let start = readIndex
        return storage.withUnsafeMutableBytes { body(UnsafeMutableRawBufferPointer(rebasing: $0[start...])) }
    }

    /// The unconsumed byte at `offset`, if buffered.
    func peek(at offset: Int) -> UInt8? {
        readIndex + offset < storage.count ? storage[readIndex + offset] : nil
    }

    /// Consumes `byteCount` bytes.
    mutating func advance(by byteCount: Int) {
        readIndex += byteCount
        scanOffset = 0
    }

    /// Drops everything, e.g. after a parse error.
    mutating func removeAll() {
        storage = []
        readIndex = 0
        scanOffset = 0
    }

    /// Looks for the next line terminated by CRLF within `room` bytes (terminator included).
    ///
    /// Only the first `room` bytes are examined, so the result does not depend on how the input was split.
    /// - Parameter room: The maximum number of bytes the line may occupy including CRLF.
    mutating func scanLine(room: Int) -> LineScan {
        let available = count
        let window = min(available, max(room, 0))
        var index = scanOffset
        var found: LineScan?
        storage.withUnsafeBufferPointer { buffer in
            let base = readIndex
            while index < window {
                let byte = buffer[base + index]
                if byte == ASCII.lineFeed {
                    if index == 0 || buffer[base + index - 1] != ASCII.carriageReturn {
                        found = .bareLineFeed
                    } else {
                        found = .line(base..<(base + index - 1))
                    }
                    return
                }
                if byte == ASCII.carriageReturn && index + 1 < window && buffer[base + index + 1] != ASCII.lineFeed {
                    found = .bareCarriageReturn
                    return
                }
                index += 1
            }
        }
        if let found {
            if case .line = found {
                advance(by: index + 1)
            }
            return found
        }
        if available >= room {
            return .tooLong
        }
        // Re-examine a trailing CR once its successor arrives.
        scanOffset = max(window - 1, 0)
        return .incomplete
    }
}
