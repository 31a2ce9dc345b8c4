/// A pull reader over one JSON text (RFC 8259) in UTF-8, for decoders that know the shape they expect.
///
/// The reader never builds a tree: a decoder asks what kind of value comes next, then reads it, steps into it or
/// skips it. Member names are byte ranges compared in place, so known keys and skipped members cost no
/// allocation. Every read validates what it passes over, so a document is accepted only if it is well-formed.
///
/// ```swift
/// try bytes.withUnsafeBytes { raw in
///     var reader = try JSONReader(raw, limits: WireLimits())
///     try reader.beginObject()
///     var first = true
///     while let key = try reader.nextKey(&first) {
///         if reader.key(key, is: "t") { t = try reader.readNumber() } else { try reader.skipValue() }
///     }
///     try reader.finish()
/// }
/// ```
///
/// The reader borrows the bytes: it must not outlive the `withUnsafeBytes` call that created it.
struct JSONReader {
    /// What kind of value starts at the current position.
    enum ValueKind: Equatable {
        case object, array, string, number, bool, null
    }

    /// A member name or string value: the raw bytes between the quotes, still escaped when `hasEscapes`.
    struct StringToken {
        /// Offset of the first byte after the opening quote.
        var start: Int
        /// Offset of the closing quote.
        var end: Int
        /// Whether the raw bytes contain a backslash escape.
        var hasEscapes: Bool
    }

    let bytes: UnsafeRawBufferPointer
    /// The offset of the next unread byte.
    var offset = 0
    /// How many objects and arrays are open.
    private(set) var depth = 0
    private let maxDepth: Int

    /// Creates a reader at the start of `bytes`.
    /// - Throws: `JSONError.Reason.tooLarge` when `bytes` exceeds `limits.maxMessageBytes`.
    init(_ bytes: UnsafeRawBufferPointer, limits: WireLimits) throws(JSONError) {
        guard bytes.count <= limits.maxMessageBytes else { throw JSONError(offset: 0, reason: .tooLarge) }
        self.bytes = bytes
        self.maxDepth = limits.maxDepth
    }

    // MARK: Structure

    /// The kind of the next value, after skipping whitespace; nothing is consumed.
    mutating func peekKind() throws(JSONError) -> ValueKind {
        skipWhitespace()
        guard offset < bytes.count else { throw error(.unexpectedEnd) }
        switch bytes[offset] {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"):
            throw error(.invalidLiteral)  // NaN, Infinity, undefined…
        default: throw error(.unexpectedByte)
        }
    }

    /// Consumes `{`. Follow with ``nextKey(_:)`` until it returns nil.
    mutating func beginObject() throws(JSONError) {
        try open(UInt8(ascii: "{"))
    }

    /// Consumes `[`. Follow with ``nextElement(_:)`` until it returns false.
    mutating func beginArray() throws(JSONError) {
        try open(UInt8(ascii: "["))
    }

    private mutating func open(_ bracket: UInt8) throws(JSONError) {
        skipWhitespace()
        guard offset < bytes.count else { throw error(.unexpectedEnd) }
        guard bytes[offset] == bracket else { throw error(.unexpectedByte) }
        guard depth < maxDepth else { throw error(.tooDeep) }
        depth += 1
        offset += 1
    }

    /// The next member name of the open object, with its `:` consumed, or nil after consuming the closing `}`.
    /// - Parameter isFirst: Cursor state; start with `true` for each object.
    /// - Throws: `JSONError` for a missing comma or colon, a trailing comma (RFC 8259 §4) or a bad name.
    mutating func nextKey(_ isFirst: inout Bool) throws(JSONError) -> StringToken? {
        skipWhitespace()
        guard offset < bytes.count else { throw error(.unexpectedEnd) }
        if bytes[offset] == UInt8(ascii: "}") {
            offset += 1
            depth -= 1
            return nil
        }
        if isFirst {
            isFirst = false
        } else {
            guard bytes[offset] == UInt8(ascii: ",") else { throw error(.unexpectedByte) }
            offset += 1
            skipWhitespace()
            guard offset < bytes.count else { throw error(.unexpectedEnd) }
        }
        guard bytes[offset] == UInt8(ascii: "\"") else { throw error(.expectedKey) }
        let key = try scanString()
        skipWhitespace()
        guard offset < bytes.count else { throw error(.unexpectedEnd) }
        guard bytes[offset] == UInt8(ascii: ":") else { throw error(.expectedColon) }
        offset += 1
        return key
    }

    /// Whether another element of the open array follows (its comma consumed); false after consuming `]`.
    /// - Parameter isFirst: Cursor state; start with `true` for each array.
    /// - Throws: `JSONError` for a missing comma. A trailing comma fails when the element is read.
    mutating func nextElement(_ isFirst: inout Bool) throws(JSONError) -> Bool {
        skipWhitespace()
        guard offset < bytes.count else { throw error(.unexpectedEnd) }
        if bytes[offset] == UInt8(ascii: "]") {
            offset += 1
            depth -= 1
            return false
        }
        if isFirst {
            isFirst = false
        } else {
            guard bytes[offset] == UInt8(ascii: ",") else { throw error(.unexpectedByte) }
            offset += 1
        }
        return true
    }

    /// A position of the reader, to come back to with ``rewind(to:)``.
    struct Mark {
        fileprivate let offset: Int
        fileprivate let depth: Int
    }

    /// The current position, e.g. the start of a value that may have to be read again.
    var mark: Mark { Mark(offset: offset, depth: depth) }

    /// Moves back to `mark`, as if nothing had been read since: a decoder that gives up on a value halfway (a
    /// frame of a batch refused alone) rewinds to its start and skips it whole with ``skipValue()``.
    mutating func rewind(to mark: Mark) {
        offset = mark.offset
        depth = mark.depth
    }

    /// Checks that only whitespace follows the top-level value (RFC 8259 §2).
    mutating func finish() throws(JSONError) {
        skipWhitespace()
        guard offset == bytes.count else { throw error(.trailingBytes) }
    }

    // MARK: Scalars

    /// Reads `true` or `false`.
    mutating func readBool() throws(JSONError) -> Bool {
        skipWhitespace()
        if try consumeLiteral("true") { return true }
        if try consumeLiteral("false") { return false }
        throw error(.invalidLiteral)
    }

    /// Reads `null`.
    mutating func readNull() throws(JSONError) {
        skipWhitespace()
        guard try consumeLiteral("null") else { throw error(.invalidLiteral) }
    }

    private mutating func consumeLiteral(_ literal: StaticString) throws(JSONError) -> Bool {
        let count = literal.utf8CodeUnitCount
        let text = UnsafeRawBufferPointer(start: literal.utf8Start, count: count)
        guard offset < bytes.count, bytes[offset] == text[0] else { return false }
        for index in 1..<count {
            guard offset + index < bytes.count else { throw JSONError(offset: bytes.count, reason: .unexpectedEnd) }
            guard bytes[offset + index] == text[index] else {
                throw JSONError(offset: offset + index, reason: .invalidLiteral)
            }
        }
        offset += count
        return true
    }

    /// Reads `[x, y]`, an array of two numbers in the form ``scanPlainNumber()`` reads, if that is what comes
    /// next. Returns nil without consuming anything otherwise: the caller then reads the value step by step, which
    /// reports any error.
    mutating func readPlainNumberPair() -> (Double, Double)? {
        let start = offset
        guard depth < maxDepth, consume(UInt8(ascii: "[")), let x = readPlainNumber(), consume(UInt8(ascii: ",")),
            let y = readPlainNumber(), consume(UInt8(ascii: "]"))
        else {
            offset = start
            return nil
        }
        return (x, y)
    }

    /// Consumes `[` after whitespace for an array the caller reads whole, up to its `]`, if nesting allows one
    /// more level; returns false otherwise (the whitespace consumed). The depth is not changed: the caller either
    /// reads the closing bracket or rewinds.
    @inline(__always)
    mutating func consumeOpeningBracket() -> Bool { depth < maxDepth && consume(UInt8(ascii: "[")) }

    /// Consumes `,` after whitespace and returns true, or returns false (the whitespace consumed).
    @inline(__always)
    mutating func consumeComma() -> Bool { consume(UInt8(ascii: ",")) }

    /// Consumes `]` after whitespace and returns true, or returns false (the whitespace consumed).
    @inline(__always)
    mutating func consumeClosingBracket() -> Bool { consume(UInt8(ascii: "]")) }

    /// Consumes `byte` after whitespace and returns true, or returns false (the whitespace consumed).
    @inline(__always)
    private mutating func consume(_ byte: UInt8) -> Bool {
        skipWhitespace()
        guard offset < bytes.count, bytes[offset] == byte else { return false }
        offset &+= 1
        return true
    }

    /// Skips one value of any kind, validating it completely.
    mutating func skipValue() throws(JSONError) {
        switch try peekKind() {
        case .object:
            try beginObject()
            var first = true
            while try nextKey(&first) != nil { try skipValue() }
        case .array:
            try beginArray()
            var first = true
            while try nextElement(&first) { try skipValue() }
        case .string: _ = try scanString()
        case .number: if scanPlainNumber() == nil { _ = try scanNumber() }
        case .bool: _ = try readBool()
        case .null: try readNull()
        }
    }

    /// Whether a member name (or string value) equals `name`, compared on bytes without allocating when the
    /// token has no escapes.
    @inline(__always)
    func key(_ token: StringToken, is name: StaticString) -> Bool {
        guard !token.hasEscapes else { return unescaped(token, is: name) }
        let count = name.utf8CodeUnitCount
        return token.end &- token.start == count && bytes(at: token.start, equal: name.utf8Start, count: count)
    }

    /// ``key(_:is:)`` for a token with escapes.
    @inline(never)
    private func unescaped(_ token: StringToken, is name: StaticString) -> Bool {
        let expected = UnsafeRawBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        return unescapedBytes(token).elementsEqual(expected)
    }

    /// Whether the `count` bytes of the input from `start` equal the `count` bytes at `other`: eight bytes at a
    /// time (the last word overlapping the one before), or four, so a key costs a few comparisons.
    @inline(__always)
    private func bytes(at start: Int, equal other: UnsafePointer<UInt8>, count: Int) -> Bool {
        let other = UnsafeRawPointer(other)
        func equal<Word: FixedWidthInteger>(_: Word.Type, at position: Int) -> Bool {
            bytes.loadUnaligned(fromByteOffset: start &+ position, as: Word.self)
                == other.loadUnaligned(fromByteOffset: position, as: Word.self)
        }
        if count >= 8 {
            var position = 0
            while position &+ 8 < count {
                guard equal(UInt64.self, at: position) else { return false }
                position &+= 8
            }
            return equal(UInt64.self, at: count &- 8)
        }
        if count >= 4 { return equal(UInt32.self, at: 0) && equal(UInt32.self, at: count &- 4) }
        for position in 0..<count where !equal(UInt8.self, at: position) { return false }
        return true
    }

    // MARK: Helpers

    /// Skips JSON whitespace: space, tab, line feed, carriage return (RFC 8259 §2).
    @inline(__always)
    mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x09, 0x0A, 0x0D: offset += 1
            default: return
            }
        }
    }

    /// An error at the current offset.
    func error(_ reason: JSONError.Reason) -> JSONError {
        JSONError(offset: offset, reason: reason)
    }
}

/// The reader borrows memory it does not own; it must stay on the thread and in the scope that created it.
@available(*, unavailable)
extension JSONReader: Sendable {}
