/// A session's id: a ULID, sortable by creation time.
///
/// 128 bits, written as 26 characters of Crockford base32 (`0-9A-Z` without `I L O U`):
///
///      01ARZ3NDEK TSV4RRFFQ69G5FAV
///     |----------|----------------|
///      48-bit time  80 random bits
///      (Unix ms)
///
/// Ids made in later milliseconds sort after earlier ones, both as values and as text, so the text is a good
/// primary key and the newest-first order of a list is an order on ids within one start time.
///
///     let id = SessionID.generate(at: 1_764_424_800_000)
///     SessionID(id.description) == id  // true
public struct SessionID: Hashable, Sendable, Comparable, CustomStringConvertible {
    /// The 128 bits: time in the top 48, randomness in the low 80.
    public var rawValue: UInt128 { UInt128(high) << 64 | UInt128(low) }

    // Kept as two 64-bit halves, not one `UInt128`: a value with 16-byte alignment captured by a task's closure
    // crashes the task when it ends (Swift 6.3 on x86-64 Linux), and ids are captured by tasks everywhere.
    private let high: UInt64
    private let low: UInt64

    /// The largest time a ULID can hold, Unix milliseconds (year 10889).
    public static let maximumTime: UInt64 = (1 << 48) - 1

    /// The mask of the 80 random bits.
    public static let randomMask: UInt128 = (1 << 80) - 1

    /// Creates an id from its parts; deterministic, for tests and replays.
    /// - Parameters:
    ///   - time: Unix milliseconds, at most ``maximumTime``.
    ///   - random: The random part; only its low 80 bits are used.
    /// - Precondition: `time <= SessionID.maximumTime`.
    public init(time: UInt64, random: UInt128) {
        precondition(time <= Self.maximumTime, "a ULID time has 48 bits")
        self.init(rawValue: UInt128(time) << 80 | (random & Self.randomMask))
    }

    /// Parses the canonical text form: exactly 26 upper-case Crockford base32 characters, the first at most `7`.
    ///
    /// Lower case and the Crockford aliases (`I`, `L`, `O`) are refused so that each id has one spelling.
    /// - Parameter text: The text.
    /// - Complexity: O(1), no allocation.
    public init?(_ text: some StringProtocol) {
        self.init(utf8: text.utf8)
    }

    /// Parses the canonical text form from its UTF-8 bytes, e.g. a column's text read in place.
    /// - Parameter bytes: The bytes.
    /// - Complexity: O(1), no allocation.
    init?(utf8 bytes: some Sequence<UInt8>) {
        let digitValues = Self.digitValues  // one lazy-global check, not one per byte
        var value: UInt128 = 0
        var count = 0
        for byte in bytes {
            guard count < 26, let digit = digitValues[Int(byte)] else { return nil }
            if count == 0 && digit > 7 { return nil }
            value = value << 5 | UInt128(digit)
            count += 1
        }
        guard count == 26 else { return nil }
        self.init(rawValue: value)
    }

    /// A new id for a session started at `unixMilliseconds`, with 80 bits from `generator`.
    /// - Parameters:
    ///   - unixMilliseconds: The start time, Unix milliseconds (clamped to `0...maximumTime`).
    ///   - generator: The source of randomness (seed one in tests).
    /// - Returns: The id.
    public static func generate(
        at unixMilliseconds: Int64, using generator: inout some RandomNumberGenerator
    ) -> SessionID {
        let time = UInt64(clamping: max(0, unixMilliseconds))
        let random = UInt128(generator.next() as UInt64) << 64 | UInt128(generator.next() as UInt64)
        return SessionID(time: min(time, maximumTime), random: random)
    }

    /// A new id for a session started at `unixMilliseconds`, with 80 bits from the system's generator.
    /// - Parameter unixMilliseconds: The start time, Unix milliseconds.
    /// - Returns: The id.
    public static func generate(at unixMilliseconds: Int64) -> SessionID {
        var generator = SystemRandomNumberGenerator()
        return generate(at: unixMilliseconds, using: &generator)
    }

    /// The time part, Unix milliseconds.
    public var time: UInt64 { UInt64(truncatingIfNeeded: rawValue >> 80) }

    /// The random part (80 bits).
    public var random: UInt128 { rawValue & Self.randomMask }

    /// The canonical 26-character text.
    public var description: String {
        String(unsafeUninitializedCapacity: Self.textLength) { buffer in
            write(to: buffer, at: 0)
            return Self.textLength
        }
    }

    /// The length of the canonical text, in characters (and UTF-8 bytes).
    static let textLength = 26

    /// Writes the canonical text into `buffer[offset ..< offset + 26]`, for building longer text without a `String`
    /// per id.
    /// - Parameters:
    ///   - buffer: The buffer; `offset + 26` must not exceed its count.
    ///   - offset: Where the text starts.
    func write(to buffer: UnsafeMutableBufferPointer<UInt8>, at offset: Int) {
        let (alphabet, value) = (Self.alphabet, rawValue)
        for i in 0..<Self.textLength {
            let digit = Int(truncatingIfNeeded: value >> UInt128(125 - 5 * i)) & 31
            buffer[offset + i] = alphabet[digit]
        }
    }

    /// Orders ids by time, then by their random part.
    /// - Parameters:
    ///   - lhs: An id.
    ///   - rhs: Another id.
    /// - Returns: Whether `lhs` sorts first.
    public static func < (lhs: SessionID, rhs: SessionID) -> Bool { lhs.rawValue < rhs.rawValue }

    private static let alphabet: [UInt8] = Array("0123456789ABCDEFGHJKMNPQRSTVWXYZ".utf8)

    private static let digitValues: [UInt8?] = {
        var table = [UInt8?](repeating: nil, count: 256)
        for (value, byte) in alphabet.enumerated() { table[Int(byte)] = UInt8(value) }
        return table
    }()
}

extension SessionID {
    /// Creates an id from its 128 bits.
    /// - Parameter rawValue: The bits: time in the top 48, randomness in the low 80.
    public init(rawValue: UInt128) {
        high = UInt64(truncatingIfNeeded: rawValue >> 64)
        low = UInt64(truncatingIfNeeded: rawValue)
    }
}
